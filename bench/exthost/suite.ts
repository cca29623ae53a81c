// Runs inside the extension host (loaded by the code-server launcher like the integration suite):
// streams 10 MiB and 50 MiB answers (BENCH_RUNS) into the real "Application Query" output channel and samples this
// process's memory while it does. Prints one `AQ_BENCH {json}` line for bench/exthost.ts.
import { fullCollection, settle } from '../hostMemory';
import * as vscode from 'vscode';
import type { TestHooks } from '../../test/integration/testHooks';
import { SUITE_START_MARKER } from '../../test/launch/automationLog';
import { BENCH_RUNS, CHUNK_BYTES, type ExtHostBenchResult, type ExtHostRun, type Memory, WARM_UP_BYTES } from './shared';

const EXTENSION_ID = 'application-query.application-query';
function snapshot(): Memory {
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss, external: m.external };
}

async function setBulkSize(size: number): Promise<void> {
  const config = vscode.workspace.getConfiguration('applicationQuery');
  const apps = (config.inspect<{ id: string }[]>('applications')?.globalValue ?? []).map((app) =>
    app.id === 'bulk' ? { ...app, requestTemplate: { query: '${input}', size, chunkBytes: CHUNK_BYTES } } : app,
  );
  await config.update('applications', apps, vscode.ConfigurationTarget.Global);
  for (let i = 0; i < 100; i++) {
    const now = vscode.workspace.getConfiguration('applicationQuery').get<{ id: string; requestTemplate?: { size?: number } }[]>('applications') ?? [];
    if (now.find((app) => app.id === 'bulk')?.requestTemplate?.size === size) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the bulk request template did not take effect');
}

/**
 * The reference: VS Code's own output channel given `size` bytes of mixed UTF-8 text directly, in
 * 2 MiB appends 50 ms apart (what the extension's batching does at this rate), no extension code.
 */
let direct: vscode.OutputChannel | undefined;
async function appendDirectly(size: number): Promise<{ kind: string; bytes: number }> {
  direct ??= vscode.window.createOutputChannel('Application Query benchmark reference');
  direct.show(true);
  const unit = 'abc é € 😀 0123456789\n';
  const unitBytes = Buffer.byteLength(unit);
  const piece = unit.repeat(Math.floor((2 * 1024 * 1024) / unitBytes));
  const pieceBytes = Buffer.byteLength(piece);
  let sent = 0;
  for (let i = 0; sent < size; i++) {
    const text = sent + pieceBytes <= size ? `${piece.slice(0, -1)}${i % 10}` : 'x'.repeat(size - sent);
    direct.append(text);
    sent += Buffer.byteLength(text);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { kind: 'done', bytes: sent };
}

/** The test-electron contract: the launcher calls `run()` and reports its outcome. */
export async function run(): Promise<void> {
  console.log(SUITE_START_MARKER);
  const ext = vscode.extensions.getExtension<TestHooks | undefined>(EXTENSION_ID);
  const api = await ext?.activate();
  if (api === undefined) throw new Error('no test hooks: load the test build (out/test-extension/) as the development extension');
  const service = process.env.AQ_SERVICE_URL;
  if (service === undefined) throw new Error('AQ_SERVICE_URL is not set');
  const keys = (await (await fetch(`${service}/__control/keys`)).json()) as Record<string, string>;
  await api.setApiKey('bulk', keys.bulk);

  // Warm up (channel creation, JIT) before any baseline.
  await setBulkSize(WARM_UP_BYTES);
  await api.runQueryInto('outputChannel', { applicationId: 'bulk', question: 'warm up' });
  await api.runQueryInto('nowhere', { applicationId: 'bulk', question: 'warm up' });
  const gc = fullCollection();
  const runs: ExtHostRun[] = [];
  await settle(gc);
  const before = snapshot();
  for (const { size, target } of BENCH_RUNS) {
    await setBulkSize(size);
    await settle(gc);
    const baseline = snapshot();
    const peak = { ...baseline };
    const sampler = setInterval(() => {
      const now = snapshot();
      peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
      peak.rss = Math.max(peak.rss, now.rss);
      peak.external = Math.max(peak.external, now.external);
    }, 10);
    const started = performance.now();
    const outcome = target === 'vscodeChannel' ? await appendDirectly(size) : await api.runQueryInto(target, { applicationId: 'bulk', question: `${size} bytes` });
    const ms = performance.now() - started;
    clearInterval(sampler);
    await settle(gc);
    runs.push({ size, target, outcome: outcome.kind, bytes: 'wireBytes' in outcome ? outcome.wireBytes : outcome.bytes, ms, baseline, peak, after: snapshot() });
  }
  const result: ExtHostBenchResult = { runs, before, gc: gc !== undefined };
  console.log(`AQ_BENCH ${JSON.stringify(result)}`);
}
