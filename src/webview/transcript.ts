import type { HostToPage, PageToHost, Turn, TurnStatus } from '../shared/protocol';
import { utf8Length } from '../shared/format';
import { button, h, icon } from './dom';
import { IncrementalRenderer } from './render';

/** The `turnEnd` message. */
export type TurnEnd = Extract<HostToPage, { type: 'turnEnd' }>;

/** What a turn view needs from its surface. */
export interface TurnContext {
  post(message: PageToHost): void;
  /**
   * Called after an answer's renderer changed its DOM in an animation frame: the view follows it
   * at once, so that the text and the view's move are painted together (the layout it reads is
   * the frame's own).
   */
  rendered(): void;
  /**
   * Called after a message changed the DOM of the turns (a turn added, with its text or without; an
   * answer's end shown): the view follows it in the next animation frame. Read at once, the layout
   * would be one of the message's own (style and layout that grow with the conversation).
   */
  changed(): void;
  /** Display name of an application id. */
  applicationLabel(id: string): string;
  /** `chat` shows a Copy button per answer and full questions; `panel` collapses the question. */
  readonly surface: 'chat' | 'panel';
}

/** The text announced once when an answer ends. */
export function announcement(status: Exclude<TurnStatus, 'streaming'>, httpStatus: number | undefined): string {
  switch (status) {
    case 'done':
      return 'Answer complete';
    case 'stopped':
      return 'Answer stopped';
    case 'interrupted':
      return httpStatus !== undefined && httpStatus >= 400 ? `Request failed: HTTP ${httpStatus}` : 'Answer interrupted';
    case 'error':
      return httpStatus !== undefined ? `Request failed: HTTP ${httpStatus}` : 'Request failed';
  }
}

/** A question's first line, cut at 120 characters: what a collapsed question shows. */
export function questionSummary(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return (line.length > 120 ? `${line.slice(0, 117)}…` : line) || '(no question text)';
}

/** A question: plain text (never markdown), with its attachment labels. */
export class UserTurnView {
  readonly element: HTMLElement;

  constructor(readonly turn: Turn, context: TurnContext) {
    const attachments = (turn.attachments ?? []).map((label) => h('li', { className: 'aq-chip aq-chip-static' }, icon('attach'), h('span', { text: label })));
    const list = attachments.length > 0 ? [h('ul', { className: 'aq-turn-attachments', attrs: { 'aria-label': 'Attachments' } }, ...attachments)] : [];
    const text = h('div', { className: 'aq-user-text', text: turn.text });
    this.element = h('div', { className: 'aq-turn aq-turn-user', attrs: { 'data-turn-id': turn.id, 'data-role': 'user' } });
    if (context.surface === 'panel') {
      const summary = questionSummary(turn.text);
      this.element.append(
        h('details', { className: 'aq-question' }, h('summary', {}, h('span', { className: 'aq-turn-label', text: 'Question' }), h('span', { className: 'aq-question-summary', text: summary })), ...list, text),
      );
    } else {
      this.element.append(h('div', { className: 'aq-turn-header' }, icon('account'), h('span', { className: 'aq-turn-label', text: 'You' })), ...list, text);
    }
  }
}

/** An answer: rendered markdown that streams in, then a stopped note or an error block. */
export class AssistantTurnView {
  readonly element: HTMLElement;
  private readonly renderer: IncrementalRenderer;
  private readonly statusBadge: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly footer: HTMLElement;
  private byteCount = 0;
  private currentStatus: TurnStatus;
  private http: number | undefined;
  /**
   * While the view is built it tells its context nothing: a turn built with its text (a whole state,
   * a restored conversation) renders its first window and may show its end then, in the message's
   * task, and whoever builds it shows the new view once it is built (the transcript's `changed`,
   * a Compare column's facts), so that a message of many turns lays the page out once.
   */
  private building = true;

