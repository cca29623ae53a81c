/**
 * Lets the rest of the process run while a loop works through input that is already there. An
 * answer's body that arrives faster than it is handled stays buffered, and each read of it then
 * settles at once: the loop that masks, records and passes on its pieces runs in one task of the
 * event loop for as long as the buffer lasts, and in the extension host every other extension
 * waits meanwhile. The loop asks `due()` after each piece and, once it has worked a slice, awaits
 * the next task. Pieces stay as they came; only when they are handled moves.
 */
export class EventLoopSlices {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = 8) {}

  /** Resolves at once within the slice, else in the event loop's next task (a new slice starts). */
  async due(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
