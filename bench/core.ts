// Benchmarks of the pure core against a bare fetch loop. The streaming server runs in a worker
// thread (its own event loop, like a real service) so it does not compete with the client's loop.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { TextBatcher } from '../src/shared/batcher';
import { Outgoing } from '../src/host/platform/webview/outgoing';
import { watchLateTicks } from './hostLag/probe';
import { sendQuery } from '../src/client/queryClient';
import { timedMarkdown } from '../service/apps';

/** One line of a benchmark report. */
export interface BenchRow {
  name: string;
  value: string;
  goal?: string;
  ok?: boolean;
  /** The row's one number (ms), for a part run several times: its median and worst are printed. */
  figure?: number;
}

const KEY = 'bench-key-0000';
const BIG_BYTES = 64 * 1024 * 1024;
const BIG_CHUNK = 16 * 1024;
const TICKS = 10_000;
const TICK_RECORD = 32;
const THROUGHPUT_ROUNDS = 5;
const BATCHER_SECONDS = 3;
const BATCHER_RATE = 10_000;
const ROLE = 'core-bench-server';

/** Microseconds on the process-wide monotonic clock (the same in every thread). */
function nowMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

// ---------------------------------------------------------------------------------------------
// Server (worker thread)

interface ServerData {
  role: typeof ROLE;
  acks: SharedArrayBuffer;
}

function runServer(data: ServerData): void {
  const acks = new Int32Array(data.acks);
  // 16 KiB of text with multibyte characters, so the client really decodes UTF-8.
  const unit = Buffer.from('Streaming answer text with ümlauts, 中文 and emoji 😀. ', 'utf8');
  const block = Buffer.alloc(BIG_CHUNK);
  for (let offset = 0; offset < BIG_CHUNK; offset += unit.length) {
    unit.copy(block, offset, 0, Math.min(unit.length, BIG_CHUNK - offset));
  }

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = /^\/api\/applications\/([^/]+)\/query$/.exec(req.url ?? '')?.[1];
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      if (id === 'big') {
        let sent = 0;
        const pump = (): void => {
          while (sent < BIG_BYTES) {
            sent += BIG_CHUNK;
            if (!res.write(block)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      } else if (id === 'ticks') {
        void sendTicks(res, acks);
      } else {
        res.end('unknown route');
      }
    });
  });
  server.listen(0, '127.0.0.1', () => {
    parentPort?.postMessage({ port: (server.address() as AddressInfo).port });
  });
  parentPort?.on('message', (message: unknown) => {
    if (message === 'close') {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
}

// Atomics.waitAsync is in Node 20 but not in the ES2022 lib the project compiles against.
type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** Sends small timestamped records one at a time, each after the client acknowledged the last. */
async function sendTicks(res: http.ServerResponse, acks: Int32Array): Promise<void> {
  Atomics.store(acks, 0, 0);
  for (let i = 0; i < TICKS; i++) {
    res.write(`${nowMicros()}`.padEnd(TICK_RECORD - 1, ' ') + '\n');
    for (;;) {
      const seen = Atomics.load(acks, 0);
      if (seen > i || res.destroyed) {
        break;
      }
      const wait = waitAsync(acks, 0, seen, 5000);
      const outcome = wait.async ? await wait.value : wait.value;
      if (outcome === 'timed-out') {
        res.destroy();
        return;
      }
    }
  }
  res.end();
}

if (!isMainThread && (workerData as Partial<ServerData> | null)?.role === ROLE) {
  runServer(workerData as ServerData);
}

// ---------------------------------------------------------------------------------------------
// Client (main thread)

interface BenchServer {
  base: string;
  acks: Int32Array;
  close(): Promise<void>;
}

async function startBenchServer(): Promise<BenchServer> {
  const shared = new SharedArrayBuffer(4);
  const worker = new Worker(__filename, { workerData: { role: ROLE, acks: shared } satisfies ServerData });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port: number }) => resolve(message.port));
    worker.once('error', reject);
  });
  return {
    base: `http://127.0.0.1:${port}`,
    acks: new Int32Array(shared),
    close: async () => {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('close');
      await exited;
    },
  };
}

const HEADERS = {
  'Content-Type': 'application/json',
  Authorization: `Bearer ${KEY}`,
  Accept: 'text/plain, text/event-stream, application/x-ndjson, application/json;q=0.9, */*;q=0.8',
};

/** The baseline: what any client must do at least: fetch, read, decode. Returns characters seen. */
async function* bareText(base: string, id: string): AsyncGenerator<string> {
  const response = await fetch(`${base}/api/applications/${id}/query`, { method: 'POST', headers: HEADERS, body: '{"query":"bench"}' });
  if (response.body === null) {
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    const text = decoder.decode(value, { stream: true });
    if (text !== '') {
      yield text;
    }
  }
  const tail = decoder.decode();
  if (tail !== '') {
    yield tail;
  }
}