  constructor(readonly turn: Turn, private readonly context: TurnContext) {
    this.currentStatus = turn.status;
    this.http = turn.httpStatus;
    const answer = h('div', { className: 'aq-answer markdown-body' });
    this.statusBadge = h('span', { className: 'aq-badge aq-http-status', attrs: { 'data-role': 'http-status' } });
    this.progress = h('div', { className: 'aq-progress', attrs: { 'aria-hidden': 'true' } }, h('span'), h('span'), h('span'));
    this.footer = h('div', { className: 'aq-turn-footer' });
    const header = h('div', { className: 'aq-turn-header' }, icon('sparkle'), h('span', { className: 'aq-turn-label', text: context.applicationLabel(turn.applicationId) }), this.statusBadge);
    if (context.surface === 'chat') {
      header.append(h('span', { className: 'aq-spacer' }), button('copy-message', 'Copy answer', 'copy', () => context.post({ type: 'copyAnswer', turnId: this.turn.id }), { className: 'aq-icon-button aq-copy-message' }));
    }
    this.element = h('div', { className: 'aq-turn aq-turn-assistant', attrs: { 'data-turn-id': turn.id, 'data-role': 'assistant' } }, header, answer, this.progress, this.footer);
    this.renderer = new IncrementalRenderer(answer, {
      openWhole: () => context.post({ type: 'openAnswer', turnId: turn.id }),
      onRender: () => {
        if (!this.building) context.rendered();
        this.showDone();
      },
      // The answer's end shows in the frame that rendered it, also when following its text waits for the next.
      onDone: () => this.showDone(),
    });
    this.byteCount = utf8Length(turn.text);
    this.renderer.reset(turn.text);
    if (turn.status === 'streaming') {
      this.showStatus();
    } else {
      this.showEnd({ type: 'turnEnd', turnId: turn.id, status: turn.status, httpStatus: turn.httpStatus, message: turn.message, retryable: turn.retryable, remedies: turn.remedies });
    }
    this.building = false;
  }

  /** UTF-8 bytes received so far. */
  get bytes(): number {
    return this.byteCount;
  }

  get status(): TurnStatus {
    return this.currentStatus;
  }

  get httpStatus(): number | undefined {
    return this.http;
  }

  /** The view is gone (replaced by a state or a rebuilt turn): its answer renders no more. */
  dispose(): void {
    this.renderer.dispose();
  }

  /** Streamed text arrived; `queued` more of the answer is still at the host. */
  append(text: string, queued: number): void {
    this.byteCount += utf8Length(text);
    this.renderer.append(text, queued);
  }

  /** The response status became known. */
  setHttpStatus(status: number): void {
    this.http = status;
    this.showStatus();
  }

  /** The answer ended: render everything now and show how it ended. */
  end(message: TurnEnd): void {
    this.showEnd(message);
  }

  /** The answer has ended and all of it is rendered now: no longer busy. */
  private showDone(): void {
    if (this.currentStatus !== 'streaming' && this.element.getAttribute('aria-busy') === 'true' && this.renderer.done) {
      this.showStatus();
    }
  }

  private showStatus(): void {
    this.element.dataset.status = this.currentStatus;
    // Busy until the answer has ended and all of it is rendered (a long one renders over some frames).
    this.element.setAttribute('aria-busy', String(this.currentStatus === 'streaming' || !this.renderer.done));
    this.statusBadge.textContent = this.http === undefined ? '' : `HTTP ${this.http}`;
    this.statusBadge.hidden = this.http === undefined;
    this.statusBadge.classList.toggle('aq-badge-error', this.http !== undefined && this.http >= 400);
    this.progress.hidden = this.currentStatus !== 'streaming';
  }

  private showEnd(message: TurnEnd): void {
    this.currentStatus = message.status;
    if (message.httpStatus !== undefined) {
      this.http = message.httpStatus;
    }
    this.renderer.finish();
    this.showStatus();
    this.footer.replaceChildren();
    if (message.status === 'stopped') {
      this.footer.append(h('div', { className: 'aq-note', attrs: { 'data-role': 'stopped-note' } }, icon('debug-stop'), h('span', { text: 'Stopped — partial answer kept' })));
    } else if (message.status === 'error' || message.status === 'interrupted') {
      this.footer.append(this.errorBlock(message));
    }
    if (!this.building) this.context.changed();
  }

