/**
 * Coalesces many small text pieces into few `flush` calls: at most one flush per interval, however
 * fast pieces arrive. The first piece after a quiet spell flushes on the next tick, so that a burst
 * read at once goes out in one flush; with `leading`, it flushes at once instead (no added latency,
 * for a reader who waits for each piece). Nothing is dropped or reordered: the flushed texts
 * concatenate to exactly what was pushed.
 */
export class TextBatcher {
  private pending = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private disposed = false;
  private flushes = 0;

  /**
   * `flush` receives the coalesced text; `intervalMs` is the least time between two flushes;
   * `leading`: a piece pushed once the interval has passed since the last flush goes out at once.
   */
  constructor(
    private readonly flush: (text: string) => void,
    private readonly intervalMs = 50,
    private readonly leading = false,
  ) {}

  /** How many times `flush` was called. */
  get flushCount(): number {
    return this.flushes;
  }

  /** Adds text; it reaches `flush` within one interval. After `dispose`, text is flushed at once. */
  push(text: string): void {
    if (text === '') {
      return;
    }
    this.pending += text;
    if (this.disposed) {
      this.flushNow();
      return;
    }
    // A flush is already due: nothing to decide (no clock read per piece).
    if (this.timer !== undefined) {
      return;
    }
    const wait = this.lastFlushAt + this.intervalMs - performance.now();
    if (this.leading && wait <= 0) {
      this.flushNow();
      return;
    }
    this.timer = setTimeout(this.onTimer, Math.max(0, wait));
  }

  /** Flushes what is pending now (e.g. when the stream ends). */
  flushNow(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending === '') {
      return;
    }
    const text = this.pending;
    this.pending = '';
    this.lastFlushAt = performance.now();
    this.flushes++;
    this.flush(text);
  }

  /** Flushes what is pending and stops the timer. */
  dispose(): void {
    this.disposed = true;
    this.flushNow();
  }

  private readonly onTimer = (): void => {
    // Timers run on a whole-millisecond clock and can fire a fraction early; never flush early.
    const wait = this.lastFlushAt + this.intervalMs - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(this.onTimer, wait);
      return;
    }
    this.timer = undefined;
    this.flushNow();
  };
}
