/**
 * Coalesces many small text pieces into few `flush` calls: at most one flush per interval, however
 * fast pieces arrive; the first piece after a quiet spell flushes on the next tick. Nothing is
 * dropped or reordered: the flushed texts concatenate to exactly what was pushed.
 */
export class TextBatcher {
  private pending = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private disposed = false;
  private flushes = 0;

  /** `flush` receives the coalesced text; `intervalMs` is the least time between two flushes. */
  constructor(
    private readonly flush: (text: string) => void,
    private readonly intervalMs = 50,
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
    if (this.timer === undefined) {
      const wait = Math.max(0, this.lastFlushAt + this.intervalMs - performance.now());
      this.timer = setTimeout(this.onTimer, wait);
    }
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
