// Bench only, never in the product: loaded into the benchmarked extension host as an extension of
// its own (see ../hostLag.ts). It notes every time the host's event loop came back late: while
// one task runs, no extension's work (ours, a language client's) runs, and no message is taken in.
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

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

/** How often the probe looks for the bench's request to write the profile (ms). */
const STOP_POLL_MS = 250;

/**
 * With env AQ_BENCH_HOST_PROFILE (a file path), samples the extension host's own thread from the
 * start until the bench asks for the samples by creating `<file>.stop`; then writes `{ profile,
 * holds }` to the file: Chromium's .cpuprofile and every hold over NOTED_OVER_MS as [its end on
 * the profile's clock (µs), how late (ms)], so a hold's samples can be picked out.
 */
function profileUntilAsked(file: string): (late: number) => void {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')));
  const holds: Array<[number, number]> = [];
  const poll = setInterval(() => {
    if (!existsSync(`${file}.stop`)) return;
    clearInterval(poll);
    session.post('Profiler.stop', (error, result) => {
      if (error === null && result !== undefined) writeFileSync(file, JSON.stringify({ profile: result.profile, holds }));
      session.disconnect();
    });
  }, STOP_POLL_MS);
  poll.unref();
  // The profiler's clock is the monotonic one process.hrtime reads.
  return (late) => {
    if (late > NOTED_OVER_MS) holds.push([Number(process.hrtime.bigint() / 1000n), late]);
  };
}

export function activate(): void {
  const file = process.env.AQ_BENCH_HOST_LAG;
  if (file === undefined) return;
  const profileFile = process.env.AQ_BENCH_HOST_PROFILE;
  const profile = profileFile === undefined || profileFile === '' ? undefined : profileUntilAsked(profileFile);
  watchLateTicks(TICK_MS, (late) => {
    if (late > NOTED_OVER_MS) appendFileSync(file, `${Date.now()} ${late.toFixed(1)}\n`);
    profile?.(late);
  });
}

export function deactivate(): void {}
