import * as vscode from 'vscode';
import { CURL_KEY_VARIABLE, curlCommand, curlShellFor } from '../../client/curl';
import { serviceLabel } from '../../shared/environments';
import { plain, plainText } from '../../shared/plainText';
import { isReplayable, replayTarget, type Exchange, type HistoryStore } from '../../client/history';
import type { CurrentApplication } from '../platform/currentApplication';
import type { AnswerPanels } from '../answerPanel/answerPanel';
import { Commands } from '../platform/commandIds';
import type { Log } from '../platform/log';
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
