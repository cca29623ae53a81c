// Runs inside the extension host (loaded by the code-server launcher like the integration suite):
// each round runs one query on the reference service's `timed` application alone (through the query
// pipeline alone, then with Query Application into the answer panel), then four at once through
// Compare Applications… (`timed` on four environments that all point at the service), and records
// how the service and the extension saw each request. Prints one `AQ_BENCH {json}` line for
// bench/compare.ts.
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RecordedRequest } from '../../service/server';
import type { TestHooks } from '../../test/integration/testHooks';
import { SUITE_START_MARKER } from '../../test/launch/automationLog';
import { CONTEXT_FILE, ENVIRONMENTS, ROUNDS, TIMED_CHUNK_BYTES, TIMED_DELAY_MS, TIMED_PACE_MS, TIMED_SIZE, type CompareBenchResult, type CompareRound, type TimedRequest } from './shared';

const EXTENSION_ID = 'application-query.application-query';
const APPLICATION = 'timed';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('applicationQuery');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The `timed` queries the service received since its last reset, in arrival order. */
async function timedRequests(service: string): Promise<RecordedRequest[]> {
  const all = (await (await fetch(`${service}/__control/requests`)).json()) as RecordedRequest[];
  return all.filter((r) => r.applicationId === APPLICATION && r.method === 'POST');
}

async function resetService(service: string): Promise<void> {
  await fetch(`${service}/__control/reset`, { method: 'POST' });
}

/** Four environments on the service, and `timed` answering TIMED_SIZE bytes after TIMED_DELAY_MS, TIMED_PACE_MS between chunks. */
async function configure(service: string): Promise<void> {
  const environments = Object.fromEntries(ENVIRONMENTS.map((name) => [name, { baseUrl: service }]));
  await config().update('environments', environments, vscode.ConfigurationTarget.Global);
  const apps = (config().inspect<{ id: string }[]>('applications')?.globalValue ?? []).map((app) =>
    app.id === APPLICATION ? { ...app, requestTemplate: { query: '${input}', delayMs: TIMED_DELAY_MS, size: TIMED_SIZE, chunkBytes: TIMED_CHUNK_BYTES, paceMs: TIMED_PACE_MS } } : app,
  );
  await config().update('applications', apps, vscode.ConfigurationTarget.Global);
  await until('the settings', () => {
    const envs = config().get<Record<string, { baseUrl?: string }>>('environments') ?? {};
    const timed = (config().get<{ id: string; requestTemplate?: { size?: number } }[]>('applications') ?? []).find((app) => app.id === APPLICATION);
    return ENVIRONMENTS.every((name) => envs[name]?.baseUrl === service) && timed?.requestTemplate?.size === TIMED_SIZE ? true : undefined;
  });
}

async function selectEnvironment(name: string): Promise<void> {
  await vscode.commands.executeCommand('applicationQuery.selectEnvironment', name);
  await until(`environment "${name}"`, () => ((config().get<string>('environment') ?? '') === name ? true : undefined));
}

/** What the service recorded of one request, with the extension's own figures. */
function timed(record: RecordedRequest, environment: string, client: { firstByteMs?: number; durationMs?: number; outcome: string; bytes: number }): TimedRequest {
  return { environment, at: record.at, firstBodyByteAt: record.firstBodyByteAt ?? Number.NaN, lastBodyByteAt: record.lastBodyByteAt ?? Number.NaN, ...client };
}

/** One query alone, through the real pipeline (the test hook's runQuery: a sink that keeps the text, as a column's host side does). */
async function alone(api: TestHooks, service: string, round: number): Promise<TimedRequest> {
  await resetService(service);
  const { text, outcome } = await api.runQuery({ applicationId: APPLICATION, question: `Round ${round}: one query alone` });
  const [record] = await until('the query alone at the service', async () => {
    const records = await timedRequests(service);
    return records.length === 1 && records[0].lastBodyByteAt !== undefined ? records : undefined;
  });
  return timed(record, '', { firstByteMs: outcome.firstByteMs, durationMs: outcome.durationMs, outcome: outcome.kind, bytes: text.length });
}

/** The History's exchanges of `surface` that answer these requests (matched by the service's marker, which each answer starts with), in the same order. */
function exchangesOf(api: TestHooks, surface: string, records: readonly RecordedRequest[]): Promise<ReturnType<TestHooks['storedHistory']>['reloaded'][number][]> {
  // The History records every exchange when it ends (its surface, environment and timings).
  return until(
    `the ${surface} exchanges in History`,
    () => {
      const recorded = api.storedHistory().reloaded.filter((exchange) => exchange.surface === surface);
      const found = records.map((record) => recorded.find((exchange) => record.marker !== undefined && exchange.response?.text.startsWith(record.marker) === true));
      const matched = found.filter((exchange) => exchange !== undefined);
      return matched.length === records.length ? matched : undefined;
    },
    60_000,
    500,
  );
}

