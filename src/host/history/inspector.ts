import * as vscode from 'vscode';
import { formatBytes, formatDuration } from '../../shared/format';
import type { Exchange, HistoryStore } from '../../client/history';
import { exchangeOrigin } from './historyView';

/** The scheme of the read-only inspector documents: `application-query-exchange:/<id>/<name>.md`. */
export const INSPECTOR_SCHEME = 'application-query-exchange';

const SURFACE_NAMES: Readonly<Record<Exchange['surface'], string>> = {
  command: 'a command',
  panel: 'the answer panel',
  chat: 'the sidebar chat',
  participant: '@app in VS Code\'s Chat',
  model: 'the language model provider',
  tool: 'the askApplication tool',
  replay: 'Replay',
  queryFile: 'a query file',
  compare: 'the Compare panel',
};

/** The inspector's URI for an exchange (a Markdown document, read-only by its scheme). */
export function inspectorUri(exchange: Exchange): vscode.Uri {
  const name = exchange.applicationId.replace(/[^\w.-]+/g, '_').slice(0, 60) || 'exchange';
  return vscode.Uri.from({ scheme: INSPECTOR_SCHEME, path: `/${exchange.id}/${name}.md` });
}

/**
 * Serves "Show Request and Response": the request as sent (method, URL, headers with the key masked,
 * the JSON body) and the response as received (status, headers, timings, the raw body up to the
 * recorded cap, the extracted text), as a read-only Markdown document.
 */
export class Inspector implements vscode.TextDocumentContentProvider {
  constructor(private readonly history: HistoryStore) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = uri.path.split('/')[1] ?? '';
    const exchange = this.history.get(id);
    return exchange === undefined ? '# Not in History any more\n\nThis exchange was cleared from History or evicted by newer ones.\n' : inspectorMarkdown(exchange);
  }

  /** Opens the inspector for an exchange beside the current editor. */
  async show(exchange: Exchange): Promise<void> {
    const document = await vscode.workspace.openTextDocument(inspectorUri(exchange));
    await vscode.window.showTextDocument(document, { preview: false, viewColumn: vscode.ViewColumn.Beside });
  }
}

/** A code fence longer than any run of backticks in `text`, so the text can never close it. */
function fenced(text: string, info: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

function headerLines(headers: Readonly<Record<string, string>>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return lines.length === 0 ? '(none recorded)' : lines.join('\n');
}

function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Inline code that survives backticks and line breaks in the text (an environment's name is the user's). */
function code(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 || flat.startsWith(' ') || flat.endsWith(' ') ? `${fence} ${flat} ${fence}` : `${fence}${flat}${fence}`;
}

/** Which service the request went to: the environment as recorded, and the origin of its URL. */
function serviceLine(exchange: Exchange): string {
  const origin = code(exchangeOrigin(exchange));
  if (exchange.environment === undefined) return `Environment: not recorded · origin ${origin}`;
  if (exchange.environment === '') return `Environment: none (\`applicationQuery.baseUrl\`) · origin ${origin}`;
  return `Environment: ${code(exchange.environment)} · origin ${origin}`;
}

function ms(value: number | undefined): string {
  return value === undefined ? '—' : formatDuration(value);
}

/** The inspector document for one exchange (no key: the recorded headers are already masked). */
export function inspectorMarkdown(exchange: Exchange): string {
  const { request, response, outcome, timings } = exchange;
  const out: string[] = [];
  out.push(`# ${exchange.applicationLabel}: request and response`, '');
  out.push(serviceLine(exchange), '');
  out.push(`Recorded ${new Date(exchange.when).toLocaleString()} from ${SURFACE_NAMES[exchange.surface]}${exchange.replayOf === undefined ? '' : ' (a replay)'}. Outcome: **${outcome.kind}**${outcome.message === undefined ? '' : `: ${outcome.message}`}`, '');
  if (outcome.warning !== undefined) out.push(`> Warning: ${outcome.warning}`, '');
  if (outcome.noTextExtracted === true) {
    out.push('> No answer text could be extracted from this response. Look at the raw body below and set `responseField` (a dotted path such as `choices.0.delta.content`) or `responseFormat` for this application in `applicationQuery.applications`.', '');
  }
  out.push('## Request', '');
  out.push(fenced(`${request.method} ${request.url}\n${headerLines(request.headers)}`, 'http'), '');
  if (request.body !== undefined) {
    const size = formatBytes(Buffer.byteLength(request.body, 'utf8'));
    out.push(`Body (${size} as sent${request.bodyTruncated === true ? '; only its start was kept, so it cannot be replayed' : ''}; shown indented):`, '');
    out.push(fenced(prettyJson(request.body), 'json'), '');
  }
  out.push('## Response', '');
  if (response === undefined) {
    out.push('No response arrived.', '');
  } else {
    const format = response.format === undefined ? '' : ` · read as ${response.format}${response.shape === undefined ? '' : ` (${response.shape})`}`;
    out.push(`HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}${format}`, '');
    out.push(fenced(headerLines(response.headers), 'http'), '');
  }
  out.push(`Timings: headers after ${ms(timings.headersMs)}, first body byte after ${ms(timings.firstByteMs)}, ended after ${ms(timings.durationMs)}.`, '');
  out.push(`Received ${formatBytes(exchange.wireBytes)} on the wire (${exchange.wireBytes.toLocaleString('en-US')} bytes); ${exchange.textChars.toLocaleString('en-US')} characters of answer text.`, '');
  if (response !== undefined) {
    out.push(`### Raw body, as received${response.rawTruncated ? ' (the start only: History keeps a bounded part)' : ''}`, '');
    out.push(response.rawWithheld === undefined ? fenced(response.raw, 'text') : response.rawWithheld, '');
    out.push(`### Extracted answer text${response.textTruncated ? ' (the start only)' : ''}`, '');
    out.push(fenced(response.text, 'text'), '');
  }
  return out.join('\n');
}
