/** A frame's render works for at most this long when the rest of the frame is light. */
export const FULL_BUDGET_MS = 20;
/** The least a frame's render works, however busy the page: enough for a small window. */
const LEAST_BUDGET_MS = 8;
/**
 * The whole frame the render's budget is fitted to: the render, plus what the page does besides
 * (style, layout, paint, other frames' callbacks, messages and timers between frames). Two frames
 * at 60 Hz. Fitted to three frames, the pacer's steady state was a three-frame gap, and any
 * message or collection between two frames made a stall past the workbench's stall goal; fitted to
 * two, one such task still lands within it (`npm run bench workbench`, the stall rows). In a plain
 * page the budget stays FULL_BUDGET_MS.
 */
const FRAME_TARGET_MS = 33;
/** A gap longer than this between two frames is a page that was hidden or asleep: it says nothing about the work. */
const GAP_IGNORED_MS = 1000;

/**
 * Fits each frame's render budget to how busy the page is. A renderer that takes its full budget
 * every frame in a page that spends several frames' time on layout, paint and its own tasks (a
 * webview inside the VS Code workbench, which shares its main thread) makes frames far past the
 * frame target. The pacer measures, across frames that follow each other, the time between the starts of
 * two renders less the first render's own time, the page's share, and keeps the render's budget
 * to what is left of FRAME_TARGET_MS, between LEAST_BUDGET_MS and FULL_BUDGET_MS.
 */
export class FramePacer {
  /** The page's share of a frame, a running average (undefined: not measured yet). */
  private others: number | undefined;
  /** When the last render that asked for the next frame started, and how long it took. */
  private last: { readonly start: number; readonly own: number } | undefined;

  /** The budget for a render starting at `now` (ms, one clock with `ended`). */
  budget(now: number): number {
    if (this.last !== undefined) {
      const gap = now - this.last.start;
      if (gap <= GAP_IGNORED_MS) {
        const sample = Math.max(0, gap - this.last.own);
        this.others = this.others === undefined ? sample : (this.others + sample) / 2;
      }
      this.last = undefined;
    }
    if (this.others === undefined) {
      // Until a gap has shown how busy the page is (an answer's first frame, often one with a cold layout).
      return LEAST_BUDGET_MS;
    }
    return Math.min(FULL_BUDGET_MS, Math.max(LEAST_BUDGET_MS, FRAME_TARGET_MS - this.others));
  }

  /**
   * A render that started at `start` had done its budgeted work at `end` (what follows, such as
   * the layout a caller forces to follow the new text, counts as the page's); `continues`: it
   * asked for the next frame (it had more to do), so the gap to the next render measures the page.
   */
  ended(start: number, end: number, continues: boolean): void {
    this.last = continues ? { start, own: end - start } : undefined;
  }
}

/**
 * The pace at which a renderer's windows of text have been rendered, and the window that fits the
 * time left in a frame at that pace. A renderer that takes windows of a fixed length overruns its
 * frame by up to a whole window whenever the page is slow for a while (cold, or sharing the
 * processor); one that fits each window to the time left overruns it by the pace's error only.
 */
export class WindowPace {
  /** How long a window took per code unit, a running average (0: none measured yet). */
  private msPerChar = 0;

  /** `least`: no window is cut shorter than this (code units), and shorter ones teach nothing. */
  constructor(readonly least: number) {}

  /** A window of `length` code units took `ms`. */
  learn(ms: number, length: number): void {
    if (length >= this.least) {
      const pace = ms / length;
      this.msPerChar = this.msPerChar === 0 ? pace : (this.msPerChar + pace) / 2;
    }
  }

  /** How much text fits in `msLeft` at the pace seen: at least `least`, at most `most`; `least` until the pace is known. */
  fits(msLeft: number, most = Number.POSITIVE_INFINITY): number {
    if (this.msPerChar === 0) {
      return Math.min(most, this.least);
    }
    return Math.max(this.least, Math.min(most, Math.floor(msLeft / this.msPerChar)));
  }

  /** Whether a window of the least length fits in `msLeft` (true until the pace is known). */
  roomFor(msLeft: number): boolean {
    return this.msPerChar === 0 || msLeft >= this.least * this.msPerChar;
  }
}

/**
 * Whether a render whose text has all come (an answer that has ended, a block whose end has come)
 * goes on past its share of the frame: until `finishBy`, a whole frame's budget (FULL_BUDGET_MS)
 * from the render's start. Its end is then final in this frame instead of the next, with a share
 * of a frame (four answers in a Compare panel, whose frames come several frames apart) and in a
 * busy page. Not only when the pace of its windows says the rest is done by then: in a busy page,
 * the pace a Compare column's windows showed while it streamed overstated what its last text took,
 * and its end waited for the next frame (`npm run bench renderer-compare`, last byte to final DOM).
 * Past its share, its windows are sized to `finishBy`.
 */
export function finishesBy(finishBy: number): boolean {
  return performance.now() < finishBy;
}

