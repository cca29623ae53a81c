// VS Code's Chat under a fast stream, measured inside a real extension host (code-server 4.139.1,
// VS Code 1.139): the @app participant (into ChatResponseStream.markdown) and the model provider
// (into progress.report), fed by a loopback server that sends exactly `rate` chunks a second.
// Added latency: from a piece reaching the sinks (read from the socket and decoded) to the chat
// call that carries it. Calls per second: how often the Chat is written to.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { automationLogLines } from '../test/launch/automationLog';
import { runVersion } from '../test/launch/hostSuite';
import { repoRoot } from '../test/launch/util';
import type { BenchRow } from './core';
import { CHAT_FLUSH_MS } from '../src/host/vscodeChat/sink';
import { LM_SCENARIOS, lmChunk, type LmRun } from './lmShared';

/** The most writes into the Chat a second, and the added latency at a model's pace (median). */
const CALLS_GOAL = 60;
const LATENCY_GOAL_MS = 1;

/** Streams each scenario's chunks at its rate: each chunk its own write, never early, catching up when late. */
function startRateServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const scenario = LM_SCENARIOS.find((s) => req.url === `/api/applications/${s.id}/query`);
    if (req.method !== 'POST' || scenario === undefined) {
      res.writeHead(req.method === 'GET' ? 200 : 404, { 'Content-Type': 'application/json' }).end('{}');
      return;
    }
    req.resume();
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    const started = performance.now();
    let sent = 0;
    const tick = (): void => {
      if (res.destroyed) return;
      const due = Math.min(scenario.chunks, Math.floor(((performance.now() - started) / 1000) * scenario.rate) + 1);
      while (sent < due) res.write(lmChunk(sent++));
      if (sent >= scenario.chunks) res.end();
      else setImmediate(tick);
    };
    tick();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs bench/lmSuite.ts in the extension host and turns its result into rows. */
export async function runLmBench(): Promise<BenchRow[]> {
  const server = await startRateServer();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let runs: LmRun[] | undefined;
  try {
    const result = await runVersion('4.139.1', { url, applications: LM_SCENARIOS.map((s) => ({ id: s.id, name: s.label })) }, {
      title: "Benchmark (VS Code's Chat, extension host)",
      testsPath: path.join(repoRoot(), 'out', 'bench', 'lmSuite.js'),
      onLog: (_type, message) => {
        for (const line of automationLogLines(message)) {
          const found = /AQ_LM_BENCH (\[.*\])/.exec(line);
          if (found) runs = JSON.parse(found[1]) as LmRun[];
        }
      },
    });
    if (result.code !== 0 || runs === undefined) throw new Error(`the Chat benchmark did not report (exit ${result.code})`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  const rows: BenchRow[] = [];
  for (const run of runs) {
    const scenario = LM_SCENARIOS.find((s) => s.id === run.scenario);
    const where = run.path === 'participant' ? '@app → ChatResponseStream.markdown' : 'model → progress.report';
    const perSecond = run.calls / run.seconds;
    rows.push({
      name: `${where}, ${scenario?.label ?? run.scenario}: nothing lost, calls per second`,
      value: `${run.complete ? 'complete' : `INCOMPLETE (${run.outcome})`}, ${run.pieces.toLocaleString('en-US')} pieces in ${run.calls} calls over ${run.seconds.toFixed(1)} s = ${perSecond.toFixed(1)} calls/s`,
      goal: `complete, ≤ ${CALLS_GOAL} calls/s`,
      ok: run.complete && perSecond <= CALLS_GOAL,
    });
    const paced = scenario !== undefined && scenario.rate <= 1000 / CHAT_FLUSH_MS;
    rows.push({
      name: `${where}, ${scenario?.label ?? run.scenario}: added latency per piece`,
      value: `p50 ${run.latencyP50.toFixed(2)} ms, p95 ${run.latencyP95.toFixed(2)} ms`,
      // Under a fast stream pieces wait for the next write by design: that is what keeps the calls at ≤ 60/s.
      ...(paced ? { goal: `p50 ≤ ${LATENCY_GOAL_MS} ms`, ok: run.latencyP50 <= LATENCY_GOAL_MS } : { goal: `≤ the ${CHAT_FLUSH_MS} ms write interval (by design)` }),
    });
  }
  return rows;
}
