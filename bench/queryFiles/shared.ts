// What the query-files benchmark suite (suite.ts, inside VS Code) and its section (../queryFiles.ts,
// in Node) share: the workload and the JSON the suite prints. No `vscode` import here: the section
// loads this in plain Node.

/** The listing workload: files written into the workspace, queries in each (the 200 × 20). */
export const LIST_FILES = 200;
export const QUERIES_PER_FILE = 20;
/** Every how many queries one names two applications (so it has one child per application, as real files do). */
export const TWO_APPLICATIONS_EVERY = 10;
/** Folders of the workspace the suite writes into. */
export const LIST_DIR = 'aq-bench-list';
export const RUN_DIR = 'aq-bench-run';
/** Discoveries measured after the first one (the Testing view's Refresh: every file read and parsed again). */
export const REFRESHES = 3;

/** The run workload: files of QUERIES_PER_FILE queries each on the service's `timed` application (400 queries). */
export const RUN_FILES = 20;
/** `timed`: silence before the answer, and the answer's size after its marker. */
export const TIMED_DELAY_MS = 100;
export const TIMED_SIZE = 2 * 1024;
/** The concurrency settings run, in order. */
export const CONCURRENCIES: readonly number[] = [4, 8];

/** The event-loop delay monitor's timer (ms): a stall of B ms shows as an interval of up to B + this. */
export const LOOP_RESOLUTION_MS = 10;
/** How long the monitor keeps watching after a discovery settles: the Testing view's diff reaches VS Code on a timer after the last change. */
export const LISTING_TAIL_MS = 1500;
/** How often the heap is sampled during a run. */
export const HEAP_SAMPLE_MS = 50;

/** What `monitorEventLoopDelay` saw over a window (ms, the timer's intervals). */
export interface LoopDelay {
  max: number;
  p99: number;
  mean: number;
  /** Garbage-collection pauses over the same window (PerformanceObserver 'gc'): the longest and their sum. */
  gcMax: number;
  gcTotal: number;
}

/** One discovery of the listing workload. */
export interface ListingRun {
  /** `first`: the first discovery, the catalog empty and no item created yet; `refresh`: the Testing view's Refresh (items exist). */
  kind: 'first' | 'refresh';
  /** From asking until the extension host holds every file and query (its promise settled). */
  ms: number;
  /** CPU time the extension-host process used meanwhile (process.cpuUsage, every thread): what a busy machine cannot stretch. */
  cpuMs: number;
  /** What the tree then held (of the listing folder only). */
  files: number;
  queries: number;
  /** Per-application children under queries with two applications. */
  children: number;
  /** While the discovery ran. */
  during: LoopDelay;
  /** The same window extended by LISTING_TAIL_MS (the diff's delivery to VS Code included). */
  withTail: LoopDelay;
}

/** One run of the 400 queries at one concurrency. */
export interface QueryRun {
  concurrency: number;
  queries: number;
  /** From asking for the run until it ended (runQueryTests settled). */
  ms: number;
  /** CPU time the extension-host process used meanwhile (process.cpuUsage, every thread). */
  cpuMs: number;
  /** From asking until the service received the first request. */
  firstRequestMs: number;
  /** From the service finishing the last answer until the run ended. */
  afterLastAnswerMs: number;
  passed: number;
  /** A few of the items that did not pass: state and first message. */
  notPassed: string[];
  /** `timed` requests the service received during the run. */
  requests: number;
  /** The most requests the service had open at once (arrival to its last body byte). */
  maxOpen: number;
  /** Median time the service took per request (arrival to its last body byte): the delay plus the answer. */
  serviceMedianMs: number;
  /**
   * Median handover: from the service finishing the answer that freed a place to the next request
   * arriving (the n-th start after the first `concurrency` against the (n − concurrency)-th end):
   * what the extension adds per query in a lane (reading the answer, checking, reporting, sending the next).
   */
  handoverMedianMs: number;
  /** Started items that were not in file order (ranked by file, then position). */
  startedOutOfOrder: number;
  /** heapUsed (bytes): after a settle before the run, the highest 50 ms sample during it, after a settle once it ended. */
  heapBaseline: number;
  heapPeak: number;
  heapAfter: number;
  loop: LoopDelay;
}

/** What the suite measured. */
/** Sizes of the huge query files listed once each (a repository's hostile file: past the size limit). */
export const HUGE_FILE_BYTES = [10 * 1000 * 1000, 20 * 1000 * 1000] as const;

/** One huge query file listed: how long the refresh took, the loop's longest stall, the heap it kept, and how the tree showed it. */
export interface HugeFileRun {
  bytes: number;
  ms: number;
  loop: LoopDelay;
  /** Heap after a full collection, less the heap before the file was written. */
  heapKeptBytes: number;
  /** The heap's highest sample while it was listed, less the heap before. */
  heapPeakBytes: number;
  /** The file's row in the Testing view: its problem, and how many queries it lists. */
  error?: string;
  queries: number;
}

/** How many rows the cases file of the cases listing has. */
export const CASES_ROWS = 1000;

/** One query with a cases file of {@link CASES_ROWS} rows listed: until every case is a child, and the loop's longest stall meanwhile. */
export interface CasesRun {
  rows: number;
  ms: number;
  loop: LoopDelay;
  /** How many case children the query had when the listing was taken as done. */
  cases: number;
}

export interface QueryFilesBenchResult {
  /** The huge files, listed after everything else. */
  hugeFiles: HugeFileRun[];
  /** A query with a cases file of {@link CASES_ROWS} rows, listed last. */
  cases: CasesRun;
  /** Whether the extension was already active when the suite started (then the files may have reached it by the watcher). */
  activeBefore: boolean;
  /** The extension host's event loop, idle for 1 s before the listing (what noise alone gives). */
  idle: LoopDelay;
  listing: ListingRun[];
  /** What `queryTests()` costs once discovery is done: the hook's synchronous copy of the tree (not in the listing figures). */
  treeCopyMs: number;
  runs: QueryRun[];
  /**
   * The event loop over 1.5 s after each change of the concurrency setting, made while the listing
   * and run files (220) are listed (every applicationQuery setting change makes the Testing view
   * recompute every item), the worst of them.
   */
  settingsChange: LoopDelay;
  /** Listing files the tree still held 3 s after their folder was deleted (before a Refresh). */
  staleAfterFolderDelete: number;
  /** History after the runs: how many exchanges it holds and their JSON's size (it is written whole after every exchange). */
  history: { entries: number; chars: number };
  /** Whether a full collection could be forced (else the heap readings include garbage). */
  gc: boolean;
  /** The extension host's Node version. */
  node: string;
}
