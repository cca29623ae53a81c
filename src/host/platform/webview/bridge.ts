import * as vscode from 'vscode';
import { HeldText } from '../../../shared/answer/heldText';
import { type HostToWebview, MAX_WEBVIEW_TEXT, oversizedMessage, parseWebviewMessage, type SurfaceState, type WebviewToHost } from '../../../shared/protocol';

/** Roughly one animation frame: the most often text is posted to a webview. */
const FRAME_MS = 16;
/**
 * The most streamed text on its way to the webview (posted, not yet acknowledged). Text that
 * arrives meanwhile waits; if much of it piles up, whole groups of it far behind the newest text
 * stay here until the view needs them (see shared/answer/heldText.ts).
 */
const MAX_IN_FLIGHT = 512 * 1024;

/** The messages a surface handles (the bridge answers the stream's own). */
export type SurfaceMessage = Exclude<WebviewToHost, { readonly type: 'received' | 'wantHeld' }>;

/**
 * The host's end of one webview. Waits for the webview's `ready` (sent again whenever the webview
 * is re-created, e.g. after its view was hidden) and then replays the whole state, so nothing sent
 * while it was away is lost. Streamed text is coalesced into at most one `append` per frame and
 * turn, the first after a quiet frame without delay, with at most MAX_IN_FLIGHT on the way; text
 * far behind a large backlog is held here in whole groups and sent when the webview asks for it.
 * Incoming messages are validated against the protocol; unknown ones are dropped.
 */
export class WebviewBridge implements vscode.Disposable {
  private ready = false;
  private readonly pendingText = new Map<string, string>();
  /** Each streamed turn's text as passed over (and the groups held of it). */
  private readonly passed = new Map<string, HeldText>();
  /** Text posted and not yet acknowledged by the webview. */
  private inFlight = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When streamed text was last posted (for the one-message-per-frame pace). */
  private lastFlush = 0;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly getState: () => SurfaceState,
    private readonly onMessage: (message: SurfaceMessage) => void,
  ) {
    this.subscription = webview.onDidReceiveMessage((raw: unknown) => {
      const message = parseWebviewMessage(raw);
      if (!message) {
        const oversized = oversizedMessage(raw);
        if (oversized !== undefined) {
          const size = `${oversized.length.toLocaleString('en-US')} characters; the limit is ${MAX_WEBVIEW_TEXT.toLocaleString('en-US')}`;
          void vscode.window.showWarningMessage(`That text is too large to pass from the view (${size}). Nothing was done: use Open as Markdown or Export as Markdown for large answers.`);
        }
        return;
      }
      switch (message.type) {
        case 'received':
          this.inFlight = Math.max(0, this.inFlight - message.length);
          if (this.pendingText.size > 0) this.schedule();
          return;
        case 'wantHeld':
          this.sendHeld(message.turnId, message.ids);
          return;
        case 'ready':
          this.ready = true;
          this.pendingText.clear();
          this.send({ type: 'state', state: this.getState() });
          break;
        default:
          break;
      }
      this.onMessage(message);
    });
  }

  /** The webview went away (hidden view, reload): post nothing until it says `ready` again. */
  markNotReady(): void {
    this.ready = false;
    this.pendingText.clear();
    this.passed.clear();
    this.inFlight = 0;
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
    this.schedule();
  }

  /** Posts the pending text with the next frame, unless enough is on its way already (then an acknowledgement does). */
  private schedule(): void {
    if (this.timer !== undefined || this.inFlight >= MAX_IN_FLIGHT) return;
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
      let passed = this.passed.get(turnId);
      if (passed === undefined) {
        passed = new HeldText();
        this.passed.set(turnId, passed);
      }
      for (const piece of passed.pass(text)) {
        if ('text' in piece) {
          this.inFlight += piece.text.length;
          this.send({ type: 'append', turnId, text: piece.text });
        } else {
          this.send({ type: 'held', turnId, groups: piece.groups });
        }
      }
    }
    this.pendingText.clear();
  }

  /** Sends the text of held groups the webview asked for. */
  private sendHeld(turnId: string, ids: readonly number[]): void {
    const passed = this.passed.get(turnId);
    for (const id of ids) {
      const text = passed?.text(id);
      if (text !== undefined && this.ready) {
        this.send({ type: 'heldText', turnId, id, text });
      }
    }
  }

  private send(message: HostToWebview): void {
    if (message.type === 'turnEnd') {
      // Only held groups are asked for after the end; an answer that held none needs nothing kept.
      const passed = this.passed.get(message.turnId);
      if (passed?.heldCount === 0) this.passed.delete(message.turnId);
      else passed?.end();
    } else if (message.type === 'state') {
      // The state carries each turn's whole text: streaming goes on from there.
      this.passed.clear();
      this.inFlight = 0;
      for (const turn of message.state.turns) {
        if (turn.status === 'streaming') this.passed.set(turn.id, new HeldText(turn.text));
      }
    }
    void this.webview.postMessage(message);
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.subscription.dispose();
  }
}
