import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { canRetry, type QueryOutcome } from '../../shared/outcome';
import { plain, plainText } from '../../shared/plainText';
import type { QueryInput } from '../../shared/prepare';
import { assertNever, type SurfaceState, type Turn } from '../../shared/protocol';
import type { AnswerDocuments } from '../platform/answerDocuments';
import { Commands } from '../platform/commandIds';
import type { Settings } from '../platform/settings';
import { background, copyText, isContentAction, openInEditor, runContentAction } from '../platform/webview/actions';
import { type SurfaceMessage, WebviewBridge } from '../platform/webview/bridge';
import { webviewHtml, webviewOptions } from '../platform/webview/html';
import type { QueryRegistry } from '../query/registry';
import type { QueryRunner } from '../query/runner';
import type { QuerySink } from '../query/types';

const VIEW_TYPE = 'applicationQuery.comparePanel';

/** One column: an application, on an environment (absent: the current one; empty: `applicationQuery.baseUrl`). */
export interface CompareTarget {
  readonly applicationId: string;
  readonly applicationLabel: string;
  readonly environment?: string;
}

/** One question to several applications or environments. */
export interface CompareRequest {
  readonly question: string;
  /** The context's label, e.g. `app.ts:10-24`. */
  readonly contextLabel?: string;
  readonly targets: readonly CompareTarget[];
  /** The input of one column (the same question and context for all). */
  readonly input: (target: CompareTarget) => QueryInput;
}

/** What the Compare panel needs. */
export interface ComparePanelDeps {
  readonly extensionUri: vscode.Uri;
  readonly settings: Settings;
  readonly runner: QueryRunner;
  readonly registry: QueryRegistry;
  readonly answers: AnswerDocuments;
}

/** Opens Compare panels; each comparison gets its own. */
export class ComparePanels implements vscode.Disposable {
  private readonly panels = new Set<ComparePanel>();

  constructor(private readonly deps: ComparePanelDeps) {}

  /** Sends the question to every target at once; the answers stream side by side in a new panel. */
  open(request: CompareRequest): void {
    const panel: ComparePanel = new ComparePanel(request, this.deps, () => this.panels.delete(panel));
    this.panels.add(panel);
  }

  dispose(): void {
    for (const panel of this.panels) panel.dispose();
    this.panels.clear();
  }
}

interface Column {
  readonly target: CompareTarget;
  /** What the column is called: the application, and its environment when it names one. */
  readonly name: string;
  turn: Turn;
  streaming: boolean;
}

/**
 * A Compare panel: one question, a column per target. Every request starts at once; each column
 * streams with the answer panel's renderer and ends on its own (a failure shows in its column with
 * its status and remedy, never as a notification that would interrupt the others). Stop per column
 * or for all; Retry re-sends one column; any two answers open in VS Code's diff editor.
 */
class ComparePanel {
  private readonly panel: vscode.WebviewPanel;
  private readonly bridge: WebviewBridge<'compare'>;
  private readonly id = randomUUID();
  private readonly columns: Column[];
  private readonly questionTurn: Turn;
  private readonly heading: string;

