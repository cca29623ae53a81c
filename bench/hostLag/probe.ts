// Bench only, never in the product: loaded into the benchmarked extension host as an extension of
// its own (see ../hostLag.ts). It notes every time the host's event loop came back late: while
// one task runs, no extension's work (ours, a language client's) runs, and no message is taken in.
import { appendFileSync } from 'node:fs';

/** How often the loop is asked to come back (ms). */
const TICK_MS = 10;
/** A tick later than this is written down (ms): its end time (epoch ms) and how late it was. */
const NOTED_OVER_MS = 20;

export function activate(): void {
  const file = process.env.AQ_BENCH_HOST_LAG;
  if (file === undefined) return;
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    last = now;
    if (late > NOTED_OVER_MS) appendFileSync(file, `${Date.now()} ${late.toFixed(1)}\n`);
  }, TICK_MS).unref();
}

export function deactivate(): void {}