async function coreText(base: string, id: string): Promise<AsyncIterable<string>> {
  const response = await sendQuery({ baseUrl: base, applicationId: id, apiKey: KEY, body: { query: 'bench' }, idleTimeoutMs: 30_000, headersTimeoutMs: 30_000 });
  return response.text;
}

type Client = 'bare' | 'core';

async function throughputOnce(server: BenchServer, client: Client): Promise<number> {
  const started = performance.now();
  let chars = 0;
  if (client === 'bare') {
    // Consumed inline, not through a generator, so the baseline carries no extra layer at all.
    const response = await fetch(`${server.base}/api/applications/big/query`, { method: 'POST', headers: HEADERS, body: '{"query":"bench"}' });
    if (response.body === null) {
      throw new Error('the benchmark response had no body');
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      chars += decoder.decode(value, { stream: true }).length;
    }
    chars += decoder.decode().length;
  } else {
    for await (const text of await coreText(server.base, 'big')) {
      chars += text.length;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  if (chars === 0) {
    throw new Error('the benchmark stream was empty');
  }
  return BIG_BYTES / 1e6 / seconds;
}

async function latencyOnce(server: BenchServer, client: Client): Promise<number[]> {
  const delays: number[] = [];
  const text = client === 'bare' ? bareText(server.base, 'ticks') : await coreText(server.base, 'ticks');
  let pending = '';
  for await (const piece of text) {
    const arrived = nowMicros();
    pending += piece;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      delays.push(arrived - Number(pending.slice(0, newline)));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
      Atomics.store(server.acks, 0, delays.length);
      Atomics.notify(server.acks, 0);
    }
  }
  if (delays.length !== TICKS) {
    throw new Error(`expected ${TICKS} records, got ${delays.length}`);
  }
  return delays;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function batcherBench(): Promise<BenchRow[]> {
  const flushes: number[] = [];
  let received = '';
  const batcher = new TextBatcher((text) => {
    flushes.push(performance.now());
    received += text;
  });
  let expected = '';
  let pushed = 0;
  const started = performance.now();
  const durationMs = BATCHER_SECONDS * 1000;
  await new Promise<void>((resolve) => {
    const turn = (): void => {
      const elapsed = performance.now() - started;
      const target = Math.min(Math.floor((elapsed * BATCHER_RATE) / 1000), (durationMs * BATCHER_RATE) / 1000);
      while (pushed < target) {
        const piece = `t${pushed} `;
        expected += piece;
        batcher.push(piece);
        pushed++;
      }
      if (elapsed >= durationMs) {
        resolve();
      } else {
        setImmediate(turn);
      }
    };
    turn();
  });
  const elapsed = performance.now() - started;
  const timedFlushes = flushes.length;
  batcher.dispose();
  const lost = expected.length - received.length;
  const exact = received === expected;
  let minGap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < timedFlushes; i++) {
    minGap = Math.min(minGap, flushes[i] - flushes[i - 1]);
  }
  const steadyRate = timedFlushes > 1 ? ((timedFlushes - 1) * 1000) / (flushes[timedFlushes - 1] - flushes[0]) : timedFlushes;
  return [
    { name: 'TextBatcher: pushes per second achieved', value: ((pushed * 1000) / elapsed).toFixed(0), goal: `≈ ${BATCHER_RATE}` },
    { name: 'TextBatcher: flushes per second (50 ms interval)', value: steadyRate.toFixed(1), goal: '≤ 20', ok: steadyRate <= 20 },
    { name: 'TextBatcher: shortest gap between flushes', value: `${minGap.toFixed(1)} ms`, goal: '≥ 50 ms', ok: minGap >= 50 - 0.01 },
    { name: 'TextBatcher: text lost or reordered', value: exact ? '0 chars' : `${lost} chars (order ${exact ? 'kept' : 'broken'})`, goal: '0', ok: exact },
  ];
}

/**
 * Measures the core: (a) throughput of sendQuery+iteration vs a bare fetch+TextDecoder loop over a
 * 64 MiB stream in 16 KiB chunks (interleaved runs, medians); (b) per-chunk delivery latency of
 * 10,000 small timestamped chunks, sent one at a time; (c) TextBatcher under 10,000 pushes/s.
 */
export async function runCoreBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const server = await startBenchServer();
  try {
    // Warm up both paths (JIT, connection pool) before measuring.
    await throughputOnce(server, 'bare');
    await throughputOnce(server, 'core');

    const bare: number[] = [];
    const core: number[] = [];
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      // Alternate who goes first, so neither always runs on a warmer machine.
      const order: Client[] = round % 2 === 0 ? ['bare', 'core'] : ['core', 'bare'];
      for (const client of order) {
        (client === 'bare' ? bare : core).push(await throughputOnce(server, client));
      }
    }
    const bareMedian = quantile(bare, 0.5);
    const coreMedian = quantile(core, 0.5);
    const ratio = coreMedian / bareMedian;
    rows.push(
      { name: `throughput, bare fetch+TextDecoder (64 MiB, median of ${THROUGHPUT_ROUNDS})`, value: `${bareMedian.toFixed(0)} MB/s` },
      { name: `throughput, sendQuery + iterate (median of ${THROUGHPUT_ROUNDS})`, value: `${coreMedian.toFixed(0)} MB/s` },
      { name: 'throughput ratio sendQuery / bare', value: `${ratio.toFixed(2)}×`, goal: '≥ 0.9×', ok: ratio >= 0.9 },
    );

    const bareDelays: number[] = [];
    const coreDelays: number[] = [];
    for (const client of ['bare', 'core', 'core', 'bare'] as const) {
      (client === 'bare' ? bareDelays : coreDelays).push(...(await latencyOnce(server, client)));
    }
    const describe = (delays: number[]): string => `${quantile(delays, 0.5).toFixed(0)} µs / ${quantile(delays, 0.95).toFixed(0)} µs`;
    rows.push(
      { name: `chunk latency, bare (${TICKS} × ${TICK_RECORD} B, median / p95)`, value: describe(bareDelays) },
      { name: 'chunk latency, sendQuery (median / p95)', value: describe(coreDelays) },
      { name: 'chunk latency added by sendQuery (median)', value: `${(quantile(coreDelays, 0.5) - quantile(bareDelays, 0.5)).toFixed(0)} µs` },
    );
  } finally {
    await server.close();
  }
  rows.push(...(await batcherBench()));
  rows.push(await backlogBench());
  return rows;
}

