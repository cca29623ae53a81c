// Runs inside the extension host (loaded by the code-server launcher like the integration suite):
// writes 200 query files of 20 queries into the workspace and times how long the Testing view's
// controller takes to list them (first time, then the view's Refresh) and how long it holds the
// event loop meanwhile; then runs 400 queries on the service's `timed` application at each
// concurrency setting, watching the heap and what the service saw. Prints one `AQ_BENCH {json}`
// line for bench/queryFiles.ts.
import { fullCollection, settle } from '../hostMemory';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import * as path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { RecordedRequest } from '../../service/server';
import type { TestHooks, TestTreeNode } from '../../test/integration/testHooks';
import { SUITE_START_MARKER } from '../../test/launch/automationLog';
import {
  CONCURRENCIES,
  HEAP_SAMPLE_MS,
  HUGE_FILE_BYTES,
  LIST_DIR,
  LIST_FILES,
  LISTING_TAIL_MS,
  LOOP_RESOLUTION_MS,
  QUERIES_PER_FILE,
  REFRESHES,
  RUN_DIR,
  RUN_FILES,
  TIMED_DELAY_MS,
  TIMED_SIZE,
  TWO_APPLICATIONS_EVERY,
  type CasesRun,
  CASES_ROWS,
  type HugeFileRun,
  type ListingRun,
  type LoopDelay,
  type QueryFilesBenchResult,
  type QueryRun,
} from './shared';

const EXTENSION_ID = 'application-query.application-query';
const CONTEXT_FILES = 10;
const TOPICS = ['Refund policy', 'Shipping to Norway', 'Password reset', 'Invoice export', 'Order cancellation', 'Loyalty points', 'Gift cards', 'Address change', 'Damaged parcel', 'VAT number'];

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('applicationQuery');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function folder(): string {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (first === undefined) throw new Error('the benchmark needs a workspace folder');
  return first.uri.fsPath;
}

/** A source file the queries name as context (40 lines). */
function contextFile(k: number): string {
  const lines = [`// Module ${k} of the sample shop.`, `export interface Order${k} {`, '  id: string;', '  total: number;', '  placedAt: Date;', '}', ''];
  for (let i = 0; lines.length < 40; i++) lines.push(`export function step${k}_${i}(order: Order${k}): number {`, `  return order.total * ${i + 1};`, '}', '');
  return `${lines.slice(0, 40).join('\n')}\n`;
}

/**
 * One query of a listing file as a team would write it: a heading, the application (two every
 * TWO_APPLICATIONS_EVERY queries), one to three more option lines (expectations, a context file
 * that exists), a question of two to five lines, a fenced block in every fifth.
 */
function listQuery(f: number, q: number): string {
  const n = f * QUERIES_PER_FILE + q;
  const topic = TOPICS[n % TOPICS.length];
  const lines = [`## ${topic} ${f + 1}.${q + 1}`, (q + 1) % TWO_APPLICATIONS_EVERY === 0 ? '- application: echo, demo-assistant' : '- application: demo-assistant'];
  const context = `- context: ${LIST_DIR}/context/module-${n % CONTEXT_FILES}.ts#L${2 + (n % 5)}-${12 + (n % 20)}`;
  switch (n % 4) {
    case 0:
      lines.push('- expect: status 200', `- expect: contains "${topic.split(' ')[0].toLowerCase()}"`);
      break;
    case 1:
      lines.push(context, '- expect: contains "order"');
      break;
    case 2:
      lines.push(context, '- expect: status 2xx', '- expect: not contains "error"');
      break;
    default:
      lines.push(context, '- expect: total under 30s');
  }
  lines.push('', `What does our ${topic.toLowerCase()} say for a customer with order ${1000 + n}?`);
  for (let i = 0; i < 1 + (n % 4); i++) lines.push(['Answer in two sentences at most,', 'quote the relevant part of the policy,', 'and say which team owns it.', 'Mention any exception for business customers.'][i]);
  if (n % 5 === 0) lines.push('', '```ts', '## not a query: a heading inside a fence', `const order = { id: "o-${n}", total: ${n % 97}.50 };`, '```');
  return lines.join('\n');
}

