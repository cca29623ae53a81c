import * as vscode from 'vscode';
import { CURL_KEY_VARIABLE, curlCommand, curlShellFor } from '../../client/curl';
import { serviceLabel } from '../../shared/environments';
import { plain, plainText } from '../../shared/plainText';
import { isReplayable, replayTarget, type Exchange, type HistoryStore } from '../../client/history';
import type { CurrentApplication } from '../platform/currentApplication';
import type { AnswerPanels } from '../answerPanel/answerPanel';
import { Commands } from '../platform/commandIds';
import type { Log } from '../platform/log';
import type { AnswerDocuments } from '../platform/answerDocuments';
import type { Settings } from '../platform/settings';
import { exchangeDescription, exchangeQuestion, exchangeService } from './historyView';
import type { Inspector } from './inspector';
import { runCommandQuery, type CommandQueryDeps } from '../query/commandQuery';

/** What the History commands need. */
export interface HistoryCommandDeps extends CommandQueryDeps {
  readonly history: HistoryStore;
  readonly inspector: Inspector;
  readonly current: CurrentApplication;
  readonly panels: AnswerPanels;
  readonly log: Log;
  readonly answers: AnswerDocuments;
}

/** The current service as the user knows it, for messages. */
function currentService(settings: Settings): string {
  const base = settings.baseUrl();
  return base.ok ? serviceLabel(base) : 'the current service (not usable as configured)';
}

