// The diagnosis as a Markdown report for an editor.
import { formatDuration } from '../../shared/format';
import type { Diagnosis, StepStatus } from './types';

const STATUS_ICONS: Readonly<Record<StepStatus, string>> = { ok: '✅', warning: '⚠️', failed: '❌', skipped: '➖' };

/** The diagnosis as a Markdown report for an editor: summary, checks, what to do, settings, proxy. */
export function formatDiagnosis(diagnosis: Diagnosis): string {
  const lines: string[] = ['# Application Query: connection diagnosis', ''];
  const failed = diagnosis.steps.filter((step) => step.status === 'failed');
  const warned = diagnosis.steps.filter((step) => step.status === 'warning');
  lines.push(
    `Environment: ${diagnosis.environment === undefined ? 'none (applicationQuery.baseUrl)' : environmentName(diagnosis.environment)}`,
    '',
    `Run ${diagnosis.when} for ${code(diagnosis.baseUrl)}${diagnosis.applicationId === undefined ? '' : ` and the application ${code(diagnosis.applicationId)}`}.`,
    '',
    failed.length > 0
      ? `**${failed.length} ${failed.length === 1 ? 'check failed' : 'checks failed'}**: ${failed.map((step) => step.title).join(', ')}.`
      : warned.length > 0
        ? `**Every check passed**, with ${warned.length} ${warned.length === 1 ? 'warning' : 'warnings'}.`
        : '**Every check passed.**',
    '',
    '## Checks',
    '',
    '| | check | result | time |',
    '|---|---|---|---|',
  );
  for (const step of diagnosis.steps) {
    const details = step.details.length > 0 ? `<br>${step.details.map(cell).join('<br>')}` : '';
    lines.push(`| ${STATUS_ICONS[step.status]} | ${step.title} | ${cell(step.summary)}${details} | ${step.ms === undefined ? '' : formatDuration(step.ms)} |`);
  }
  const advice = diagnosis.steps.filter((step) => step.advice !== undefined && step.status !== 'skipped');
  if (advice.length > 0) {
    lines.push('', '## What to do', '');
    for (const step of advice) {
      lines.push(`- **${step.title}**: ${(step.advice ?? '').replace(/\r?\n/g, ' ')}`);
    }
  }
  lines.push('', '## Settings in effect', '');
  if (diagnosis.settings.length === 0) {
    lines.push('(none given)');
  } else {
    lines.push('| setting | value | from |', '|---|---|---|');
    for (const setting of diagnosis.settings) {
      const value = setting.value === undefined ? '(not set)' : code(JSON.stringify(setting.value) ?? typeof setting.value);
      lines.push(`| ${code(setting.name)} | ${cell(value)} | ${cell(setting.source)}${setting.note === undefined ? '' : ` (${cell(setting.note)})`} |`);
    }
  }
  const { proxy } = diagnosis;
  lines.push('', '## Proxy and certificates', '', `- Proxy for this service: ${proxy.proxy === undefined ? 'none' : `${code(proxy.proxy)} from ${proxy.from ?? '?'}`}${proxy.bypassedBy === undefined ? '' : `, bypassed by NO_PROXY ${code(proxy.bypassedBy)}`}`);
  const settings = proxy.settings;
  lines.push(
    `- ${code('http.proxy')}: ${settings.httpProxy === undefined || settings.httpProxy === '' ? '(not set)' : code(settings.httpProxy)}`,
    `- ${code('http.proxySupport')}: ${settings.proxySupport ?? '(not given)'}`,
    `- ${code('http.fetchAdditionalSupport')}: ${settings.fetchAdditionalSupport === undefined ? '(not given)' : String(settings.fetchAdditionalSupport)}`,
    `- ${code('http.systemCertificates')}: ${settings.systemCertificates === undefined ? '(not given)' : String(settings.systemCertificates)}`,
  );
  for (const [name, value] of Object.entries(settings.env ?? {})) {
    lines.push(`- ${code(name)}: ${value === undefined || value === '' ? '(not set)' : code(value)}`);
  }
  lines.push('', 'The API key is never part of this report.', '');
  return lines.join('\n');
}

/** An environment's name as written when it is plain words (`staging`, `eu-west.2`), else as inline code on one line. */
function environmentName(name: string): string {
  return /^[\p{L}\p{N}][\p{L}\p{N}_.-]*(?: [\p{L}\p{N}_.-]+)*$/u.test(name) ? name : code(name.replace(/\s+/g, ' '));
}

/** Text for a Markdown table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}
