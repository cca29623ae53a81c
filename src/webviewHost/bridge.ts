import * as vscode from 'vscode';
import { type HostToWebview, MAX_WEBVIEW_TEXT, oversizedMessage, parseWebviewMessage, type SurfaceState, type WebviewToHost } from '../protocol/messages';

/** Roughly one animation frame: the most often text is posted to a webview. */
const FRAME_MS = 16;

/**
 * The host's end of one webview. Waits for the webview's `ready` (sent again whenever the webview
 * is re-created, e.g. after its view was hidden) and then replays the whole state, so nothing sent
 * while it was away is lost. Streamed text is coalesced into at most one `append` per frame and
 * turn, the first after a quiet frame without delay. Incoming messages are validated against the
 * protocol; unknown ones are dropped.
 */
export class WebviewBridge implements vscode.Disposable {
  private ready = false;
  private readonly pendingText = new Map<string, string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When streamed text was last posted (for the one-message-per-frame pace). */
  private lastFlush = 0;
  private readonly subscription: vscode.Disposable;
  /** Messages dropped because they did not match the protocol (for tests and the log). */
  dropped = 0;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly getState: () => SurfaceState,
    private readonly onMessage: (message: WebviewToHost) => void,
  ) {
    this.subscription = webview.onDidReceiveMessage((raw: unknown) => {
      const message = parseWebviewMessage(raw);
      if (!message) {
        this.dropped++;
        const oversized = oversizedMessage(raw);
        if (oversized !== undefined) {
          const size = `${oversized.length.toLocaleString('en-US')} characters; the limit is ${MAX_WEBVIEW_TEXT.toLocaleString('en-US')}`;
          void vscode.window.showWarningMessage(`That text is too large to pass from the view (${size}). Nothing was done: use Open as Markdown or Export as Markdown for large answers.`);
        }
        return;
      }
      if (message.type === 'ready') {
        this.ready = true;
        this.pendingText.clear();
        this.send({ type: 'state', state: this.getState() });
      }
      this.onMessage(message);
    });
  }

  /** The webview went away (hidden view, reload): post nothing until it says `ready` again. */
  markNotReady(): void {
    this.ready = false;
    this.pendingText.clear();
  }

  /** Posts a message now (after flushing any batched text so order is kept). */
  post(message: HostToWebview): void {
    if (!this.ready) {
      return; // The state replay after `ready` carries it.
    }
    this.flush();
    this.send(message);
  }

  /** Queues streamed text for a turn; it is posted with the next frame. */
  append(turnId: string, text: string): void {
    if (!this.ready || text.length === 0) {
      return;
    }
    this.pendingText.set(turnId, (this.pendingText.get(turnId) ?? '') + text);
    if (this.timer !== undefined) return;
    // Leading edge: text after a quiet frame goes out at once (no added latency for the first
    // bytes); text within a frame of the last post waits for the rest of that frame.
    const wait = this.lastFlush + FRAME_MS - Date.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pendingText.size > 0) this.lastFlush = Date.now();
    for (const [turnId, text] of this.pendingText) {
      this.send({ type: 'append', turnId, text });
    }
    this.pendingText.clear();
  }

  private send(message: HostToWebview): void {
    void this.webview.postMessage(message);
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.subscription.dispose();
  }
}
