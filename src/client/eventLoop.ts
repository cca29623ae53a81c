/**
 * Lets the rest of the process run while a loop works through input that is already there, one
 * slice of a few milliseconds at a time: in the extension host every other extension waits while
 * one task runs. An answer's body that arrives faster than it is handled stays buffered, and each
 * read of it settles at once, so the loop that masks, records and passes on its pieces would run
 * in one task for as long as the buffer lasts; a large repository's query files likewise. The loop
 * asks `due()` after each unit of work and awaits what it returns. Pieces stay as they came; only
 * when they are handled moves.
 */
export class EventLoopSlices {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = 8) {}

  /** Undefined within the slice (no await needed); past it, the event loop's next task, where a new slice starts. */
  due(): Promise<void> | undefined {
    if (performance.now() - this.sliceStart < this.sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        this.sliceStart = performance.now();
        resolve();
      }),
    );
  }
}