function listFile(f: number): string {
  const queries = Array.from({ length: QUERIES_PER_FILE }, (_, q) => listQuery(f, q));
  return `# Support assistant regression queries, part ${f + 1}\n\nOwned by the support team. Run before every release.\n\n${queries.join('\n\n')}\n`;
}

/** A file of the run workload: every query on `timed`, expecting its answer and marker; half name a context file. */
function runFile(f: number): string {
  const queries = Array.from({ length: QUERIES_PER_FILE }, (_, q) => {
    const lines = [`## Timed ${f + 1}.${q + 1}`, '- application: timed'];
    if (q % 2 === 0) lines.push(`- context: ${RUN_DIR}/context.ts#L2-6`);
    lines.push('- expect: status 200', '- expect: contains "aq-mark"', '', `Query ${q + 1} of file ${f + 1}: how long does the answer take?`, 'Reply with the marker first.');
    return lines.join('\n');
  });
  return `# Timed queries ${f + 1}\n\n${queries.join('\n\n')}\n`;
}

async function writeFiles(files: Record<string, string>): Promise<void> {
  for (const [relative, text] of Object.entries(files)) {
    const target = path.join(folder(), relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
  }
}

const fileName = (dir: string, f: number): string => `${dir}/${dir}-${String(f + 1).padStart(3, '0')}.aq.md`;

/** CPU ms (user + system) this process used since `start`. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

/** An event-loop delay monitor, started now; it also sums the garbage collector's pauses meanwhile. */
function loopMonitor(): { stop(): LoopDelay } {
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => void pauses.push(...list.getEntries().map((entry) => entry.duration)));
  observer.observe({ entryTypes: ['gc'] });
  histogram.enable();
  return {
    stop: () => {
      histogram.disable();
      pauses.push(...observer.takeRecords().map((entry) => entry.duration));
      observer.disconnect();
      return {
        max: histogram.max / 1e6,
        p99: histogram.percentile(99) / 1e6,
        mean: histogram.mean / 1e6,
        gcMax: Math.max(0, ...pauses),
        gcTotal: pauses.reduce((sum, ms) => sum + ms, 0),
      };
    },
  };
}

function median(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

function worst(delays: readonly LoopDelay[]): LoopDelay {
  return delays.reduce((a, b) => (b.max > a.max ? b : a));
}

/** Files, queries and per-application children of the tree under `dir`. */
function count(tree: readonly TestTreeNode[], dir: string): { files: number; queries: number; children: number; nodes: TestTreeNode[] } {
  const nodes = tree.filter((node) => node.id.includes(`/${dir}/`));
  const queries = nodes.reduce((sum, node) => sum + node.children.length, 0);
  const children = nodes.reduce((sum, node) => sum + node.children.reduce((s, q) => s + q.children.length, 0), 0);
  return { files: nodes.length, queries, children, nodes };
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function setTimedTemplate(): Promise<void> {
  const apps = (config().inspect<{ id: string }[]>('applications')?.globalValue ?? []).map((app) =>
    app.id === 'timed' ? { ...app, requestTemplate: { query: '${input}', delayMs: TIMED_DELAY_MS, size: TIMED_SIZE } } : app,
  );
  await config().update('applications', apps, vscode.ConfigurationTarget.Global);
  await until('the timed request template', () => {
    const now = config().get<{ id: string; requestTemplate?: { delayMs?: number } }[]>('applications') ?? [];
    return now.find((app) => app.id === 'timed')?.requestTemplate?.delayMs === TIMED_DELAY_MS || undefined;
  });
}

/** Sets the concurrency and returns the event loop's delay over the 1.5 s after (the Testing view recomputes its items on any setting change). */
async function setConcurrency(value: number | undefined): Promise<LoopDelay> {
  const monitor = loopMonitor();
  await config().update('queryFiles.concurrency', value, vscode.ConfigurationTarget.Global);
  await until('the concurrency setting', () => config().inspect<number>('queryFiles.concurrency')?.globalValue === value || undefined);
  await sleep(1500);
  return monitor.stop();
}

/** The most intervals [start, end] open at once; at equal times an end comes before a start (a place handed over). */
function maxOpen(intervals: readonly { start: number; end: number }[]): number {
  const events = intervals.flatMap(({ start, end }) => [{ at: start, delta: 1 }, { at: end, delta: -1 }]).sort((a, b) => a.at - b.at || a.delta - b.delta);
  let open = 0;
  let most = 0;
  for (const { delta } of events) {
    open += delta;
    most = Math.max(most, open);
  }
  return most;
}

/**
 * Runs `task` under V8's sampling profiler when AQ_BENCH_PROFILE names a folder (the profile goes
 * there as queryfiles-<name>.cpuprofile, for DevTools or a script); otherwise just runs it.
 * Profiling slows the figures down: use it to find out why a goal missed, not for the figures.
 */
async function profiled<T>(name: string, task: () => Promise<T>): Promise<T> {
  const dir = process.env.AQ_BENCH_PROFILE;
  if (dir === undefined || dir === '') return task();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    const result = await task();
    const { profile } = await session.post('Profiler.stop');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `queryfiles-${name}.cpuprofile`), JSON.stringify(profile));
    return result;
  } finally {
    session.disconnect();
  }
}

