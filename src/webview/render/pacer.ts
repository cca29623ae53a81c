/** A frame's render works for at most this long when the rest of the frame is light. */
export const FULL_BUDGET_MS = 20;
/** The least a frame's render works, however busy the page: enough for a small window. */
const LEAST_BUDGET_MS = 8;
/**
 * The whole frame the render's budget is fitted to: the render, plus what the page does besides
 * (style, layout, paint, other frames' callbacks, messages and timers between frames).
 */
const FRAME_TARGET_MS = 50;
/** A gap longer than this between two frames is a page that was hidden or asleep: it says nothing about the work. */
const GAP_IGNORED_MS = 1000;

/**
 * Fits each frame's render budget to how busy the page is. A renderer that takes its full budget
 * every frame in a page that spends another 60 ms a frame on layout, paint and its own tasks (a
 * webview inside the VS Code workbench, which shares its main thread) makes frames of 80 ms and
 * more. The pacer measures, across frames that follow each other, the time between the starts of
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
