// The output channel under a 50 MiB answer, measured inside a real extension host (code-server
// 4.139.1, VS Code 1.139): how much the extension host's heap grows while the answer streams, and
// what it keeps afterwards.
import type { BenchRow } from './core';
import { runHostBench } from './hostBench';
import { BIG_ANSWER, type ExtHostBenchResult } from './exthost/shared';

const MiB = 1024 * 1024;
/**
 * Heap growth allowed while a 50 MiB answer streams into the channel, garbage not yet collected
 * included. The answer decoded is about 60 MiB of UTF-16; holding it whole plus its copies would
 * exceed this.
 */
const PEAK_GOAL_BYTES = 128 * MiB;
/** Heap allowed to stay after 50 MiB answers: less than one answer, so none is held and nothing accumulates. */
const KEPT_GOAL_BYTES = 48 * MiB;

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

/** Runs the suite in bench/exthost/suite.ts and turns its one result line into rows. */
export async function runExtHostBench(): Promise<BenchRow[]> {
  const result = await runHostBench<ExtHostBenchResult>('exthost', 'Benchmark (extension host)');
  const { before, runs, gc } = result;
  const rows: BenchRow[] = [];
  const intoChannel = runs.filter((run) => run.target === 'outputChannel' && run.size === BIG_ANSWER);
  for (const [i, run] of runs.entries()) {
    const where = { outputChannel: 'answer into the output channel', nowhere: 'answer into no sink (the pipeline alone)', vscodeChannel: "appended to VS Code's channel directly (reference)" }[run.target];
    const peakGrowth = run.peak.heapUsed - run.baseline.heapUsed;
    const rate = run.bytes / MiB / (run.ms / 1000);
    rows.push({
      name: `run ${i + 1}: ${mib(run.size)} ${where}`,
      value: `${(run.ms / 1000).toFixed(1)} s, ${rate.toFixed(0)} MiB/s, heap +${mib(peakGrowth)} at peak, ${mib(run.after.heapUsed - before.heapUsed)} kept since run 1, RSS +${mib(run.peak.rss - run.baseline.rss)}`,
      ok: run.outcome === 'done' && run.bytes === run.size,
    });
  }
  // The peak includes garbage V8 has not collected yet, so it moves with GC timing: the median of
  // the three runs is the figure, the highest is shown beside it.
  const peaks = intoChannel.map((run) => run.peak.heapUsed - run.baseline.heapUsed).sort((a, b) => a - b);
  const medianPeak = peaks[Math.floor(peaks.length / 2)];
  rows.push({
    name: `heap growth at peak, ${mib(BIG_ANSWER)} into the channel, median of ${peaks.length} (garbage included)`,
    value: `${mib(medianPeak)} (highest ${mib(peaks[peaks.length - 1])})`,
    goal: `≤ ${mib(PEAK_GOAL_BYTES)}`,
    ok: medianPeak <= PEAK_GOAL_BYTES,
  });
  // VS Code's channel writer holds text for a while after the last append (see the reference run),
  // so one reading can be high; an answer held by the extension would raise every later reading.
  const kept = Math.min(...intoChannel.map((run) => run.after.heapUsed - before.heapUsed));
  rows.push({
    name: `heap kept since run 1 after a ${mib(BIG_ANSWER)} answer, lowest of ${intoChannel.length}${gc ? ' (full GC)' : ''}`,
    value: mib(kept),
    goal: `≤ ${mib(KEPT_GOAL_BYTES)}`,
    ok: kept <= KEPT_GOAL_BYTES,
  });
  return rows;
}
