import * as vscode from 'vscode';
import { formatBytes, formatDuration } from '../../shared/format';
import { isReplayable, type Exchange, type HistoryStore } from '../../client/history';
import { plainMarkdown, plainText } from '../../shared/plainText';
import { Commands } from '../platform/commandIds';

/** The History view's id (fixed by package.json). */
export const HISTORY_VIEW_ID = 'applicationQuery.history';

const ICONS: Readonly<Record<Exchange['outcome']['kind'], vscode.ThemeIcon>> = {
  done: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  stopped: new vscode.ThemeIcon('debug-stop'),
  interrupted: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground')),
};

/** Where an exchange was started, in a word or two (rows' tooltips). */
export const SURFACE_LABELS: Readonly<Record<Exchange['surface'], string>> = {
  command: 'command',
  panel: 'answer panel',
  chat: 'sidebar chat',
  participant: '@app',
  model: 'model',
  tool: 'tool',
  replay: 'replay',
  queryFile: 'query file',
  compare: 'compare',
};

/** The origin of a recorded request's URL, or the URL itself when it is not one. */
export function exchangeOrigin(exchange: Exchange): string {
  try {
    return new URL(exchange.request.url).origin;
  } catch {
    return exchange.request.url;
  }
}

/**
 * The service an exchange went to, as the user knows it: `staging (https://staging.example.com)`,
 * `https://service.example.com (applicationQuery.baseUrl)`, or the origin alone when the exchange
 * does not say (recorded before environments, or with none).
 */
export function exchangeService(exchange: Exchange): string {
  const origin = exchangeOrigin(exchange);
  if (exchange.environment === undefined) return origin;
  return exchange.environment === '' ? `${origin} (applicationQuery.baseUrl)` : `${exchange.environment} (${origin})`;
}

/** What a row says about its exchange after the application: environment (when it had one), status, duration, time. */
export function exchangeDescription(exchange: Exchange): string {
  const status = exchange.response === undefined ? 'no response' : `HTTP ${exchange.response.status}`;
  const time = new Date(exchange.when).toLocaleTimeString();
  const environment = exchange.environment === undefined || exchange.environment === '' ? '' : `${oneLine(exchange.environment)} · `;
  return `${environment}${status} · ${exchange.outcome.kind} · ${formatDuration(exchange.timings.durationMs)} · ${time}`;
}

/** Text on one line (a setting's key may hold line breaks), for a row. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The first words of what was asked, from the recorded body (for rows and pickers). */
export function exchangeQuestion(exchange: Exchange): string {
  const body = exchange.request.body ?? '';
  let text = body;
  try {
    const parsed: unknown = JSON.parse(body);
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
    };
    walk(parsed);
    text = strings.sort((a, b) => b.length - a.length)[0] ?? body;
  } catch {
    // Not JSON: show the text as it is.
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

/**
 * How long the History view waits after a change before the workbench redraws it; the changes in
 * that time make one redraw. A redraw of its rows (up to 200) takes the workbench's main thread
 * about a frame at the moment an answer ends, which for a short answer is the moment its text is
 * to be painted (`npm run bench workbench`, first text painted); a run of many queries (a query file's, a Compare's) redrew it
 * once for each answer.
 */
const REFRESH_DELAY_MS = 250;

/** Every recorded exchange, newest first, with an icon per outcome; a click opens the inspector. */
class HistoryTree implements vscode.TreeDataProvider<Exchange> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly history: HistoryStore) {}

  /** The store changed: the view redraws once REFRESH_DELAY_MS after the first change not yet shown. */
  refresh(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.changed.fire();
    }, REFRESH_DELAY_MS);
  }

  getChildren(element?: Exchange): Exchange[] {
    return element === undefined ? [...this.history.list()] : [];
  }

  getTreeItem(exchange: Exchange): vscode.TreeItem {
    const item = new vscode.TreeItem(plainText(exchange.applicationLabel), vscode.TreeItemCollapsibleState.None);
    item.id = exchange.id;
    item.description = plainText(exchangeDescription(exchange));
    item.iconPath = ICONS[exchange.outcome.kind];
    item.contextValue = isReplayable(exchange) ? 'exchange.replayable' : 'exchange';
    const tooltip = new vscode.MarkdownString(undefined, false);
    tooltip.isTrusted = false;
    tooltip.appendText(`${exchange.applicationLabel} · ${SURFACE_LABELS[exchange.surface]} · ${new Date(exchange.when).toLocaleString()}\n\n`);
    tooltip.appendMarkdown(plainMarkdown`Sent to ${exchangeService(exchange)}`);
    tooltip.appendText('\n\n');
    tooltip.appendText(`${exchangeQuestion(exchange)}\n\n`);
    tooltip.appendText(
      `${item.description}; headers after ${formatDuration(exchange.timings.headersMs ?? 0)}, first byte after ${formatDuration(exchange.timings.firstByteMs ?? 0)}; ` +
        `${formatBytes(exchange.wireBytes)} on the wire, ${exchange.textChars.toLocaleString('en-US')} characters of text` +
        `${exchange.response?.format === undefined ? '' : `, read as ${exchange.response.format}`}`,
    );
    if (exchange.outcome.message !== undefined) tooltip.appendText(`\n\n${exchange.outcome.message}`);
    item.tooltip = tooltip;
    item.command = { command: Commands.showExchange, title: 'Show Request and Response', arguments: [exchange] };
    item.accessibilityInformation = { label: `${exchange.applicationLabel}, ${item.description}` };
    return item;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.changed.dispose();
  }
}

/** The History view as the rest of the extension sees it. */
export interface HistoryView {
  /** Fires each time the view is told to redraw its rows (at most once per REFRESH_DELAY_MS of changes). */
  readonly onDidRedraw: vscode.Event<void>;
}

/** Registers the History view; it follows every change of the store (also from other windows on focus). */
export function registerHistoryView(context: vscode.ExtensionContext, history: HistoryStore): HistoryView {
  const tree = new HistoryTree(history);
  const view = vscode.window.createTreeView(HISTORY_VIEW_ID, { treeDataProvider: tree, showCollapseAll: false });
  const updateMessage = (): void => {
    view.message = history.list().length === 0 ? 'No exchanges yet: every query from every surface is recorded here (never its key).' : undefined;
  };
  updateMessage();
  const subscription = history.onDidChange(() => {
    tree.refresh();
    updateMessage();
  });
  context.subscriptions.push(tree, view, { dispose: () => subscription.dispose() }, vscode.window.onDidChangeWindowState((state) => state.focused && tree.refresh()));
  return { onDidRedraw: tree.onDidChangeTreeData };
}
