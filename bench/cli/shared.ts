// What the command-line bench (bench/cli.ts) and the processes it measures agree on.

/** The line's start, so the bench finds the peak memory among the process's own output. */
export const PEAK_PREFIX = 'aq-bench-peak-rss-bytes=';

/** The engine memory run's queries and their context files (issue #48's figures). */
export const QUERIES = 60;
export const CONTEXT_BYTES = 8 * 1024 * 1024;
