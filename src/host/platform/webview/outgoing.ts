/**
 * What the extension host sends one webview, in order: streamed text coalesced into one batch per
 * frame (the first after a quiet frame without delay), and one batch on its way at a time: text
 * that comes while a batch crosses over joins the next, so a page that takes its messages slowly
 * gets fewer, larger ones instead of a queue. A batch carries all the text waiting: a page far
 * behind then has all of it at once and decides what to render (it folds what floods in), instead
 * of waiting a crossing per piece. Posting a message costs the host's event loop time in
 * proportion to its size, and every extension waits meanwhile, so a batch goes out in `append`s of
 * at most MOST_PER_TASK, one host task each. Each `append` says how much more of its answer is
 * queued here (the page counts it as text waiting, and folds a flood instead of rendering it). No
 * VS Code API here: the bridge (bridge.ts) owns the webview and its messages.
 */
import type { HostToWebview } from '../../../shared/protocol';

/** Roughly one animation frame: the most often text is posted to a webview. */
const FRAME_MS = 16;
/**
 * The most text posted in one task of the host's event loop, which is also the most in one
 * `append` (the workbench decodes each message on its main thread in one go).
 */
export const MOST_PER_TASK = 256 * 1024;

export class Outgoing {
  /** Text appended and not in the outbox yet, by turn, in the order the turns first had some. */
  private readonly pending = new Map<string, string[]>();
  /** Text appended and not posted yet (pending or in the outbox), by turn. */
  private readonly queued = new Map<string, number>();
  /** Messages formed and waiting to be posted, in order; at most MOST_PER_TASK of text goes per task. */
  private outbox: HostToWebview[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private nextTask: ReturnType<typeof setImmediate> | undefined;
  private lastFlush = 0;
  /** Appends posted whose delivery has not settled: while any is, a batch is on its way (other messages go at once). */
  private inFlight = 0;
  /** Changes whenever what is still to go is dropped, so a delivery that settles later starts nothing. */
  private generation = 0;

  /** `deliver` posts a message and settles once the webview's side has taken it. */
  constructor(private readonly deliver: (message: HostToWebview) => PromiseLike<unknown>) {}

  /** Queues streamed text for a turn; it goes over with the next frame. */
  append(turnId: string, text: string): void {
    if (text.length === 0) return;
    const queue = this.pending.get(turnId);
    if (queue === undefined) this.pending.set(turnId, [text]);
    else queue.push(text);
    this.queued.set(turnId, (this.queued.get(turnId) ?? 0) + text.length);
    this.schedule();
  }

  /**
   * Sends a message after everything appended before it. A state replaces all: it carries each
   * turn's whole text, so the text still to go is dropped.
   */
  post(message: HostToWebview): void {
    if (message.type === 'state') this.reset();
    // Everything appended before it goes first, however much (an answer's end after all its text).
    else this.toOutbox();
    this.outbox.push(message);
    this.postSome();
  }

  /** The webview went away, or a state replaces what it shows: nothing still to go is sent. */
  reset(): void {
    this.dispose();
    this.pending.clear();
    this.queued.clear();
    this.outbox = [];
    this.inFlight = 0;
    this.generation++;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.nextTask !== undefined) clearImmediate(this.nextTask);
    this.timer = undefined;
    this.nextTask = undefined;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.sending()) return;
    // Text after a quiet frame goes at once; text within a frame of the last batch waits for the frame's end.
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

  private sending(): boolean {
    return this.inFlight > 0 || this.outbox.length > 0;
  }

  /** Sends all that is pending as one batch; the next goes once this one has been taken. */
  private flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    this.lastFlush = Date.now();
    this.toOutbox();
    this.postSome();
  }

  /** Moves the pending text into the outbox, a turn's text at a time, in appends of at most MOST_PER_TASK. */
  private toOutbox(): void {
    for (const [turnId, queue] of this.pending) {
      let text = '';
      for (const piece of queue) {
        let at = 0;
        while (text.length + piece.length - at >= MOST_PER_TASK) {
          let end = at + MOST_PER_TASK - text.length;
          // A surrogate pair stays in one append.
          if (end > at && isHighSurrogate(piece.charCodeAt(end - 1))) end--;
          this.outbox.push({ type: 'append', turnId, text: text + piece.slice(at, end) });
          text = '';
          at = end;
        }
        text += at === 0 ? piece : piece.slice(at);
      }
      if (text !== '') this.outbox.push({ type: 'append', turnId, text });
    }
    this.pending.clear();
  }

  /** Posts from the outbox up to MOST_PER_TASK of text (at least one message), and the rest in the tasks after. */
  private postSome(): void {
    if (this.nextTask !== undefined) return;
    let room = MOST_PER_TASK;
    while (this.outbox.length > 0) {
      const message = this.outbox[0];
      const size = message.type === 'append' ? message.text.length : 0;
      if (size > room && room < MOST_PER_TASK) break;
      this.outbox.shift();
      room -= size;
      const delivered = Promise.resolve(this.deliver(message.type === 'append' ? this.withQueued(message) : message));
      if (message.type !== 'append') {
        // A webview closed meanwhile refuses it; the bridge hears of that on its own.
        delivered.then(undefined, () => undefined);
        continue;
      }
      this.inFlight++;
      const generation = this.generation;
      const settled = (): void => {
        if (generation !== this.generation) return;
        this.inFlight--;
        if (!this.sending() && this.pending.size > 0) this.schedule();
      };
      void delivered.then(settled, settled);
    }
    if (this.outbox.length > 0) {
      this.nextTask = setImmediate(() => {
        this.nextTask = undefined;
        this.postSome();
      });
    } else if (!this.sending() && this.pending.size > 0) {
      this.schedule();
    }
  }

  /** The append as posted: with how much of its turn's text is still queued after it. */
  private withQueued(message: Append): Append {
    const left = (this.queued.get(message.turnId) ?? 0) - message.text.length;
    if (left > 0) {
      this.queued.set(message.turnId, left);
      return { ...message, queued: left };
    }
    this.queued.delete(message.turnId);
    return message;
  }
}

type Append = Extract<HostToWebview, { type: 'append' }>;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