/** The workspace file the queries take as context, open in the editor. */
async function openContextFile(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined) throw new Error('the benchmark needs a workspace folder');
  const uri = vscode.Uri.file(path.join(folder.uri.fsPath, CONTEXT_FILE));
  await vscode.window.showTextDocument(uri, { preview: false });
}

/**
 * One query alone as a user runs it: Query Application on `timed` into the answer panel, the file
 * open in the editor as its context, the question box accepted empty (as "send it as it is").
 */
async function alonePanel(api: TestHooks, service: string): Promise<TimedRequest> {
  await resetService(service);
  let asked = false;
  const command = Promise.resolve(vscode.commands.executeCommand('applicationQuery.query', APPLICATION)).finally(() => (asked = true));
  // The question box opens once the command has read the context: accept it as soon as it is there.
  await until('the question box to be accepted', async () => {
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    return asked ? true : undefined;
  }, 30_000, 100);
  await command;
  const records = await until('the answer-panel query at the service', async () => {
    const all = await timedRequests(service);
    return all.length === 1 && (all[0].lastBodyByteAt !== undefined || all[0].closedByClientAt !== undefined) ? all : undefined;
  });
  const [exchange] = await exchangesOf(api, 'command', records);
  return timed(records[0], '', { firstByteMs: exchange.timings.firstByteMs, durationMs: exchange.timings.durationMs, outcome: exchange.outcome.kind, bytes: exchange.textChars });
}

/** Four queries at once in one Compare panel; each column's request, matched to its History exchange by the service's marker. */
async function fourAtOnce(api: TestHooks, service: string, round: number): Promise<{ columns: TimedRequest[]; compareMs: number; firstRequestMs: number }> {
  await resetService(service);
  const started = Date.now();
  await vscode.commands.executeCommand('applicationQuery.compare', { applications: [APPLICATION], environments: ENVIRONMENTS, question: `Round ${round}: four at once` });
  const records = await until(
    'the four answers at the service',
    async () => {
      const all = await timedRequests(service);
      return all.length === ENVIRONMENTS.length && all.every((r) => r.lastBodyByteAt !== undefined || r.closedByClientAt !== undefined) ? all : undefined;
    },
    120_000,
  );
  const exchanges = await exchangesOf(api, 'compare', records);
  const columns = records.map((record, i) => {
    const exchange = exchanges[i];
    return timed(record, exchange.environment ?? '?', { firstByteMs: exchange.timings.firstByteMs, durationMs: exchange.timings.durationMs, outcome: exchange.outcome.kind, bytes: exchange.textChars });
  });
  const compareMs = Math.max(...exchanges.map((exchange) => Date.parse(exchange.when) + exchange.timings.durationMs)) - started;
  return { columns: columns.sort((a, b) => a.environment.localeCompare(b.environment)), compareMs, firstRequestMs: Math.min(...records.map((r) => r.at)) - started };
}

/** The test-electron contract: the launcher calls `run()` and reports its outcome. */
export async function run(): Promise<void> {
  console.log(SUITE_START_MARKER);
  const api = await vscode.extensions.getExtension<TestHooks | undefined>(EXTENSION_ID)?.activate();
  if (api === undefined) throw new Error('no test hooks: load the test build (out/test-extension/) as the development extension');
  const service = process.env.AQ_SERVICE_URL;
  if (service === undefined) throw new Error('AQ_SERVICE_URL is not set');
  const keys = (await (await fetch(`${service}/__control/keys`)).json()) as Record<string, string>;
  await configure(service);
  // Keys are stored per service origin for the current environment: each environment gets the key
  // (here the same origin, so the same key), then the query alone goes to applicationQuery.baseUrl.
  for (const name of [...ENVIRONMENTS, '']) {
    await selectEnvironment(name);
    await api.setApiKey(APPLICATION, keys[APPLICATION]);
  }

  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined) throw new Error('the benchmark needs a workspace folder');
  await writeFile(path.join(folder.uri.fsPath, CONTEXT_FILE), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');

  const rounds: CompareRound[] = [];
  // Round 0 warms up (the first panels, the JIT) and is not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    const single = await alone(api, service, round);
    await sleep(500);
    await openContextFile();
    const panel = await alonePanel(api, service);
    // Each panel goes, and its webview with it, before the next query.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await sleep(1500);
    await openContextFile();
    const { columns, compareMs, firstRequestMs } = await fourAtOnce(api, service, round);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await sleep(1500);
    if (round > 0) rounds.push({ single, panel, columns, compareMs, firstRequestMs });
  }
  const result: CompareBenchResult = { rounds, node: process.versions.node };
  console.log(`AQ_BENCH ${JSON.stringify(result)}`);
}
