// How soon the service sees the connection close when a query is stopped or times out: the goal is
// within 100 ms. A loopback server records when each request's socket closes; the client is the
// real core client (sendQuery), so this measures our abort plumbing, not a model of it.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendQuery } from '../src/client/queryClient';
import { quantile, type BenchRow } from './core';

const REPEATS = 20;
const TIMEOUT_MS = 200;
const GOAL_MS = 100;

interface Server {
  base: string;
  /** Resolves with the time (performance.now) the next request's socket closes. */
  nextClose(): Promise<number>;
  /** Resolves with the time the next request arrives. */
  nextRequest(): Promise<number>;
  close(): Promise<void>;
}

/** `stream`: one chunk now and one every 10 ms; `stall`: one chunk, then silence; `silent`: no headers. */
type Behaviour = 'stream' | 'stall' | 'silent';

async function startServer(behaviour: () => Behaviour): Promise<Server> {
  let onClose: ((at: number) => void) | undefined;
  let onRequest: ((at: number) => void) | undefined;
  const server = http.createServer((req, res) => {
    onRequest?.(performance.now());
    req.resume();
    res.on('close', () => onClose?.(performance.now()));
    const mode = behaviour();
    if (mode === 'silent') return;
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.write('first piece of the answer ');
    if (mode === 'stream') {
      const timer = setInterval(() => res.write('more '), 10);
      res.on('close', () => clearInterval(timer));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    nextClose: () => new Promise((resolve) => { onClose = resolve; }),
    nextRequest: () => new Promise((resolve) => { onRequest = resolve; }),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function request(base: string, extra: { signal?: AbortSignal; headersTimeoutMs?: number; idleTimeoutMs?: number }): ReturnType<typeof sendQuery> {
  return sendQuery({ baseUrl: base, applicationId: 'cancel', apiKey: 'bench-key-0000', body: { query: 'x' }, ...extra });
}

async function drain(text: AsyncIterable<string>, onFirst?: () => void): Promise<void> {
  try {
    for await (const piece of text) {
      if (piece !== '') onFirst?.();
    }
  } catch {
    // Stopped or timed out: what this bench causes on purpose.
  }
}

/** Measures each case REPEATS times: milliseconds from the cause to the server seeing the close. */
export async function runCancelBench(): Promise<BenchRow[]> {
  let mode: Behaviour = 'stream';
  const server = await startServer(() => mode);
  const cases: { name: string; delays: number[] }[] = [];
  try {
    const measure = async (name: string, once: () => Promise<number>): Promise<void> => {
      await once(); // warm-up
      const delays: number[] = [];
      for (let i = 0; i < REPEATS; i++) delays.push(await once());
      cases.push({ name, delays });
    };
    await measure('Stop while the answer streams', async () => {
      mode = 'stream';
      const controller = new AbortController();
      const closed = server.nextClose();
      const response = await request(server.base, { signal: controller.signal });
      let stoppedAt = 0;
      await drain(response.text, () => {
        if (stoppedAt === 0) {
          stoppedAt = performance.now();
          controller.abort();
        }
      });
      return (await closed) - stoppedAt;
    });
    await measure('Stop before the headers arrive', async () => {
      mode = 'silent';
      const controller = new AbortController();
      const arrived = server.nextRequest();
      const closed = server.nextClose();
      const pending = request(server.base, { signal: controller.signal }).catch(() => undefined);
      await arrived;
      const stoppedAt = performance.now();
      controller.abort();
      await pending;
      return (await closed) - stoppedAt;
    });
    await measure(`headers timeout (${TIMEOUT_MS} ms), from its deadline`, async () => {
      mode = 'silent';
      const closed = server.nextClose();
      const startedAt = performance.now();
      await request(server.base, { headersTimeoutMs: TIMEOUT_MS }).catch(() => undefined);
      return (await closed) - (startedAt + TIMEOUT_MS);
    });
    await measure(`idle timeout (${TIMEOUT_MS} ms), from its deadline`, async () => {
      mode = 'stall';
      const closed = server.nextClose();
      const response = await request(server.base, { idleTimeoutMs: TIMEOUT_MS });
      let lastByteAt = 0;
      await drain(response.text, () => {
        lastByteAt = performance.now();
      });
      return (await closed) - (lastByteAt + TIMEOUT_MS);
    });
  } finally {
    await server.close();
  }
  return cases.map(({ name, delays }) => {
    const worst = Math.max(...delays);
    return {
      name: `${name}: the server sees the close after (median / worst of ${REPEATS})`,
      value: `${quantile(delays, 0.5).toFixed(1)} ms / ${worst.toFixed(1)} ms`,
      goal: `≤ ${GOAL_MS} ms`,
      ok: worst <= GOAL_MS,
    };
  });
}