/** Times one discovery (`ask`), watching the event loop during it and for LISTING_TAIL_MS after. */
async function timeListing(api: TestHooks, kind: ListingRun['kind'], ask: () => Promise<unknown>): Promise<ListingRun> {
  const withTail = loopMonitor();
  const during = loopMonitor();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await ask();
  const ms = performance.now() - started;
  const cpuMs = cpuSince(cpu);
  const duringDelay = during.stop();
  await sleep(LISTING_TAIL_MS);
  const withTailDelay = withTail.stop();
  const { files, queries, children } = count(await api.queryTests(), LIST_DIR);
  return { kind, ms, cpuMs, files, queries, children, during: duringDelay, withTail: withTailDelay };
}

async function runQueries(api: TestHooks, service: string, fileIds: readonly string[], order: ReadonlyMap<string, number>, concurrency: number, gc: (() => void) | undefined): Promise<QueryRun> {
  await fetch(`${service}/__control/reset`, { method: 'POST' });
  await settle(gc);
  const heapBaseline = process.memoryUsage().heapUsed;
  let heapPeak = heapBaseline;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, HEAP_SAMPLE_MS);
  const monitor = loopMonitor();
  const startedAt = Date.now();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let report: Awaited<ReturnType<TestHooks['runQueryTests']>> | undefined = await api.runQueryTests(fileIds);
  const ms = performance.now() - started;
  const cpuMs = cpuSince(cpu);
  const endedAt = Date.now();
  const loop = monitor.stop();
  clearInterval(sampler);
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);

  const items = Object.values(report.items);
  const passed = items.filter((item) => item.state === 'passed').length;
  const notPassed = Object.entries(report.items)
    .filter(([, item]) => item.state !== 'passed')
    .slice(0, 3)
    .map(([id, item]) => `${id.slice(id.lastIndexOf('#'))}: ${item.state} ${item.messages[0]?.text ?? ''}`.trim());
  let highest = -1;
  let startedOutOfOrder = 0;
  for (const id of report.started) {
    const rank = order.get(id) ?? -1;
    if (rank < highest) startedOutOfOrder++;
    highest = Math.max(highest, rank);
  }
  const queries = items.length;
  report = undefined;
  await settle(gc);
  const heapAfter = process.memoryUsage().heapUsed;

  const records = ((await (await fetch(`${service}/__control/requests`)).json()) as RecordedRequest[]).filter((r) => r.applicationId === 'timed' && r.method === 'POST');
  const intervals = records.map((r) => ({ start: r.at, end: r.lastBodyByteAt ?? r.closedByClientAt ?? endedAt }));
  const starts = intervals.map((i) => i.start).sort((a, b) => a - b);
  const ends = intervals.map((i) => i.end).sort((a, b) => a - b);
  const handovers = starts.slice(concurrency).map((start, n) => start - ends[n]);
  return {
    concurrency,
    queries,
    ms,
    cpuMs,
    firstRequestMs: Math.min(...records.map((r) => r.at)) - startedAt,
    afterLastAnswerMs: endedAt - Math.max(...intervals.map((i) => i.end)),
    passed,
    notPassed,
    requests: records.length,
    maxOpen: maxOpen(intervals),
    serviceMedianMs: median(intervals.map((i) => i.end - i.start)),
    handoverMedianMs: median(handovers),
    startedOutOfOrder,
    heapBaseline,
    heapPeak,
    heapAfter,
    loop,
  };
}