  private errorBlock(message: TurnEnd): HTMLElement {
    const title = message.status === 'interrupted' ? 'Answer interrupted' : 'Request failed';
    const body = h('div', { className: 'aq-error-body' }, h('strong', { className: 'aq-error-title', text: title }));
    if (this.http !== undefined) {
      body.append(' ', h('span', { className: 'aq-badge aq-badge-error', attrs: { 'data-role': 'error-status' }, text: `HTTP ${this.http}` }));
    }
    if (message.message !== undefined && message.message !== '') {
      body.append(h('div', { className: 'aq-error-message', text: message.message }));
    }
    const actions = h('div', { className: 'aq-error-actions' });
    if (message.retryable === true) {
      actions.append(button('retry', 'Retry', 'refresh', () => this.context.post({ type: 'retry', turnId: this.turn.id }), { text: 'Retry' }));
    }
    if (message.remedies?.includes('setApiKey') === true) {
      actions.append(button('set-api-key', 'Set API Key…', 'key', () => this.context.post({ type: 'setApiKey', turnId: this.turn.id }), { text: 'Set API Key…', className: 'aq-button aq-button-secondary' }));
    }
    const block = h('div', { className: 'aq-error', attrs: { 'data-role': 'error', 'data-status': message.status } }, icon(message.status === 'interrupted' ? 'warning' : 'error'), body);
    if (actions.childElementCount > 0) {
      block.append(actions);
    }
    return block;
  }
}

/** Either kind of turn view. */
export type TurnView = UserTurnView | AssistantTurnView;

/** The list of turns of a surface, keyed by turn id. */
export class Transcript {
  readonly element: HTMLElement;
  private readonly views = new Map<string, TurnView>();

  constructor(private readonly context: TurnContext) {
    this.element = h('div', { className: 'aq-turns' });
  }

  /** Replaces every turn. */
  setTurns(turns: readonly Turn[]): void {
    for (const view of this.views.values()) if (view instanceof AssistantTurnView) view.dispose();
    this.views.clear();
    this.element.replaceChildren();
    for (const turn of turns) {
      this.add(turn);
    }
  }

  /** Adds a turn at the end (replacing one with the same id). */
  add(turn: Turn): TurnView {
    const view = turn.role === 'user' ? new UserTurnView(turn, this.context) : new AssistantTurnView(turn, this.context);
    const existing = this.views.get(turn.id);
    if (existing !== undefined) {
      if (existing instanceof AssistantTurnView) existing.dispose();
      existing.element.replaceWith(view.element);
    } else {
      this.element.append(view.element);
    }
    this.views.set(turn.id, view);
    this.context.changed();
    return view;
  }

  /** The answer with this id, if there is one. */
  assistant(turnId: string): AssistantTurnView | undefined {
    const view = this.views.get(turnId);
    return view instanceof AssistantTurnView ? view : undefined;
  }

  /**
   * Ends an answer (done, stopped, error, interrupted) and returns what to announce to screen
   * readers: a sentence when it was streaming until now, undefined otherwise (an unknown turn, or
   * the end replayed after a state update).
   */
  end(message: TurnEnd): string | undefined {
    const view = this.assistant(message.turnId);
    if (view === undefined) {
      return undefined;
    }
    const wasStreaming = view.status === 'streaming';
    view.end(message);
    return wasStreaming ? announcement(message.status, view.httpStatus) : undefined;
  }

  /** The latest answer. */
  lastAssistant(): AssistantTurnView | undefined {
    let last: AssistantTurnView | undefined;
    for (const view of this.views.values()) {
      if (view instanceof AssistantTurnView) {
        last = view;
      }
    }
    return last;
  }

  /** The questions, in order. */
  users(): UserTurnView[] {
    return [...this.views.values()].filter((view): view is UserTurnView => view instanceof UserTurnView);
  }

  get size(): number {
    return this.views.size;
  }

  /** Whether any answer is still streaming. */
  get streaming(): boolean {
    for (const view of this.views.values()) {
      if (view instanceof AssistantTurnView && view.status === 'streaming') {
        return true;
      }
    }
    return false;
  }
}

/**
 * When the view's follows of three frames in a row each moved it by more than a screen, the text
 * comes faster than anyone reads it: the view follows it at most this often. Between those
 * follows the browser paints nothing of the new text below the view; following every frame made
 * it paint a whole screen of new text in every frame.
 */
const FLOOD_FOLLOW_MS = 100;

/**
 * Keeps a scroll container at the bottom while content grows, unless the user scrolled up. The
 * view follows a frame after the text is rendered (see the frame loop in render/frames.ts), so the
 * text may have grown again by the time the scroll that followed it is reported: only a move up,
 * away from where the view was put, lets go; reaching the bottom again holds on. Text that comes
 * slower than a screen between two follows is followed at once; once the follows of three frames
 * in a row each moved the view more than a screen, at most every FLOOD_FOLLOW_MS, and its last
 * change always within that time.
 */
