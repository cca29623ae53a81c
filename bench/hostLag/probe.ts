// Bench only, never in the product: loaded into the benchmarked extension host as an extension of
// its own (see ../hostLag.ts). It notes every time the host's event loop came back late: while
// one task runs, no extension's work (ours, a language client's) runs, and no message is taken in.
import { appendFileSync } from 'node:fs';

/** How often the extension host's loop is asked to come back (ms). */
const TICK_MS = 10;
/** A tick later than this is written down (ms): its end time (epoch ms) and how late it was. */
const NOTED_OVER_MS = 20;

/**
 * Asks the event loop to come back every `tickMs` and tells `late` how late each tick was (ms),
 * until the returned function is called. The bench's plain-Node rows use it too (core.ts).
 */
export function watchLateTicks(tickMs: number, late: (ms: number) => void): () => void {
  let last = performance.now();
  let watching = true;
  const tick = (): void => {
    if (!watching) return;
    const now = performance.now();
    late(now - last - tickMs);
    last = now;
    setTimeout(tick, tickMs).unref();
  };
  setTimeout(tick, tickMs).unref();
  return () => {
    watching = false;
  };
}

export function activate(): void {
  const file = process.env.AQ_BENCH_HOST_LAG;
  if (file === undefined) return;
  watchLateTicks(TICK_MS, (late) => {
    if (late > NOTED_OVER_MS) appendFileSync(file, `${Date.now()} ${late.toFixed(1)}\n`);
  });
}

export function deactivate(): void {}
