/**
 * What the extension host sends one webview, in order: streamed text coalesced into one batch per
 * frame (the first after a quiet frame without delay), and one batch on its way at a time: text
 * that comes while a batch crosses over joins the next, so a page that takes its messages slowly
 * gets fewer, larger ones instead of a queue. A batch carries all the text waiting, in `append`s
 * of at most MOST_PER_APPEND: a page far behind then has all of it at once and decides what to
 * render (it folds what floods in), instead of waiting a crossing per piece. No VS Code API here:
 * the bridge (bridge.ts) owns the webview and its messages.
 */
import type { HostToWebview } from '../../../shared/protocol';

/** Roughly one animation frame: the most often text is posted to a webview. */
const FRAME_MS = 16;
/** The most text in one `append` (more goes in further `append`s of the same batch): each message is decoded on the workbench's main thread in one go. */
const MOST_PER_APPEND = 1024 * 1024;

export class Outgoing {
  /** Text appended and not sent yet, by turn, in the order the turns first had some. */
  private readonly pending = new Map<string, string[]>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFlush = 0;
  /** A batch is on its way (its delivery has not settled). */
  private sending = false;
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
    this.schedule();
  }

  /**
   * Sends a message after everything appended before it. A state replaces all: it carries each
   * turn's whole text, so the text still to go is dropped.
   */
  post(message: HostToWebview): void {
    if (message.type === 'state') this.reset();
    // Everything appended before it goes first, however much (an answer's end after all its text).
    else this.flush();
    void this.deliver(message);
  }

  /** The webview went away, or a state replaces what it shows: nothing still to go is sent. */
  reset(): void {
    this.dispose();
    this.pending.clear();
    this.sending = false;
    this.generation++;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.sending) return;
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

  /** Sends all that is pending, a turn's text at a time, and goes on once the batch has been taken. */
  private flush(): void {
    this.dispose();
    if (this.pending.size === 0) return;
    this.lastFlush = Date.now();
    const batch: Array<Promise<unknown>> = [];
    for (const [turnId, queue] of this.pending) {
      while (queue.length > 0) {
        let text = '';
        while (queue.length > 0 && text.length < MOST_PER_APPEND) text += queue.shift();
        batch.push(Promise.resolve(this.deliver({ type: 'append', turnId, text })));
      }
    }
    this.pending.clear();
    this.sending = true;
    const generation = this.generation;
    const next = (): void => {
      if (generation !== this.generation) return;
      this.sending = false;
      if (this.pending.size > 0) this.schedule();
    };
    void Promise.all(batch).then(next, next);
  }
}
