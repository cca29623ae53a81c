// What the Compare benchmark suite (suite.ts, inside VS Code) and its section (../compare.ts, in
// Node) share: the workload and the JSON the suite prints. No `vscode` import here: the section
// loads this in plain Node.

/**
 * The reference service has one `timed` application, so the columns are `timed` on four
 * environments, all pointing at the same service (the origin is the same, so is the key).
 */
export const ENVIRONMENTS: readonly string[] = ['a', 'b', 'c', 'd'];
/**
 * `timed`: silence after the headers, then the answer (markdown sections) in chunks of this size,
 * one every TIMED_PACE_MS: about 1 MiB/s, the renderer bench's pace for each Compare column. An
 * answer at full speed measures how the four share the extension host's one thread, not whether
 * a column is slower than a query alone.
 */
export const TIMED_DELAY_MS = 250;
export const TIMED_SIZE = 1024 * 1024;
export const TIMED_CHUNK_BYTES = 16 * 1024;
export const TIMED_PACE_MS = 16;
/** Rounds measured (each: one query alone twice, then one comparison of four), after one round not counted. */
export const ROUNDS = 7;

/** One `timed` request as the service and the extension saw it (epoch ms, ms). */
export interface TimedRequest {
  /** The column's environment, or '' for a query alone. */
  environment: string;
  /** The service: the request arrived, the first body byte (the marker) was written, the last byte was handed to the socket. */
  at: number;
  firstBodyByteAt: number;
  lastBodyByteAt: number;
  /** The extension: request sent → first body byte, and → the end (QueryOutcome / the History's timings). */
  firstByteMs?: number;
  durationMs?: number;
  outcome: string;
  bytes: number;
}

/** One round: a query alone (the pipeline alone, then into the answer panel), then four at once in one Compare panel. */
export interface CompareRound {
  /** The query pipeline into a sink that keeps the text (no view). */
  single: TimedRequest;
  /** Query Application into the answer panel: the same webview path as a column. */
  panel: TimedRequest;
  columns: TimedRequest[];
  /** From the command to the last column's end (ms). */
  compareMs: number;
  /** From the command to the first of the four requests at the service (ms). */
  firstRequestMs: number;
}

/** What the suite measured. */
export interface CompareBenchResult {
  rounds: CompareRound[];
  node: string;
}

/** The workspace file open in the editor while the queries run: Query Application sends it as context (so an empty question is accepted), and so does Compare. */
export const CONTEXT_FILE = 'compare-bench-context.ts';
