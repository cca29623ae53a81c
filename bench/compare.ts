// Compare Applications… in a real extension host (code-server 4.139.1, VS Code 1.139): is each
// column's request as fast as a query alone? Each round runs one query on the reference service's
// `timed` application alone (the query pipeline alone, then Query Application into the answer
// panel), then four at once into one Compare panel (`timed` on four environments that point at the
// same service), and compares each request's span at the service, from its first body byte to its
// last, with the query alone's in the answer panel. Idle and with one core kept busy (see load.ts).
import * as os from 'node:os';
import type { BenchRow } from './core';
import { runHostBench } from './hostBench';
import { loads, sideBySide } from './load';
import { ENVIRONMENTS, TIMED_CHUNK_BYTES, TIMED_DELAY_MS, TIMED_PACE_MS, TIMED_SIZE, type CompareBenchResult, type TimedRequest } from './compare/shared';

/**
 * A column's span may take at most this many times the query alone's. Four answers at once share
 * the extension host's one thread (and, on this 2-core machine, the cores with code-server, the
 * workbench and the service): the goal is set for this machine.
 */
const RATIO_GOAL = 1.2;

const ms = (value: number): string => `${Math.round(value)} ms`;
const load = (): string => os.loadavg().map((n) => n.toFixed(1)).join(' / ');
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** The service's span of one request: its first body byte written → its last byte handed to the socket. */
const span = (request: TimedRequest): number => request.lastBodyByteAt - request.firstBodyByteAt;
/** The extension's view of the same: request sent → first body byte, and → the end. */
const clientSpan = (request: TimedRequest): number => (request.durationMs ?? Number.NaN) - (request.firstByteMs ?? Number.NaN);

/**
 * Runs the suite in bench/compare/suite.ts under each load (idle, and one core kept busy; env
 * AQ_LOADS picks one) and turns its result lines into rows, the loads side by side.
 */
export async function runCompareBench(): Promise<BenchRow[]> {
  const byLoad: Array<readonly [string, BenchRow[]]> = [];
  for (const [name, underLoad] of loads()) {
    const loadBefore = load();
    const result = await underLoad(() => runHostBench<CompareBenchResult>('compare', 'Benchmark (compare)'));
    byLoad.push([name, rowsOf(result, loadBefore)]);
  }
  return sideBySide(byLoad);
}

/** The rows of one run of the suite; `loadBefore`: the load average before it. */
function rowsOf(result: CompareBenchResult, loadBefore: string): BenchRow[] {
  const { rounds } = result;
  const workload = `timed: ${TIMED_DELAY_MS} ms of silence, then ${TIMED_SIZE / (1024 * 1024)} MiB in ${TIMED_CHUNK_BYTES / 1024} KiB chunks ${TIMED_PACE_MS} ms apart`;
  const reference = (request: (r: CompareBenchResult['rounds'][number]) => TimedRequest, what: string): BenchRow => {
    const spans = rounds.map((r) => span(request(r)));
    return {
      name: `compare: one query alone, ${what} (${workload}), median of ${rounds.length}: first → last body byte at the service`,
      value: `${ms(median(spans))} (each ${spans.map(ms).join(', ')}; in the extension: first byte → end ${ms(median(rounds.map((r) => clientSpan(request(r)))))}, whole request ${ms(median(rounds.map((r) => request(r).durationMs ?? Number.NaN)))})`,
      ok: rounds.every((r) => request(r).outcome === 'done' && whole(request(r))),
    };
  };
  // Every answer came whole: the same text (a marker of another number aside) as the first query alone's.
  const whole = (request: TimedRequest): boolean => Math.abs(request.bytes - rounds[0].single.bytes) <= 8;
  const rows: BenchRow[] = [
    reference((r) => r.single, 'the query pipeline into a sink that keeps the text (no view)'),
    reference((r) => r.panel, 'Query Application into the answer panel (the webview path a column takes too)'),
  ];
  const panelSpan = median(rounds.map((r) => span(r.panel)));
  const pipelineSpan = median(rounds.map((r) => span(r.single)));
  for (const [i, environment] of ENVIRONMENTS.entries()) {
    const columns = rounds.map((r) => r.columns.find((c) => c.environment === environment));
    const present = columns.every((c) => c !== undefined && c.outcome === 'done' && whole(c) && Number.isFinite(span(c)));
    const spans = columns.map((c) => (c === undefined ? Number.NaN : span(c)));
    // Medians over the rounds, each side on its own: one round's pair is too noisy to divide.
    const ratio = median(spans) / panelSpan;
    const client = median(columns.map((c) => (c === undefined ? Number.NaN : clientSpan(c)))) / median(rounds.map((r) => clientSpan(r.panel)));
    const total = median(columns.map((c) => c?.durationMs ?? Number.NaN)) / median(rounds.map((r) => r.panel.durationMs ?? Number.NaN));
    rows.push({
      name: `compare: column ${i + 1} of 4 at once (timed on environment ${environment}), first → last body byte at the service / the query alone's in the answer panel, medians of ${rounds.length} rounds (goal for this 2-core machine)`,
      value: `${ratio.toFixed(2)} (span ${ms(median(spans))}, each ${spans.map(ms).join(', ')}; / the pipeline alone's ${(median(spans) / pipelineSpan).toFixed(2)}; in the extension, / the answer panel alone's: first byte → end ${client.toFixed(2)}, whole request ${total.toFixed(2)})`,
      goal: `≤ ${RATIO_GOAL}`,
      ok: present && ratio <= RATIO_GOAL,
    });
  }
  const spreads = rounds.map((r) => Math.max(...r.columns.map((c) => c.at)) - Math.min(...r.columns.map((c) => c.at)));
  rows.push({
    name: 'compare: the four requests arrived at the service within (first to last arrival), median / worst',
    value: `${ms(median(spreads))} / ${ms(Math.max(...spreads))}`,
  });
  rows.push({
    name: `compare: Compare Applications… to the last column's end (to the first request at the service) / the query alone's whole request in the answer panel, median of ${rounds.length}`,
    value: `${ms(median(rounds.map((r) => r.compareMs)))} (${ms(median(rounds.map((r) => r.firstRequestMs)))}) / ${ms(median(rounds.map((r) => r.panel.durationMs ?? Number.NaN)))}`,
  });
  rows.push({
    name: 'compare: machine',
    value: `${os.cpus().length} cores, code-server 4.139.1, extension host Node ${result.node}; load average (1/5/15 min) ${loadBefore} before, ${load()} after`,
  });
  return rows;
}
