import * as vscode from 'vscode';
import { MAX_WEBVIEW_TEXT, oversizedMessage, parseWebviewMessage, type SurfaceState, type ToHost, type ToPage, type ViewKind } from '../../../shared/protocol';
import { Outgoing } from './outgoing';

/** The messages surface `S` handles. */
export type SurfaceMessage<S extends ViewKind> = ToHost<S>;

/**
 * The host's end of one webview. Waits for the webview's `ready` (sent again whenever the webview
 * is re-created, e.g. after its view was hidden) and then replays the whole state, so nothing sent
 * while it was away is lost. What goes over, in what order and at what pace (streamed text
 * coalesced per frame, one batch on its way at a time) is outgoing.ts's. Incoming messages
 * are validated against the surface's own protocol; any other is dropped.
 */
export class WebviewBridge<S extends ViewKind> implements vscode.Disposable {
  private ready = false;
  private readonly outgoing: Outgoing;
  private readonly subscription: vscode.Disposable;

  constructor(
    surface: S,
    private readonly webview: vscode.Webview,
    private readonly getState: () => SurfaceState,
    private readonly onMessage: (message: SurfaceMessage<S>) => void,
  ) {
    this.outgoing = new Outgoing((message) => this.webview.postMessage(message));
    this.subscription = webview.onDidReceiveMessage((raw: unknown) => {
      const message = parseWebviewMessage(surface, raw);
      if (!message) {
        const oversized = oversizedMessage(surface, raw);
        if (oversized !== undefined) {
          const size = `${oversized.length.toLocaleString('en-US')} characters; the limit is ${MAX_WEBVIEW_TEXT.toLocaleString('en-US')}`;
          void vscode.window.showWarningMessage(`That text is too large to pass from the view (${size}). Nothing was done: use Open as Markdown or Export as Markdown for large answers.`);
        }
        return;
      }
      if (message.type === 'ready') {
        this.ready = true;
        this.outgoing.post({ type: 'state', state: this.getState() });
      }
      this.onMessage(message);
    });
  }

  /** The webview went away (hidden view, reload): post nothing until it says `ready` again. */
  markNotReady(): void {
    this.ready = false;
    this.outgoing.reset();
  }

  /** Posts a message after everything posted or appended before it. */
  post(message: ToPage<S>): void {
    if (!this.ready) {
      return; // The state replay after `ready` carries it.
    }
    this.outgoing.post(message);
  }

  /** Queues streamed text for a turn; it is posted with the next frame. */
  append(turnId: string, text: string): void {
    if (!this.ready) {
      return;
    }
    this.outgoing.append(turnId, text);
  }

  dispose(): void {
    this.outgoing.dispose();
    this.subscription.dispose();
  }
}
