// What the extension-host benchmark suite (suite.ts, inside VS Code) and its section (../exthost.ts,
// in Node) share. No `vscode` import here: the section loads this in plain Node.

const MiB = 1024 * 1024;
/** The answer the goal is about. */
export const BIG_ANSWER = 50 * MiB;
/**
 * The answers streamed, in order (mixed 1-4 byte UTF-8 from the service's `bulk` application):
 * the pipeline alone (no sink) and VS Code's own channel fed directly, for comparison; a smaller answer to see whether growth scales with
 * size, then the big one three times to see whether anything accumulates.
 */
export const BENCH_RUNS: readonly { size: number; target: Target }[] = [
  { size: BIG_ANSWER, target: 'nowhere' },
  { size: BIG_ANSWER, target: 'vscodeChannel' },
  { size: 10 * MiB, target: 'outputChannel' },
  { size: BIG_ANSWER, target: 'outputChannel' },
  { size: BIG_ANSWER, target: 'outputChannel' },
  { size: BIG_ANSWER, target: 'outputChannel' },
];
/** The service's chunk size for it. */
export const CHUNK_BYTES = 16 * 1024;
/** A first, small answer that warms up the channel and the JIT before the baseline. */
export const WARM_UP_BYTES = 1024 * 1024;

/** One reading of `process.memoryUsage()` (bytes). */
export interface Memory {
  heapUsed: number;
  rss: number;
  external: number;
}

/**
 * Where an answer goes: the extension's output channel, nowhere (the query pipeline alone), or
 * VS Code's output channel fed the same amount directly (the platform without the extension).
 */
export type Target = 'outputChannel' | 'nowhere' | 'vscodeChannel';

/** One answer streamed into the output channel. */
export interface ExtHostRun {
  size: number;
  target: Target;
  outcome: string;
  bytes: number;
  ms: number;
  /** After a full garbage collection, before the answer. */
  baseline: Memory;
  /** The highest readings while it streamed (sampled every 10 ms; garbage included). */
  peak: Memory;
  /** After the answer and a full garbage collection: what stayed. */
  after: Memory;
}

/** What the suite measured. */
export interface ExtHostBenchResult {
  runs: ExtHostRun[];
  /** After the warm-up and a full collection, before the first run. */
  before: Memory;
  /** Whether a full collection could be forced (else baseline and after include garbage). */
  gc: boolean;
}
