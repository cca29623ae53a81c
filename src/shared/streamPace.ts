/**
 * The pace of a stream: the longest silence between two chunks, taken where the bytes arrive (the
 * `max gap under` expectation reads it). The clock is the caller's, so tests can drive it.
 */
export class GapMeter {
  private last: number | undefined;
  private longest: number | undefined;

  /** A non-empty chunk arrived at `now` (ms on a monotonic clock). */
  chunk(now: number): void {
    if (this.last !== undefined) {
      const gap = Math.max(0, now - this.last);
      if (this.longest === undefined || gap > this.longest) this.longest = gap;
    } else {
      // One chunk: no gap yet, but the stream has a pace (zero), unlike a stream with no chunk at all.
      this.longest = 0;
    }
    this.last = now;
  }

  /** The longest gap so far; undefined until a chunk came. */
  get maxGapMs(): number | undefined {
    return this.longest;
  }
}