  constructor(
    private readonly request: CompareRequest,
    private readonly deps: ComparePanelDeps,
    onDispose: () => void,
  ) {
    const line = request.question.split('\n', 1)[0] ?? '';
    const summary = (line.length > 60 ? `${line.slice(0, 59)}…` : line) || request.contextLabel || 'question';
    this.heading = `Compare: ${summary}`;
    const startedAt = Date.now();
    this.questionTurn = {
      id: `${this.id}:question`,
      role: 'user',
      applicationId: '',
      text: [request.question, request.contextLabel === undefined ? '' : `(with ${request.contextLabel})`].filter((part) => part !== '').join(' ') || '(no question)',
      status: 'done',
      startedAt,
    };
    this.columns = request.targets.map((target, i) => ({
      target,
      name: target.environment === undefined ? target.applicationLabel : `${target.applicationLabel} on ${environmentName(target.environment)}`,
      turn: this.newTurn(target, i, 0),
      streaming: false,
    }));
    this.panel = vscode.window.createWebviewPanel(VIEW_TYPE, plainText(this.heading), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { ...webviewOptions(deps.extensionUri), retainContextWhenHidden: false });
    this.panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'activitybar.svg');
    this.panel.webview.html = webviewHtml(this.panel.webview, deps.extensionUri, 'compare', 'Compare');
    this.bridge = new WebviewBridge('compare', this.panel.webview, () => this.state(), (message) => this.onMessage(message));
    this.panel.onDidChangeViewState(() => {
      if (!this.panel.visible) this.bridge.markNotReady();
    });
    this.panel.onDidDispose(() => {
      this.stopAll();
      this.bridge.dispose();
      onDispose();
    });
    this.columns.forEach((_, i) => this.run(i));
  }

  private newTurn(target: CompareTarget, index: number, attempt: number): Turn {
    return {
      id: `${this.id}:${index}:${attempt}`,
      role: 'assistant',
      applicationId: target.applicationId,
      text: '',
      status: 'streaming',
      startedAt: Date.now(),
      ...(target.environment === undefined ? {} : { environment: environmentName(target.environment) }),
    };
  }

  private state(): SurfaceState {
    const applications = this.columns
      .filter((column, i) => this.columns.findIndex((c) => c.target.applicationId === column.target.applicationId) === i)
      .map((column) => ({ id: column.target.applicationId, label: column.target.applicationLabel, hasKey: true }));
    return { surface: 'compare', title: this.heading, applications, currentApplicationId: undefined, turns: [this.questionTurn, ...this.columns.map((c) => c.turn)], attachments: [] };
  }

  /** Sends one column's request; its answer streams into its column. */
  private run(index: number): void {
    const column = this.columns[index];
    column.streaming = true;
    const turn = column.turn;
    const sink: QuerySink = {
      start: () => undefined,
      status: (httpStatus) => {
        turn.httpStatus = httpStatus;
        this.bridge.post({ type: 'status', turnId: turn.id, httpStatus });
      },
      append: (text) => {
        turn.text += text;
        this.bridge.append(turn.id, text);
      },
      end: (outcome: QueryOutcome) => {
        if (column.turn === turn) column.streaming = false;
        turn.status = outcome.kind;
        turn.httpStatus = outcome.httpStatus;
        turn.message = outcome.message ?? outcome.warning;
        turn.retryable = canRetry(outcome);
        turn.remedies = outcome.remedies;
        turn.firstByteMs = outcome.firstByteMs;
        turn.durationMs = outcome.durationMs;
        this.bridge.post({ type: 'turnEnd', turnId: turn.id, status: outcome.kind, httpStatus: outcome.httpStatus, message: turn.message, retryable: turn.retryable, remedies: turn.remedies, firstByteMs: outcome.firstByteMs, durationMs: outcome.durationMs });
      },
    };
    const environment = column.target.environment;
    void this.deps.runner.run(this.request.input(column.target), [sink], {
      surface: 'compare',
      queryId: turn.id,
      // Several password boxes at once would be confusing: a column without a key says so and offers Set API Key….
      promptForKey: false,
      ...(environment === undefined ? {} : { environment }),
    });
  }

  private stopAll(): void {
    for (const column of this.columns) if (column.streaming) this.deps.registry.stop(column.turn.id);
  }

  private column(turnId: string): Column | undefined {
    return this.columns.find((c) => c.turn.id === turnId);
  }

  private onMessage(message: SurfaceMessage<'compare'>): void {
    if (message.type === 'setApiKey') {
      this.setApiKey(message.turnId);
      return;
    }
    if (isContentAction(message)) {
      runContentAction(message, undefined);
      return;
    }
    switch (message.type) {
      case 'ready':
        break;
      case 'stop':
        if (message.turnId === undefined) this.stopAll();
        else if (this.column(message.turnId)?.streaming === true) this.deps.registry.stop(message.turnId);
        break;
      case 'retry': {
        const index = this.columns.findIndex((c) => c.turn.id === message.turnId);
        if (index < 0 || this.columns[index].streaming) break;
        const attempt = Number(message.turnId.split(':').pop() ?? '0') + 1;
        this.columns[index].turn = this.newTurn(this.columns[index].target, index, attempt);
        this.bridge.post({ type: 'state', state: this.state() });
        this.run(index);
        break;
      }
      case 'copyAnswer': {
        const column = this.column(message.turnId);
        if (column !== undefined) background(copyText(column.turn.text), 'Copy');
        break;
      }
      case 'openAnswer': {
        const column = this.column(message.turnId);
        if (column !== undefined) background(openInEditor(column.turn.text, 'markdown'), 'Open as Markdown');
        break;
      }
      case 'diff':
        background(this.diff(message.turnId), 'Diff');
        break;
      default:
        assertNever(message);
    }
  }

  /** Opens this column's answer and another one (the only other, else the one the user picks) in the diff editor. */
  private async diff(turnId: string): Promise<void> {
    const left = this.column(turnId);
    if (left === undefined) return;
    const others = this.columns.filter((c) => c !== left);
    let right = others.length === 1 ? others[0] : undefined;
    if (right === undefined) {
      const picked = await vscode.window.showQuickPick(
        others.map((c) => ({ label: plainText(c.name), description: plain`${c.turn.status === 'streaming' ? 'still streaming' : c.turn.status}`, column: c })),
        { title: plain`Diff ${left.name} with…`, placeHolder: 'Another answer of this comparison' },
      );
      right = picked?.column;
    }
    if (right === undefined) return;
    await this.deps.answers.diff({ id: left.turn.id, label: left.name, text: left.turn.text }, { id: right.turn.id, label: right.name, text: right.turn.text });
  }

  /** Set API Key… for a column's application, on that column's service: the key is stored for the current environment, so another one is switched to first (the user is asked). */
  private setApiKey(turnId: string | undefined): void {
    const column = turnId === undefined ? undefined : this.column(turnId);
    if (column === undefined) return;
    const environment = column.target.environment;
    if (environment === undefined || environment === this.deps.settings.environment()) {
      void vscode.commands.executeCommand(Commands.setApiKey, column.target.applicationId);
      return;
    }
    const where = environment === '' ? 'applicationQuery.baseUrl' : environment;
    void vscode.window.showInformationMessage(plain`Keys are stored per service: to set the key of ${column.target.applicationLabel} on ${where}, switch to that environment first.`, 'Switch and Set API Key…').then(async (choice) => {
      if (choice === undefined) return;
      await vscode.commands.executeCommand(Commands.selectEnvironment, environment);
      await vscode.commands.executeCommand(Commands.setApiKey, column.target.applicationId);
    });
  }

  dispose(): void {
    this.panel.dispose();
  }
}

/** An environment as a column names it: `applicationQuery.baseUrl` is "default". */
function environmentName(environment: string): string {
  return environment === '' ? 'default' : environment;
}
