// Runs inside the extension host (loaded by the code-server launcher like the integration suite):
// the @app participant and the model provider, built from the product's own classes over the real
// query pipeline, fed by the benchmark's rate server; their ChatResponseStream / progress are
// recorders. Prints one `AQ_LM_BENCH {json}` line for bench/lm.ts.
import * as vscode from 'vscode';
import { CurrentApplication } from '../src/host/platform/currentApplication';
import { Settings } from '../src/host/platform/settings';
import { Log } from '../src/host/platform/log';
import { ApplicationParticipant } from '../src/host/vscodeChat/participant';
import { ApplicationModelProvider } from '../src/host/vscodeChat/provider';
import { QueryRegistry } from '../src/host/query/registry';
import { QueryRunner } from '../src/host/query/runner';
import type { QuerySink } from '../src/host/query/types';
import { KeyStore } from '../src/host/platform/keyStore';
import { SUITE_START_MARKER } from '../test/launch/automationLog';
import { LM_SCENARIOS, lmChunk, type LmRun, type LmScenario } from './lmShared';

/** A SecretStorage that holds the rate server's one key (the server accepts any). */
function secrets(): vscode.SecretStorage {
  const changed = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
  return { get: () => Promise.resolve('bench-key'), store: () => Promise.resolve(), delete: () => Promise.resolve(), onDidChange: changed.event };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** Pairs each piece's arrival at the sinks with the first chat call that carried its last character. */
function latencies(arrivals: readonly [number, number][], calls: readonly [number, number][]): number[] {
  const result: number[] = [];
  let c = 0;
  for (const [end, at] of arrivals) {
    while (c < calls.length && calls[c][0] < end) c++;
    if (c < calls.length) result.push(calls[c][1] - at);
  }
  return result;
}

async function measure(path: LmRun['path'], scenario: LmScenario, runner: QueryRunner, deps: ConstructorParameters<typeof ApplicationParticipant>[0]): Promise<LmRun> {
  const arrivals: [number, number][] = [];
  const calls: [number, number][] = [];
  let pieces = 0;
  let received = 0;
  let text = '';
  // Sees each piece as the pipeline hands it to the sinks (ahead of the surface's own sink).
  const timing: QuerySink = {
    start: () => undefined,
    status: () => undefined,
    append: (piece) => {
      pieces++;
      received += piece.length;
      arrivals.push([received, performance.now()]);
    },
    end: () => undefined,
  };
  const timedRunner = { run: (input, sinks, options) => runner.run(input, [timing, ...sinks], options) } as QueryRunner;
  const record = (value: string): void => {
    text += value;
    calls.push([text.length, performance.now()]);
  };
  const token = new vscode.CancellationTokenSource().token;
  const started = performance.now();
  let outcome = 'done';
  if (path === 'participant') {
    const participant = new ApplicationParticipant({ ...deps, runner: timedRunner });
    const stream = { markdown: (value: string | vscode.MarkdownString) => record(typeof value === 'string' ? value : value.value), button: () => undefined, progress: () => undefined } as unknown as vscode.ChatResponseStream;
    const request = { prompt: 'bench', command: undefined, references: [], toolReferences: [], model: undefined } as unknown as vscode.ChatRequest;
    const result = await participant.handle(request, { history: [] }, stream, token);
    outcome = result.errorDetails?.message ?? 'done';
    // The participant's first write names the application; the answer follows.
    const header = calls.shift();
    if (header !== undefined) {
      text = text.slice(header[0]);
      for (const call of calls) call[0] -= header[0];
    }
  } else {
    const provider = new ApplicationModelProvider({ ...deps, runner: timedRunner });
    const model = (await provider.provideLanguageModelChatInformation()).find((m) => m.id === scenario.id);
    if (model === undefined) throw new Error(`no model ${scenario.id}`);
    await provider.provideLanguageModelChatResponse(model, [{ role: 1, content: [new vscode.LanguageModelTextPart('bench')], name: undefined }], {}, { report: (part) => record(part.value) }, token).catch((error: unknown) => {
      outcome = String(error);
    });
    provider.dispose();
  }
  const seconds = (performance.now() - started) / 1000;
  const expected = Array.from({ length: scenario.chunks }, (_, n) => lmChunk(n)).join('');
  const added = latencies(arrivals, calls);
  return {
    path,
    scenario: scenario.id,
    outcome,
    complete: text === expected,
    pieces,
    calls: calls.length,
    seconds,
    latencyP50: percentile(added, 0.5),
    latencyP95: percentile(added, 0.95),
  };
}

/** The suite entry point (test-electron contract). */
export async function run(): Promise<void> {
  console.log(SUITE_START_MARKER);
  const settings = new Settings();
  const keys = new KeyStore(secrets());
  const log = new Log(() => []);
  const registry = new QueryRegistry();
  const runner = new QueryRunner(settings, keys, log, registry);
  const memento = new Map<string, unknown>();
  const state = { get: (key: string) => memento.get(key), update: (key: string, value: unknown) => Promise.resolve(void memento.set(key, value)), keys: () => [...memento.keys()] } as unknown as vscode.Memento;
  const current = new CurrentApplication(state, settings);
  const deps = { extensionUri: vscode.Uri.file(__dirname), settings, keys, current, runner, log };
  const runs: LmRun[] = [];
  try {
    for (const scenario of LM_SCENARIOS) {
      await current.set(scenario.id);
      for (const path of ['participant', 'model'] as const) runs.push(await measure(path, scenario, runner, deps));
    }
  } finally {
    for (const part of [current, registry, log, keys, settings]) part.dispose();
  }
  console.log(`AQ_LM_BENCH ${JSON.stringify(runs)}`);
}