/** The exchange a command is about: a History row (or its id), else one the user picks. */
async function exchangeFor(arg: unknown, history: HistoryStore, title: string): Promise<Exchange | undefined> {
  const id = typeof arg === 'string' ? arg : typeof arg === 'object' && arg !== null && typeof (arg as { id?: unknown }).id === 'string' ? (arg as { id: string }).id : undefined;
  if (id !== undefined) {
    const found = history.get(id);
    if (found === undefined) void vscode.window.showWarningMessage('That exchange is no longer in History.');
    return found;
  }
  const entries = history.list();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('History is empty: run a query first.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    entries.map((exchange) => ({ label: plainText(exchange.applicationLabel), description: plainText(exchangeDescription(exchange)), detail: plainText(exchangeQuestion(exchange)), exchange })),
    { title: plainText(title), placeHolder: 'Choose an exchange (newest first)', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.exchange;
}

/** Registers Show Request and Response, Replay Query, Replay with Another Application…, Copy as cURL and Clear History. */
export function registerHistoryCommands(context: vscode.ExtensionContext, deps: HistoryCommandDeps): void {
  const replay = (exchange: Exchange, applicationId: string): void => {
    if (!isReplayable(exchange) || exchange.request.body === undefined) {
      void vscode.window.showWarningMessage('This request was too large to keep whole in History, so it cannot be replayed exactly.');
      return;
    }
    const target = replayTarget(exchange, deps.settings.environments().environments);
    if (target.missing !== undefined) {
      const where = currentService(deps.settings);
      deps.log.info(`Replay: the environment "${target.missing}" this exchange was recorded on is no longer in applicationQuery.environments; replaying on ${where}.`);
      void vscode.window.showInformationMessage(plain`The environment "${target.missing}" this exchange was recorded on is no longer in applicationQuery.environments: replaying on ${where}.`);
    } else if (target.environment !== undefined && target.environment !== deps.settings.environment()) {
      deps.log.info(`Replay: sent to ${target.environment === '' ? 'applicationQuery.baseUrl' : `the environment "${target.environment}"`}, where the exchange was recorded (the current one is ${deps.settings.environment() === '' ? 'applicationQuery.baseUrl' : `"${deps.settings.environment()}"`}).`);
    }
    const again = (): void => replay(exchange, applicationId);
    const input = { applicationId, question: '', recordedBody: exchange.request.body };
    const options = { surface: 'replay' as const, replayOf: exchange.id, ...(target.environment === undefined ? {} : { environment: target.environment }) };
    runCommandQuery(deps, input, deps.panels.sink(applicationId, again), options, again);
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.showExchange, async (arg?: unknown) => {
      const exchange = await exchangeFor(arg, deps.history, 'Show Request and Response');
      if (exchange !== undefined) await deps.inspector.show(exchange);
    }),
    vscode.commands.registerCommand(Commands.replay, async (arg?: unknown) => {
      const exchange = await exchangeFor(arg, deps.history, 'Replay Query');
      if (exchange === undefined) return;
      if (deps.settings.resolve(exchange.applicationId) === undefined) {
        void vscode.window.showWarningMessage(plain`${exchange.applicationLabel} is no longer in applicationQuery.applications; use "Replay with Another Application…".`);
        return;
      }
      replay(exchange, exchange.applicationId);
    }),
    vscode.commands.registerCommand(Commands.replayWith, async (arg?: unknown) => {
      const exchange = await exchangeFor(arg, deps.history, 'Replay with Another Application…');
      if (exchange === undefined) return;
      const app = await deps.current.pick({ title: `Replay the request sent to ${exchange.applicationLabel} on ${exchangeService(exchange)} with…`, always: true, remember: false });
      if (app !== undefined) replay(exchange, app.id);
    }),
    vscode.commands.registerCommand(Commands.copyAsCurl, async (arg?: unknown) => {
      const exchange = await exchangeFor(arg, deps.history, 'Copy as cURL');
      if (exchange === undefined) return;
      const shell = curlShellFor(vscode.env.shell, process.platform);
      let command: string;
      try {
        command = curlCommand({ method: exchange.request.method, url: exchange.request.url, headers: exchange.request.headers, body: exchange.request.body }, shell);
      } catch (error) {
        void vscode.window.showErrorMessage(plain`This request cannot be written as a shell command: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      await vscode.env.clipboard.writeText(command);
      const cut = exchange.request.bodyTruncated === true ? ' Its body was too large to keep whole, so the command sends only its start.' : '';
      const form = shell === 'powershell' ? `PowerShell, curl.exe). It reads the key from $env:${CURL_KEY_VARIABLE}` : `POSIX shell: sh, bash, zsh). It reads the key from $${CURL_KEY_VARIABLE}`;
      void vscode.window.showInformationMessage(plain`Copied a cURL command for ${exchange.applicationLabel} (${form} (the key itself is not in it): set that variable first.${cut}`);
    }),
    vscode.commands.registerCommand(Commands.compareExchanges, async (arg?: unknown) => {
      const first = await exchangeFor(arg, deps.history, 'Compare with…');
      if (first === undefined) return;
      await compareWith(first, deps);
    }),
    vscode.commands.registerCommand(Commands.clearHistory, async () => {
      const count = deps.history.list().length;
      if (count === 0) {
        void vscode.window.showInformationMessage('History is already empty.');
        return;
      }
      const choice = await vscode.window.showWarningMessage(`Forget all ${count} recorded exchange${count === 1 ? '' : 's'}?`, { modal: true }, 'Clear History');
      if (choice === 'Clear History') await deps.history.clear();
    }),
  );
}

/** What an exchange is called in the diff editor: its application, environment and time. */
function answerLabel(exchange: Exchange): string {
  const environment = exchange.environment === undefined || exchange.environment === '' ? '' : ` on ${exchange.environment}`;
  return `${exchange.applicationLabel}${environment} ${new Date(exchange.when).toLocaleString()}`;
}

/** The recorded answer text, and what it lacks (an answer longer than History keeps, or none). */
function answerText(exchange: Exchange): string {
  const text = exchange.response?.text ?? '';
  if (exchange.response?.textTruncated === true) return `${text}\n\n[History kept the first ${text.length} of ${exchange.textChars} characters of this answer.]`;
  return text;
}

/**
 * Compare with…: another recorded answer (the same question first, then the same application,
 * newest first) next to this one in VS Code's diff editor: the older on the left.
 */
async function compareWith(first: Exchange, deps: HistoryCommandDeps): Promise<void> {
  const question = exchangeQuestion(first);
  const others = deps.history
    .list()
    .filter((e) => e.id !== first.id)
    .map((exchange) => ({ exchange, rank: exchangeQuestion(exchange) === question ? 0 : exchange.applicationId === first.applicationId ? 1 : 2 }))
    .sort((a, b) => a.rank - b.rank);
  if (others.length === 0) {
    void vscode.window.showInformationMessage('History holds no other answer to compare with: run the query again (Replay Query), then compare.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    others.map(({ exchange, rank }) => ({
      label: plainText(exchange.applicationLabel),
      description: plainText(`${rank === 0 ? 'same question · ' : ''}${exchangeDescription(exchange)}`),
      detail: plainText(exchangeQuestion(exchange)),
      exchange,
    })),
    { title: plain`Compare the answer of ${first.applicationLabel} with…`, placeHolder: 'Another recorded answer (the same question first)', matchOnDescription: true, matchOnDetail: true },
  );
  if (picked === undefined) return;
  const [older, newer] = Date.parse(picked.exchange.when) <= Date.parse(first.when) ? [picked.exchange, first] : [first, picked.exchange];
  await deps.answers.diff({ id: older.id, label: answerLabel(older), text: answerText(older) }, { id: newer.id, label: answerLabel(newer), text: answerText(newer) });
}
