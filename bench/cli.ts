// The command line and the query-file engine without the editor: the installed binary's start
// time, 1,000 queries against the reference service at concurrency 8 (wall time as a ratio of the
// floor the limit sets, and the process's peak memory), and a run's memory with large context
// files, with contexts read when each query's turn comes against all read first (#48 item 5).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startService } from '../service/server';
import { repoRoot } from '../test/launch/util';
import type { BenchRow } from './core';
import { CONTEXT_BYTES, PEAK_PREFIX, QUERIES } from './cli/shared';

const MiB = 1024 * 1024;
const RUN_QUERIES = 1000;
const RUN_CONCURRENCY = 8;
const RUN_DELAY_MS = 100;
const RUN_ANSWER_BYTES = 2048;
/** The floor: every query's silence, `concurrency` at a time. */
const FLOOR_MS = (RUN_QUERIES / RUN_CONCURRENCY) * RUN_DELAY_MS;
const RATIO_GOAL = 1.15;
const RUN_PEAK_GOAL = 150 * MiB;
const START_GOAL_MS = 200;
const START_RUNS = 11;

interface Spawned {
  readonly code: number | null;
  readonly stdout: string;
  readonly ms: number;
  readonly peakBytes?: number;
}

function run(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      const peak = new RegExp(`${PEAK_PREFIX}(\\d+)`).exec(stderr);
      resolve({ code, stdout, ms: performance.now() - started, ...(peak === null ? {} : { peakBytes: Number(peak[1]) }) });
    });
  });
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : `${(bytes / MiB).toFixed(1)} MiB`);

/** The section's rows. */
export async function runCliBench(): Promise<BenchRow[]> {
  const root = repoRoot();
  const bin = path.join(root, 'cli', 'dist', 'application-query.js');
  const peak = path.join(root, 'out', 'bench', 'cli', 'peak.js');
  const rows: BenchRow[] = [];
  const starts: number[] = [];
  for (let i = 0; i < START_RUNS; i++) starts.push((await run([bin, '--version'])).ms);
  const start = median(starts);
  const bare: number[] = [];
  for (let i = 0; i < START_RUNS; i++) bare.push((await run(['-e', '0'])).ms);
  rows.push({ name: `node -e 0, for comparison: Node's own start on this machine now (median of ${START_RUNS})`, value: `${Math.round(median(bare))} ms` });
  rows.push({ name: `application-query --version, start to exit (median of ${START_RUNS})`, value: `${Math.round(start)} ms`, goal: `≤ ${START_GOAL_MS} ms`, ok: start <= START_GOAL_MS, figure: start });

  const service = await startService({ quiet: true });
  const folder = await mkdtemp(path.join(os.tmpdir(), 'aq-bench-cli-'));
  try {
    const sections = Array.from({ length: RUN_QUERIES }, (_, i) => `## Query ${i + 1}\n- application: timed\n\nQuestion ${i + 1}\n`);
    await writeFile(path.join(folder, 'load.aq.md'), sections.join('\n'));
    await writeFile(
      path.join(folder, 'settings.json'),
      JSON.stringify({
        'applicationQuery.baseUrl': service.url,
        'applicationQuery.applications': [{ id: 'timed' }],
        'applicationQuery.requestTemplate': { query: '${input}', delayMs: RUN_DELAY_MS, size: RUN_ANSWER_BYTES },
      }),
    );
    const env = { ...process.env, APPLICATION_QUERY_KEY_TIMED: service.keyFor('timed'), CI: 'true' };
    const load = await run(['--require', peak, bin, 'test', '--settings', 'settings.json', '--concurrency', String(RUN_CONCURRENCY), '--reporter', 'json', '--output', 'report.json'], { cwd: folder, env });
    const passed = /(\d+) passed/.exec(load.stdout)?.[1];
    const ratio = load.ms / FLOOR_MS;
    rows.push({
      name: `${RUN_QUERIES} queries (${RUN_DELAY_MS} ms, then ${RUN_ANSWER_BYTES / 1024} KiB) at concurrency ${RUN_CONCURRENCY}: wall time / ${FLOOR_MS / 1000} s`,
      value: `${ratio.toFixed(2)}× (${(load.ms / 1000).toFixed(1)} s, ${passed ?? '?'} passed, exit ${load.code})`,
      goal: `≤ ${RATIO_GOAL}×`,
      ok: ratio <= RATIO_GOAL && passed === String(RUN_QUERIES),
    });
    rows.push({ name: `the same run: the command line's peak resident memory`, value: mib(load.peakBytes), goal: `≤ ${RUN_PEAK_GOAL / MiB} MiB`, ok: load.peakBytes !== undefined && load.peakBytes <= RUN_PEAK_GOAL });

    const chunk = Buffer.alloc(CONTEXT_BYTES, 'context line of some length\n');
    for (let i = 0; i < 4; i++) await writeFile(path.join(folder, `context-${i}.txt`), chunk);
    const engine = path.join(root, 'out', 'bench', 'cli', 'engineMemory.js');
    for (const mode of ['at-send', 'at-plan'] as const) {
      const result = await run([engine, service.url, service.keyFor('timed'), folder, mode]);
      const label = mode === 'at-send' ? 'each context read when its query is sent (the engine now)' : 'every context read before any is sent (the Testing view before)';
      rows.push({ name: `engine run of ${QUERIES} queries with an ${CONTEXT_BYTES / MiB} MB context each, concurrency 4: peak resident memory, ${label}`, value: `${mib(result.peakBytes)} (${result.stdout.trim()} passed)` });
    }
  } finally {
    await service.close();
    await rm(folder, { recursive: true, force: true });
  }
  return rows;
}