/** The folder of the huge query files. */
const HUGE_DIR = 'bench-huge';

/**
 * Lists one huge query file (a repository's hostile `*.aq.md`, written as queries of a few lines)
 * by a Refresh: the time until the tree shows it, the event loop meanwhile, and the heap it takes.
 */
async function listHugeFile(api: TestHooks, bytes: number, gc: (() => void) | undefined): Promise<HugeFileRun> {
  const query = '## Query\n- application: timed\n- expect: contains "x"\n\nWhat is new?\n\n';
  const file = path.join(folder(), HUGE_DIR, `huge-${bytes}.aq.md`);
  await settle(gc);
  const heapBefore = process.memoryUsage().heapUsed;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, query.repeat(Math.ceil(bytes / query.length)).slice(0, bytes));
  let heapPeak = heapBefore;
  const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), HEAP_SAMPLE_MS);
  const monitor = loopMonitor();
  const started = performance.now();
  await api.refreshQueryTests();
  const node = await until(`the ${bytes}-byte file listed`, async () => (await api.queryTests()).find((n) => n.id === vscode.Uri.file(file).toString()));
  const ms = performance.now() - started;
  const loop = monitor.stop();
  clearInterval(sampler);
  await settle(gc);
  const heapKeptBytes = process.memoryUsage().heapUsed - heapBefore;
  await rm(path.join(folder(), HUGE_DIR), { recursive: true, force: true });
  await api.refreshQueryTests();
  return { bytes, ms, loop, heapKeptBytes, heapPeakBytes: heapPeak - heapBefore, ...(node.error === undefined ? {} : { error: node.error }), queries: node.children.length };
}

const CASES_DIR = 'bench-cases';

/** Writes one query with a cases file of `rows` rows and times the Testing view until each case is a child of the query. */
async function listCases(api: TestHooks, rows: number): Promise<CasesRun> {
  const dir = path.join(folder(), CASES_DIR);
  await mkdir(dir, { recursive: true });
  const lines = ['topic,expected'];
  for (let i = 0; i < rows; i++) lines.push(`${TOPICS[i % TOPICS.length]} ${i},answer ${i}`);
  await writeFile(path.join(dir, 'cases.csv'), `${lines.join('\n')}\n`);
  const file = path.join(dir, 'cases.aq.md');
  // A cases path, as a context path, is relative to the workspace folder (not to the query file).
  await writeFile(file, `## Every topic\n- application: timed\n- cases: ${CASES_DIR}/cases.csv\n- expect: contains "{{expected}}"\n\nTell me about {{topic}}.\n`);
  const monitor = loopMonitor();
  const started = performance.now();
  await api.refreshQueryTests();
  const cases = await until(`the ${rows} cases listed`, async () => {
    const query = (await api.queryTests()).find((n) => n.id === vscode.Uri.file(file).toString())?.children[0];
    // A cases file the extension cannot read is a problem on the query: said at once, not waited out.
    if (query?.error !== undefined) throw new Error(`the query lists no cases: ${query.error}`);
    const listed = query?.children.length ?? 0;
    return listed >= rows ? listed : undefined;
  });
  const ms = performance.now() - started;
  const loop = monitor.stop();
  await rm(dir, { recursive: true, force: true });
  await api.refreshQueryTests();
  return { rows, ms, loop, cases };
}