const BACKLOG_BYTES = 10 * 1024 * 1024;
const BACKLOG_RUNS = 7;

/**
 * A 10 MiB backlog given to a webview's Outgoing at once (the webview far behind, the answer then
 * ended): how long the extension host's event loop was held at most (a timer due every
 * millisecond notes how late it ran), how long until all the text and the end were delivered, in
 * how many `append`s, and whether the end came after all the text. The webview takes each message
 * a task later (`deliver` settles after a setImmediate), as a page that keeps up does.
 */
async function backlogBench(): Promise<BenchRow> {
  const text = timedMarkdown(BACKLOG_BYTES);
  const results: Array<{ late: number; ms: number; appends: number; inOrder: boolean }> = [];
  for (let run = 0; run < BACKLOG_RUNS; run++) {
    let appends = 0;
    let delivered = 0;
    let textBeforeEnd = -1;
    let ended: () => void = () => undefined;
    const end = new Promise<void>((resolve) => (ended = resolve));
    const out = new Outgoing((message) => {
      if (message.type === 'append') {
        appends++;
        delivered += message.text.length;
      }
      if (message.type === 'turnEnd') textBeforeEnd = delivered;
      if (message.type === 'turnEnd' || (textBeforeEnd >= 0 && delivered >= text.length)) ended();
      return new Promise<void>((resolve) => setImmediate(resolve));
    });
    let late = 0;
    const stopWatching = watchLateTicks(1, (ms) => (late = Math.max(late, ms)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const start = performance.now();
    // The text as it arrives from the socket, in 64 KiB chunks, all before the first batch is taken.
    for (let at = 0; at < text.length; at += 64 * 1024) out.append('answer', text.slice(at, at + 64 * 1024));
    out.post({ type: 'turnEnd', turnId: 'answer', status: 'done' });
    await end;
    // The rest of the text, if the end overtook it.
    const cap = performance.now() + 10_000;
    while (delivered < text.length && performance.now() < cap) await new Promise((resolve) => setTimeout(resolve, 5));
    const ms = performance.now() - start;
    // The timer notes the last hold when it runs next.
    await new Promise((resolve) => setTimeout(resolve, 5));
    stopWatching();
    out.dispose();
    results.push({ late, ms, appends, inOrder: textBeforeEnd === text.length && delivered === text.length });
  }
  const warm = results.slice(1);
  const inOrder = results.every((run) => run.inOrder);
  return {
    name: `Outgoing: a 10 MiB backlog for a webview far behind (deliver settles a task later), then the end: the event loop's longest hold (a 1 ms timer's lateness), all text and the end delivered; the end after all the text; median of ${BACKLOG_RUNS - 1} after a first run`,
    value: `${quantile(warm.map((run) => run.late), 0.5).toFixed(1)} ms longest hold (${Math.max(...warm.map((run) => run.late)).toFixed(1)} ms at most; first run ${results[0].late.toFixed(1)} ms), ${quantile(warm.map((run) => run.ms), 0.5).toFixed(0)} ms in all, ${results[0].appends} appends; end after all text: ${String(inOrder)}`,
    goal: 'end after all text',
    ok: inOrder,
  };
}