export class AutoScroller {
  private stick = true;
  /** Where the view was last put or seen. */
  private top = 0;
  /** When the view last followed its content, and whether text floods in (see FLOOD_FOLLOW_MS). */
  private followedAt = Number.NEGATIVE_INFINITY;
  private flooding = false;
  /** How far the view moved in the frame of its last follow, and how many frames of follows before it each moved it more than a screen. */
  private move = 0;
  private streak = 0;
  private frame: CSSNumberish | null = null;
  /** A follow put off while the text floods in. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A follow in the next animation frame (see updateSoon). */
  private soon: number | undefined;

  constructor(private readonly scroller: HTMLElement) {
    scroller.addEventListener('scroll', () => this.seen());
    scroller.style.overflowAnchor = 'none';
    // The content also grows with no change to the DOM: a chunk or group off screen takes an
    // estimated height until the browser lays it out (webview.css), so the end moves after the
    // follow that brought it into view.
    const resized = new ResizeObserver(() => this.update());
    for (const child of scroller.children) {
      resized.observe(child);
    }
  }

  /**
   * Follows the content or lets go. While it follows, the browser does not anchor the view to the
   * text in it (`overflow-anchor`): a group or chunk above the view that takes its real height
   * would otherwise move the view up, which only the reader may do. Once the reader has let go,
   * anchoring keeps what they read in place.
   */
  private following(stick: boolean): void {
    if (stick !== this.stick) {
      this.stick = stick;
      this.scroller.style.overflowAnchor = stick ? 'none' : 'auto';
    }
  }

  /** Where the view is now: at the end it follows; moved up since it was last put or seen, it lets go. */
  private seen(): void {
    const top = this.scroller.scrollTop;
    if (this.scroller.scrollHeight - top - this.scroller.clientHeight < 24) {
      this.following(true);
    } else if (top < this.top - 1) {
      this.following(false);
    }
    this.top = top;
  }

  /**
   * Content changed outside an animation frame (a message): follow it in the next frame, which lays
   * the page out anyway. Several changes before that frame make one follow.
   */
  updateSoon(): void {
    this.soon ??= requestAnimationFrame(() => {
      this.soon = undefined;
      this.update();
    });
  }

  /** Content changed: follow it now if the user is at the bottom (reads the layout). */
  update(): void {
    if (!this.stick) {
      return;
    }
    const wait = this.flooding ? this.followedAt + FLOOD_FOLLOW_MS - performance.now() : 0;
    if (wait > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.update();
      }, wait);
      return;
    }
    // A scroll's event comes with the next frame: a follow before it (a put-off follow's timer, a
    // resize notice) would undo the reader's scroll up (and the event would then find the view at
    // the end, following again). Where the view is now counts first; the follow reads the layout
    // anyway (a follow put off reads none).
    this.seen();
    if (!this.stick) {
      return;
    }
    const before = this.top;
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.top = this.scroller.scrollTop;
    // The follows of one frame (after its render, and after its layout) make one move.
    const screen = this.scroller.clientHeight;
    const frame = document.timeline.currentTime;
    if (frame !== this.frame) {
      this.frame = frame;
      this.streak = this.move > screen ? this.streak + 1 : 0;
      this.move = 0;
    }
    this.move += Math.max(0, this.top - before);
    // Three frames in a row: a long move or two can be a group that took its estimated height for a frame.
    this.flooding = this.move > screen && this.streak >= 2;
    this.followedAt = performance.now();
  }

  /** Jump to the bottom, in the next animation frame, and follow again (a new question, a whole state). */
  reset(): void {
    this.following(true);
    this.flooding = false;
    this.move = 0;
    this.streak = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.updateSoon();
  }
}

/** A polite live region: one announcement per answer, never per token. */
export class Announcer {
  readonly element: HTMLElement;

  constructor() {
    this.element = h('div', { className: 'aq-visually-hidden', attrs: { 'aria-live': 'polite', role: 'status', 'data-role': 'announcer' } });
  }

  /** Announces `text` (a fresh node, so a repeated message is read again). */
  say(text: string): void {
    this.element.replaceChildren(h('span', { text }));
  }

  /** Announces `text` after what is still being read (answers that end together are each read once). */
  add(text: string): void {
    this.element.append(h('span', { text }));
    while (this.element.childElementCount > 8) this.element.firstElementChild?.remove();
  }
}