/** The test-electron contract: the launcher calls `run()` and reports its outcome. */
export async function run(): Promise<void> {
  console.log(SUITE_START_MARKER);
  const ext = vscode.extensions.getExtension<TestHooks | undefined>(EXTENSION_ID);
  if (ext === undefined) throw new Error(`${EXTENSION_ID} is not installed in this extension host`);
  const activeBefore = ext.isActive;
  const service = process.env.AQ_SERVICE_URL;
  if (service === undefined) throw new Error('AQ_SERVICE_URL is not set');

  // The listing workload is on disk before the extension starts, as in a cloned repository.
  const listing: Record<string, string> = {};
  for (let k = 0; k < CONTEXT_FILES; k++) listing[`${LIST_DIR}/context/module-${k}.ts`] = contextFile(k);
  for (let f = 0; f < LIST_FILES; f++) listing[fileName(LIST_DIR, f)] = listFile(f);
  await writeFiles(listing);
  // Let the file watcher's events for them pass before the extension (and its watcher) starts.
  await sleep(3000);

  const api = await ext.activate();
  if (api === undefined) throw new Error('no test hooks: load the test build (out/test-extension/) as the development extension');
  const keys = (await (await fetch(`${service}/__control/keys`)).json()) as Record<string, string>;
  await api.setApiKey('timed', keys.timed);
  await setTimedTemplate();

  const idleMonitor = loopMonitor();
  await sleep(1000);
  const idle = idleMonitor.stop();

  // The first discovery goes through the refresh hook too: on an empty catalog it is the same
  // catalog.discover as the tree's first resolveHandler, without queryTests()' synchronous copy
  // of the 4,800 items (100 ms and more: the harness's, timed separately below).
  const runs: ListingRun[] = [await profiled('first-listing', () => timeListing(api, 'first', () => api.refreshQueryTests()))];
  for (let i = 0; i < REFRESHES; i++) runs.push(await profiled(`refresh-${i + 1}`, () => timeListing(api, 'refresh', () => api.refreshQueryTests())));
  const copyStarted = performance.now();
  await api.queryTests();
  const treeCopyMs = performance.now() - copyStarted;

  // The run workload arrives through the file watcher; wait until the tree lists all of it.
  const runFiles: Record<string, string> = { [`${RUN_DIR}/context.ts`]: contextFile(0) };
  for (let f = 0; f < RUN_FILES; f++) runFiles[fileName(RUN_DIR, f)] = runFile(f);
  await writeFiles(runFiles);
  const runNodes = await until('the run files listed', async () => {
    const counted = count(await api.queryTests(), RUN_DIR);
    return counted.queries === RUN_FILES * QUERIES_PER_FILE ? counted.nodes : undefined;
  });
  runNodes.sort((a, b) => a.id.localeCompare(b.id));
  const fileIds = runNodes.map((node) => node.id);
  const order = new Map(runNodes.flatMap((node) => node.children.map((child) => child.id)).map((id, rank) => [id, rank]));

  // Any applicationQuery setting change makes the Testing view recompute its items: measured while all 220 files are listed.
  const settingsChange: LoopDelay[] = [];
  for (const concurrency of [...CONCURRENCIES].reverse()) settingsChange.push(await profiled(`setting-${concurrency}`, () => setConcurrency(concurrency)));

  // The listing files go before the runs (the hook finds each id to run by walking the whole tree,
  // which would cost the harness a second). Their folder goes at once, as `git checkout` or a
  // delete in the Explorer does; VS Code then reports only the folder's deletion, so how many files
  // the tree still lists 3 s later is recorded before a Refresh clears them.
  await rm(path.join(folder(), LIST_DIR), { recursive: true, force: true });
  await sleep(3000);
  const staleAfterFolderDelete = count(await api.queryTests(), LIST_DIR).files;
  await api.refreshQueryTests();
  await until('the listing files gone from the tree', async () => (count(await api.queryTests(), LIST_DIR).files === 0 ? true : undefined));

  const gc = fullCollection();
  // Warm-up (connections, JIT, the run's first allocations) before any baseline: one file.
  await api.runQueryTests(fileIds.slice(0, 1));
  const queryRuns: QueryRun[] = [];
  for (const concurrency of CONCURRENCIES) {
    await setConcurrency(concurrency);
    queryRuns.push(await profiled(`run-${concurrency}`, () => runQueries(api, service, fileIds, order, concurrency, gc)));
  }
  await setConcurrency(undefined);
  const stored = api.storedHistory().reloaded;
  const history = { entries: stored.length, chars: stored.reduce((sum, exchange) => sum + JSON.stringify(exchange).length, 0) };

  const hugeFiles: HugeFileRun[] = [];
  for (const bytes of HUGE_FILE_BYTES) hugeFiles.push(await listHugeFile(api, bytes, gc));

  const cases = await listCases(api, CASES_ROWS);

  const result: QueryFilesBenchResult = { hugeFiles, cases, activeBefore, idle, listing: runs, treeCopyMs, runs: queryRuns, settingsChange: worst(settingsChange), staleAfterFolderDelete, history, gc: gc !== undefined, node: process.version };
  console.log(`AQ_BENCH ${JSON.stringify(result)}`);
}
