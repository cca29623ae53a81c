import { outcomeFacts } from '../../client/queryFiles/facts';
import { formatDuration } from '../../shared/format';
import { plainText } from '../../shared/plainText';
import type { QueryReport, Totals } from '../report';
import { durationOf, problemsOf } from '../report';

/** Whether to colour: only on a terminal, never when NO_COLOR is set (any value) or in a CI log (CI set). */
export function useColour(stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && (env.CI === undefined || env.CI === '' || env.CI === 'false');
}

type Paint = (text: string) => string;

function painter(colour: boolean, code: number): Paint {
  return colour ? (text) => `\u001b[${code}m${text}\u001b[0m` : (text) => text;
}

/** How many characters of an actual answer a failure line shows (the reports hold all of it). */
const ACTUAL_EXCERPT_CHARS = 400;

/** Outside text for a terminal line: no escape sequence, control or bidirectional override from an answer; line breaks kept, CR as LF. */
export function terminalText(text: string): string {
  return plainText(text.replace(/\r\n?/g, '\n'));
}

function excerpt(text: string): string {
  return text.length > ACTUAL_EXCERPT_CHARS ? `${text.slice(0, ACTUAL_EXCERPT_CHARS)}… (${text.length} characters)` : text;
}

function indent(text: string, prefix: string): string {
  return text.split('\n').map((line) => prefix + line).join('\n');
}

/** The human report: a line per query as it ends (and, for a failure, what was expected and what came back), then a summary. */
export class ConsoleReporter {
  private readonly green: Paint;
  private readonly red: Paint;
  private readonly yellow: Paint;
  private readonly dim: Paint;

  constructor(
    private readonly write: (text: string) => void,
    colour: boolean,
  ) {
    this.green = painter(colour, 32);
    this.red = painter(colour, 31);
    this.yellow = painter(colour, 33);
    this.dim = painter(colour, 2);
  }

  /** One query has ended. */
  ended(report: QueryReport): void {
    const { result } = report;
    const time = result.sent === undefined ? '' : ` ${this.dim(`(${formatDuration(durationOf(result))})`)}`;
    const where = this.dim(`${terminalText(report.file)} ›`);
    const name = terminalText(report.name);
    const lines: string[] = [];
    switch (result.verdict) {
      case 'passed':
        lines.push(`${this.green('✓ pass')}  ${where} ${name}${time}`);
        break;
      case 'failed':
        lines.push(`${this.red('✗ FAIL')}  ${where} ${name}${time}`);
        break;
      case 'errored':
        lines.push(`${this.red('! ERROR')} ${where} ${name}${time}`);
        break;
      case 'skipped':
        lines.push(`${this.yellow('- skip')}  ${where} ${name}`);
        break;
    }
    for (const problem of problemsOf(result)) {
      lines.push(indent(terminalText(problem.message), '    '));
      if (problem.expected !== undefined) lines.push(`${this.green('    expected:')} ${indent(terminalText(problem.expected), '      ').trimStart()}`);
      if (problem.actual !== undefined) lines.push(`${this.red('    actual:  ')} ${indent(terminalText(excerpt(problem.actual)), '      ').trimStart()}`);
    }
    if ((result.verdict === 'failed' || result.verdict === 'errored') && result.sent !== undefined) lines.push(this.dim(`    ${outcomeFacts(result.sent.outcome)}`));
    if (report.change?.state === 'changed') lines.push(this.yellow('    the answer changed since the saved one:'), indent(this.colourDiff(terminalText(report.change.diff)), '    '));
    if (report.change?.state === 'new') lines.push(this.dim('    a new answer (none saved before)'));
    this.write(`${lines.join('\n')}\n`);
  }

  private colourDiff(diff: string): string {
    return diff
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => (line.startsWith('+') ? this.green(line) : line.startsWith('-') ? this.red(line) : line.startsWith('@@') ? this.dim(line) : line))
      .join('\n');
  }

  /** The last line: counts, time, and what changed. */
  summary(totals: Totals, totalMs: number, extra: { readonly interrupted: boolean; readonly changed: number; readonly added: number }): void {
    const parts = [
      totals.passed > 0 ? this.green(`${totals.passed} passed`) : `${totals.passed} passed`,
      totals.failed > 0 ? this.red(`${totals.failed} failed`) : undefined,
      totals.errored > 0 ? this.red(`${totals.errored} not sent`) : undefined,
      totals.skipped > 0 ? this.yellow(`${totals.skipped} skipped`) : undefined,
      extra.changed > 0 ? this.yellow(`${extra.changed} answers changed`) : undefined,
      extra.added > 0 ? `${extra.added} new answers` : undefined,
    ].filter((part) => part !== undefined);
    const lead = extra.interrupted ? `${this.yellow('Interrupted')}: ` : '';
    this.write(`\n${lead}${parts.join(', ')} ${this.dim(`(${formatDuration(totalMs)})`)}\n`);
  }
}
