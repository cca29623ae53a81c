import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { assertNever, type SurfaceState, type Turn } from '../../shared/protocol';
import type { QueryRegistry } from '../query/registry';
import type { QueryOutcome } from '../../shared/outcome';
import type { QueryInfo, QuerySink } from '../query/types';
import { background, copyText, isContentAction, openInEditor, runContentAction } from '../platform/webview/actions';
import { type SurfaceMessage, WebviewBridge } from '../platform/webview/bridge';
import { webviewHtml, webviewOptions } from '../platform/webview/html';
import { plain } from '../../shared/plainText';
import { canRetry } from '../../shared/outcome';

const VIEW_TYPE = 'applicationQuery.answer';

/** What an answer panel needs from the rest of the extension. */
export interface AnswerPanelDeps {
  readonly extensionUri: vscode.Uri;
  readonly registry: QueryRegistry;
}

/**
 * The webview answer panel of a command query: titled with the application, shows the answer as it
 * streams (rendered Markdown), with Stop, Copy and Open as Markdown. A finished panel of the same
 * application is reused; a panel still streaming never is.
 */
export class AnswerPanels implements vscode.Disposable {
  private readonly panels = new Set<AnswerPanel>();

  constructor(private readonly deps: AnswerPanelDeps) {}

  /** A sink that streams into a panel for this application. */
  sink(applicationId: string, retry: () => void): QuerySink {
    let panel = [...this.panels].find((p) => p.applicationId === applicationId && !p.streaming);
    if (!panel) {
      panel = new AnswerPanel(applicationId, this.deps, () => this.panels.delete(panel!));
      this.panels.add(panel);
    }
    return panel.sink(retry);
  }

  dispose(): void {
    for (const panel of this.panels) {
      panel.dispose();
    }
    this.panels.clear();
  }
}

class AnswerPanel {
  private readonly panel: vscode.WebviewPanel;
  private readonly bridge: WebviewBridge<'panel'>;
  private info: QueryInfo | undefined;
  private question: Turn | undefined;
  private answer: Turn | undefined;
  private retry: (() => void) | undefined;
  streaming = false;

  constructor(
    readonly applicationId: string,
    private readonly deps: AnswerPanelDeps,
    onDispose: () => void,
  ) {
    this.panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      'Application Query',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { ...webviewOptions(deps.extensionUri), retainContextWhenHidden: false },
    );
    this.panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'activitybar.svg');
    this.panel.webview.html = webviewHtml(this.panel.webview, deps.extensionUri, 'panel', 'Application Query');
    this.bridge = new WebviewBridge('panel', this.panel.webview, () => this.state(), (m) => this.onMessage(m));
    this.panel.onDidChangeViewState(() => {
      if (!this.panel.visible) {
        this.bridge.markNotReady();
      }
    });
    this.panel.onDidDispose(() => {
      if (this.streaming && this.info) {
        this.deps.registry.stop(this.info.queryId);
      }
      this.bridge.dispose();
      onDispose();
    });
  }

  private title(): string {
    return this.info ? this.info.applicationLabel : 'Application Query';
  }

  private state(): SurfaceState {
    return {
      surface: 'panel',
      title: this.title(),
      applications: [],
      currentApplicationId: this.applicationId,
      turns: [this.question, this.answer].filter((t): t is Turn => t !== undefined),
      attachments: [],
    };
  }

  sink(retry: () => void): QuerySink {
    this.retry = retry;
    this.streaming = true;
    return {
      start: (info) => {
        this.info = info;
        this.panel.title = plain`${info.applicationLabel}: answer`;
        const questionText = [info.question, info.contextLabel && `(with ${info.contextLabel})`].filter(Boolean).join(' ');
        this.question = {
          id: randomUUID(),
          role: 'user',
          applicationId: info.applicationId,
          text: questionText || '(no question)',
          status: 'done',
          attachments: info.contextLabel ? [info.contextLabel] : undefined,
          startedAt: info.startedAt,
        };
        this.answer = { id: info.queryId, role: 'assistant', applicationId: info.applicationId, text: '', status: 'streaming', startedAt: info.startedAt };
        this.bridge.post({ type: 'state', state: this.state() });
        this.panel.reveal(undefined, true);
      },
      status: (httpStatus) => {
        if (this.answer) {
          this.answer.httpStatus = httpStatus;
          this.bridge.post({ type: 'status', turnId: this.answer.id, httpStatus });
        }
      },
      append: (text) => {
        if (this.answer) {
          this.answer.text += text;
          this.bridge.append(this.answer.id, text);
        }
      },
      end: (outcome: QueryOutcome) => {
        this.streaming = false;
        if (!this.answer) {
          return;
        }
        const status = outcome.kind;
        this.answer.status = status;
        this.answer.httpStatus = outcome.httpStatus;
        this.answer.message = outcome.message ?? outcome.warning;
        this.answer.retryable = canRetry(outcome);
        this.bridge.post({
          type: 'turnEnd',
          turnId: this.answer.id,
          status,
          httpStatus: outcome.httpStatus,
          message: this.answer.message,
          retryable: canRetry(outcome),
          remedies: outcome.remedies,
        });
      },
    };
  }

  private onMessage(message: SurfaceMessage<'panel'>): void {
    if (isContentAction(message)) {
      runContentAction(message, this.applicationId);
      return;
    }
    switch (message.type) {
      case 'ready':
        break;
      case 'stop':
        if (this.info) {
          this.deps.registry.stop(this.info.queryId);
        }
        break;
      case 'retry':
        this.retry?.();
        break;
      case 'copyAnswer':
        if (this.answer?.id === message.turnId) background(copyText(this.answer.text), 'Copy');
        break;
      case 'openAnswer':
        if (this.answer?.id === message.turnId) background(openInEditor(this.answer.text, 'markdown'), 'Open as Markdown');
        break;
      case 'exportMarkdown':
        background(openInEditor(this.answer?.text ?? '', 'markdown'), 'Open as Markdown');
        break;
      default:
        assertNever(message);
    }
  }

  dispose(): void {
    this.panel.dispose();
  }
}