/** One renderer of a page, as the page's {@link FrameLoop} drives it. */
export interface FrameClient {
  /** Renders what is pending for at most about `budgetMs`; may ask for the next frame again. */
  render(budgetMs: number): void;
  /**
   * The text rendered is in the DOM: follow it (scroll, facts). When several renderers shared the
   * frame, called at the start of the next frame, before any renderer changes the DOM again.
   */
  rendered(): void;
  /** Whether its answer has ended and is not all rendered yet (see ENDING_SHARE_MS). */
  ending?(): boolean;
}

/**
 * A client is never given less than this, however many share a frame: each makes progress (at
 * least one small window) every frame.
 */
const LEAST_SHARE_MS = 2;
/**
 * A client whose answer has ended, and is not all rendered yet, gets at least what a lone renderer
 * gets in the busiest page: the last of an answer that ended far behind (see lazy.ts) is final in a
 * frame or two instead of a few kilobytes a frame, when several answers end at once (Compare).
 */
const ENDING_SHARE_MS = LEAST_BUDGET_MS;

/**
 * The page's one frame loop. Every renderer of a page (four answers of a Compare panel, or the
 * answers of a transcript) renders in the same animation-frame callback, within one budget that
 * the page's {@link FramePacer} fits to how busy the page is, each taking its share of what is
 * left (an answer that has ended, at least ENDING_SHARE_MS).
 *
 * A renderer's least step (a window of text, a group coming into view, a block it freezes) can
 * take several times a small share: four streaming answers in a busy page, each given a quarter of
 * the least budget, made frames far past the target (`npm run bench renderer-compare`). So once
 * the budget is spent, the renderers still due wait for the next frame, where they go first: the
 * clients go in the order they were last served (the longest waiting first, ties taking turns),
 * so each renders at least every few frames. The first client of a frame always renders, and an
 * answer that has ended always does, so that its last text is final at once.
 *
 * When several renderers shared a frame, what follows a render (a view scrolling to its newest
 * text, which reads the layout) waits for the start of the next frame: the browser has laid the
 * page out after the last one, so reading it costs nothing, where reading it right after each
 * render would lay the page out again in the frame, once for every renderer. Those views follow
 * their text one frame later. A lone renderer follows its text at once: one layout either way,
 * and a view that follows late makes the text far from it (see lazy.ts) look near.
 */
export class FrameLoop {
  private readonly clients = new Set<FrameClient>();
  /** Clients that rendered in the last frame: they follow their text at the start of the next. */
  private readonly following = new Set<FrameClient>();
  private readonly pacer = new FramePacer();
  private scheduled = false;
  private turn = 0;
  /** The frame (a count of runs) in which each client last rendered. */
  private readonly served = new WeakMap<FrameClient, number>();
  private frame = 0;

  constructor(private readonly schedule: (callback: () => void) => void = (callback) => void requestAnimationFrame(() => callback())) {}

  /** Renders `client` in the next frame (once, however often it asks). */
  request(client: FrameClient): void {
    this.clients.add(client);
    this.wake();
  }

  private wake(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => this.run());
    }
  }

  private run(): void {
    this.scheduled = false;
    const following = [...this.following];
    this.following.clear();
    for (const client of following) {
      guarded(() => client.rendered());
    }
    const due = [...this.clients];
    this.clients.clear();
    if (due.length === 0) {
      return;
    }
    const start = performance.now();
    const deadline = start + this.pacer.budget(start);
    const frame = ++this.frame;
    const first = this.turn++ % due.length;
    const lastServed = (client: FrameClient): number => this.served.get(client) ?? 0;
    // The longest waiting first; among those served in the same frame, the first turn goes round.
    const order = [...due.slice(first), ...due.slice(0, first)].sort((a, b) => lastServed(a) - lastServed(b));
    const rendered: FrameClient[] = [];
    order.forEach((client, i) => {
      const ending = client.ending?.() === true;
      const left = deadline - performance.now();
      if (i > 0 && !ending && left < LEAST_SHARE_MS) {
        // The budget is spent: it goes first in the next frame.
        this.clients.add(client);
        return;
      }
      this.served.set(client, frame);
      rendered.push(client);
      const share = Math.max(ending ? ENDING_SHARE_MS : LEAST_SHARE_MS, left / (order.length - i));
      guarded(() => client.render(share));
    });
    this.pacer.ended(start, performance.now(), this.clients.size > 0);
    if (order.length === 1) {
      // One renderer lays the page out once either way: it follows its text at once.
      guarded(() => order[0].rendered());
      return;
    }
    for (const client of rendered) {
      this.following.add(client);
    }
    // The last renders are followed in a frame of their own if none comes for more text.
    this.wake();
  }
}

/** Runs `work`; a failure is reported as uncaught, after the frame, without keeping the other renderers from theirs. */
function guarded(work: () => void): void {
  try {
    work();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/** The frame loop of this page (see {@link FrameLoop}). */
export const pageFrames = new FrameLoop();
