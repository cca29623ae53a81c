/**
 * The reference service: a real HTTP server implementing the whole service interface (query
 * streaming, authenticated GETs) plus deliberate faults, and a second-origin capture server for
 * key-leak tests. The same code serves `npm run service`, the unit, integration and e2e tests, and
 * the benchmarks.
 *
 * Test-control routes live under `/__control/` (outside `/api`, unauthenticated, not recorded):
 * they exist for tests and the demo only, so a test running in another process can see what the
 * service received. The service binds to loopback only.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import {
  APPLICATIONS, CAPTIVE_PORTAL_HTML, CUTOFF_TAIL, HOSTILE_TEXT, echoKeyPieces, echoKeySsePieces, STALL_PIECES, applicationRecord, bulkBytes, BULK_MAX_BYTES,
  createPrng, cutoffPrefix, demoAnswer, deriveKey, hostileMarkdown, isBulkLike, judgeVerdict, MALFORMED_VERDICT, loadApplications, requestSeed, splitIntoPieces,
  timedCode, timedList, timedMarkdown, timedTable, type DemoApplication,
} from './apps';
import { frameAnswer, isFramedApplication } from './framing';

export type { DemoApplication } from './apps';

/** How to start the reference service. */
export interface ServiceOptions {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default 127.0.0.1. Must be a loopback address. */
  host?: string;
  /** Mean delay between chunks for paced applications, in ms (default 30). */
  paceMs?: number;
  /** Keys (and chunking) derive from it (default 'demo'). */
  seed?: string;
  /** No per-request log lines on stdout. */
  quiet?: boolean;
  /** Origin `redirect` sends clients to (e.g. a capture server's URL); else a path of this service. */
  redirectTarget?: string;
  /** How long `slow-headers` waits before its headers (default 30 000 ms). */
  slowHeadersMs?: number;
  /** Adds this many load applications, `load-01`… (default 0; see `loadApplications`). */
  loadApplications?: number;
}

/** One request as the service received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query string, as sent. */
  path: string;
  /** All request headers, `authorization` included (tests check which key was sent). */
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 (the first 4 MiB; see `bodyTruncated`). */
  body: string;
  bodyTruncated?: boolean;
  /** Set for `/api/applications/{id}…` paths. */
  applicationId?: string;
  /** Epoch ms when the request arrived. */
  at: number;
  /** The status the service answered with, once it sent headers. */
  status?: number;
  /** When the client closed the socket before the response was complete, if it did. */
  closedByClientAt?: number;
  /** `timed` only: the unique marker its answer starts with. */
  marker?: string;
  /** `timed` only: epoch ms just before the first body byte (the marker) was written to the socket. */
  firstBodyByteAt?: number;
  /** `timed` only: epoch ms when the last body byte had been handed to the socket (the response's `finish`). */
  lastBodyByteAt?: number;
}

/** A running reference service. */
export interface ReferenceService {
  /** E.g. http://127.0.0.1:43123 (no trailing slash). */
  readonly url: string;
  readonly applications: readonly DemoApplication[];
  /** The valid key of that application (throws for ids the service does not have). */
  keyFor(applicationId: string): string;
  /** Everything received, in arrival order (control routes excepted). */
  readonly requests: RecordedRequest[];
  /** Closes the server and every open socket. */
  close(): Promise<void>;
}

/** A running capture server: answers every request 200 "captured" and records it. */
export interface CaptureServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_RECORDED_BODY_BYTES = 4 * 1024 * 1024;
const WRITE_BATCH = 256;
const BULK_CACHE_ENTRIES = 4;

/** Whether a host name or address is loopback (the only kind the service binds to). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Per-request state shared by the handlers. */
interface Exchange {
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
  readonly record: RecordedRequest;
  /** Aborted when the response's connection closes, for whatever reason. */
  readonly signal: AbortSignal;
  /** The server itself is breaking the connection: not a client close. */
  serverCut: boolean;
}

interface Listener {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

async function listen(handler: http.RequestListener, port: number, host: string): Promise<Listener> {
  if (!isLoopbackHost(host)) {
    throw new Error(`Refusing to listen on ${host}: the reference service binds to loopback hosts only.`);
  }
  const server = http.createServer({ noDelay: true, keepAliveTimeout: 5000 }, handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    server,
    url: `http://${urlHost}:${address.port}`,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) {
          s.destroy();
        }
      });
      return closing;
    },
  };
}

async function readBody(req: http.IncomingMessage): Promise<{ bytes: Buffer; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      tooLarge = true;
    } else {
      chunks.push(chunk);
    }
  }
  return { bytes: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge };
}

function newRecord(req: http.IncomingMessage): RecordedRequest {
  const path = req.url ?? '/';
  const record: RecordedRequest = { method: req.method ?? 'GET', path, headers: { ...req.headers }, body: '', at: Date.now() };
  const m = /^\/api\/applications\/([^/?#]+)/.exec(path);
  if (m) {
    try {
      record.applicationId = decodeURIComponent(m[1]);
    } catch {
      record.applicationId = m[1];
    }
  }
  return record;
}

function setBody(record: RecordedRequest, bytes: Buffer): void {
  if (bytes.length > MAX_RECORDED_BODY_BYTES) {
    record.body = bytes.subarray(0, MAX_RECORDED_BODY_BYTES).toString('utf8');
    record.bodyTruncated = true;
  } else {
    record.body = bytes.toString('utf8');
  }
}

function begin(ex: Exchange, status: number, headers: Record<string, string>): void {
  ex.record.status = status;
  ex.res.writeHead(status, headers);
}

function sendJson(ex: Exchange, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value, null, 2);
  begin(ex, status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  ex.res.end(body);
}

function sendText(ex: Exchange, status: number, contentType: string, text: string | Buffer, headers: Record<string, string> = {}): void {
  begin(ex, status, { 'Content-Type': contentType, 'Cache-Control': 'no-store', ...headers });
  ex.res.end(text);
}

/** Waits `ms` (or one turn of the event loop when ms ≤ 0); false if the connection closed meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) {
    return false;
  }
  if (ms <= 0) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return !signal.aborted;
  }
  try {
    await sleepTimer(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function waitDrain(ex: Exchange): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean): void => {
      ex.res.off('drain', onDrain);
      ex.signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = (): void => done(true);
    const onAbort = (): void => done(false);
    ex.res.on('drain', onDrain);
    ex.signal.addEventListener('abort', onAbort);
  });
}

async function write(ex: Exchange, data: string | Buffer): Promise<boolean> {
  if (ex.signal.aborted) {
    return false;
  }
  return ex.res.write(data) || waitDrain(ex);
}

/** Writes each piece as its own chunk, `paceMs` apart on average (seeded jitter), then ends. */
async function streamPaced(ex: Exchange, pieces: readonly (string | Buffer)[], paceMs: number, prngSeed: string): Promise<void> {
  const random = createPrng(`${prngSeed}\u0000pace`);
  for (let i = 0; i < pieces.length; i++) {
    if (!(await write(ex, pieces[i]))) {
      return;
    }
    if (i < pieces.length - 1 && !(await pause(Math.round(paceMs * (0.5 + random())), ex.signal))) {
      return;
    }
  }
  ex.res.end();
}

/** Writes `data` in `chunkBytes` chunks (byte boundaries, so characters split); fast when unpaced. */
async function streamBytes(ex: Exchange, data: Buffer, chunkBytes: number, paceMs: number, ended?: () => void): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    if (ex.signal.aborted) {
      return;
    }
    if (paceMs > 0) {
      if (!(await write(ex, data.subarray(offset, offset + chunkBytes)))) {
        return;
      }
      offset += chunkBytes;
      if (offset < data.length && !(await pause(paceMs, ex.signal))) {
        return;
      }
      continue;
    }
    // Unpaced: batch many small chunks into one socket write, still one HTTP chunk each.
    ex.res.cork();
    let ok = true;
    for (let n = 0; n < WRITE_BATCH && ok && offset < data.length; n++) {
      ok = ex.res.write(data.subarray(offset, offset + chunkBytes));
      offset += chunkBytes;
    }
    ex.res.uncork();
    if (!(ok ? await pause(0, ex.signal) : await waitDrain(ex))) {
      return;
    }
  }
  ex.res.end();
  ended?.();
}

/** Splits some frames in two at a seeded byte offset, so frames (and characters) straddle chunks. */
function splitSomeFrames(frames: readonly string[], prngSeed: string): Buffer[] {
  const random = createPrng(`${prngSeed}\u0000split`);
  const out: Buffer[] = [];
  for (const frame of frames) {
    const bytes = Buffer.from(frame, 'utf8');
    if (bytes.length > 1 && random() < 0.25) {
      const at = 1 + Math.floor(random() * (bytes.length - 1));
      out.push(bytes.subarray(0, at), bytes.subarray(at));
    } else {
      out.push(bytes);
    }
  }
  return out;
}

function intOption(body: Record<string, unknown>, field: string, fallback: number, min: number, max: number): number | string {
  const v = body[field];
  if (v === undefined) {
    return fallback;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    return `"${field}" must be an integer from ${min} to ${max}`;
  }
  return v;
}

const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' };

/** Starts the reference service on loopback. */
export async function startService(options: ServiceOptions = {}): Promise<ReferenceService> {
  const seed = options.seed ?? 'demo';
  const paceMs = Math.max(0, options.paceMs ?? 30);
  const slowHeadersMs = Math.max(0, options.slowHeadersMs ?? 30_000);
  const quiet = options.quiet ?? false;
  const requests: RecordedRequest[] = [];
  const applications: readonly DemoApplication[] = Object.freeze([...APPLICATIONS, ...loadApplications(options.loadApplications ?? 0)]);
  const findApplication = (id: string): DemoApplication | undefined => applications.find((a) => a.id === id);
  const keys = new Map<string, string>(applications.map((a) => [a.id, deriveKey(seed, a.id)]));
  const appByKey = new Map<string, string>([...keys].map(([id, key]) => [key, id]));
  const bulkCache = new Map<number, Buffer>();
  const timedCache = new Map<string, Buffer>();
  let markers = 0;
  let origin = '';
  let closing = false;

  const log = (line: string): void => {
    if (!quiet) {
      process.stdout.write(`[service] ${line}\n`);
    }
  };

  const cachedBulk = (size: number): Buffer => {
    let data = bulkCache.get(size);
    if (!data) {
      data = bulkBytes(size);
      if (bulkCache.size >= BULK_CACHE_ENTRIES) {
        bulkCache.delete(bulkCache.keys().next().value as number);
      }
      bulkCache.set(size, data);
    }
    return data;
  };

  /** The application id a request's key belongs to, or the 401 message. */
  const authenticate = (req: http.IncomingMessage): { appId: string } | { error: string } => {
    const header = req.headers.authorization;
    if (header === undefined || header === '') {
      return { error: 'Missing Authorization header: send "Authorization: Bearer <API key>".' };
    }
    const m = /^Bearer +(\S+)$/i.exec(header);
    if (!m) {
      return { error: 'Malformed Authorization header: expected "Bearer <API key>".' };
    }
    const appId = appByKey.get(m[1]);
    if (appId === undefined) {
      return { error: 'The API key is not valid. Generate a key in the dashboard: Applications → your application → API Keys.' };
    }
    if (appId === 'fail-401') {
      return { error: 'This API key has been revoked.' };
    }
    return { appId };
  };

  const control = async (req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> => {
    await readBody(req);
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify(value));
    };
    if (path === '/__control/requests' && req.method === 'GET') {
      json(200, requests);
    } else if (path === '/__control/reset' && req.method === 'POST') {
      requests.length = 0;
      json(200, { ok: true });
    } else if (path === '/__control/keys' && req.method === 'GET') {
      json(200, Object.fromEntries(keys));
    } else if (path === '/__control/applications' && req.method === 'GET') {
      json(200, applications);
    } else {
      json(404, { error: 'Unknown control route' });
    }
  };

  const runApplication = async (ex: Exchange, app: DemoApplication, raw: Buffer, body: Record<string, unknown>): Promise<void> => {
    const rseed = requestSeed(seed, body);
    switch (isBulkLike(app.id) ? 'bulk' : app.id) {
      case 'demo-assistant':
        begin(ex, 200, TEXT_HEADERS);
        return streamPaced(ex, splitIntoPieces(demoAnswer(body), rseed), paceMs, rseed);
      case 'hostile':
        begin(ex, 200, TEXT_HEADERS);
        return streamPaced(ex, splitIntoPieces(hostileMarkdown(origin), rseed), paceMs, rseed);
      case 'hostile-sse-error': {
        begin(ex, 200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
        for (const piece of ['The answer starts, ', 'goes on, ', 'and then: ']) {
          if (!(await write(ex, `data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`)) || !(await pause(paceMs, ex.signal))) return;
        }
        await write(ex, `event: error\ndata: ${JSON.stringify({ message: HOSTILE_TEXT })}\n\n`);
        ex.res.end();
        return;
      }
      case 'hostile-tail': {
        begin(ex, 200, TEXT_HEADERS);
        if (!(await write(ex, `An answer that ends with something to click: ${HOSTILE_TEXT}`)) || !(await pause(8000, ex.signal))) return;
        await write(ex, '\n');
        ex.res.end();
        return;
      }
      case 'echo-key': {
        begin(ex, 200, TEXT_HEADERS);
        const key = /^Bearer +(\S+)$/i.exec(ex.req.headers.authorization ?? '')?.[1] ?? '';
        for (const piece of echoKeyPieces(key)) {
          if (!(await write(ex, piece)) || !(await pause(300, ex.signal))) return;
        }
        ex.res.end();
        return;
      }
      case 'echo-key-sse': {
        begin(ex, 200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
        const key = /^Bearer +(\S+)$/i.exec(ex.req.headers.authorization ?? '')?.[1] ?? '';
        for (const piece of echoKeySsePieces(key)) {
          if (!(await write(ex, `data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`)) || !(await pause(100, ex.signal))) return;
        }
        await write(ex, 'data: [DONE]\n\n');
        ex.res.end();
        return;
      }
      case 'echo-key-401': {
        const key = /^Bearer +(\S+)$/i.exec(ex.req.headers.authorization ?? '')?.[1] ?? '';
        begin(ex, 401, TEXT_HEADERS);
        ex.res.end(`Invalid API key ${key.slice(0, 20)}, check your dashboard.`);
        return;
      }
      case 'backslashes': {
        const size = intOption(body, 'size', 48 * 1024, 0, BULK_MAX_BYTES);
        if (typeof size === 'string') return sendJson(ex, 400, { error: size });
        begin(ex, 200, TEXT_HEADERS);
        return streamBytes(ex, Buffer.alloc(size, 0x5c), 4096, 0);
      }
      case 'echo': {
        const chunk = intOption(body, '__chunkBytes', 7, 1, 1024 * 1024);
        const pace = intOption(body, '__paceMs', 0, 0, 60_000);
        if (typeof chunk === 'string' || typeof pace === 'string') {
          return sendJson(ex, 400, { error: typeof chunk === 'string' ? chunk : pace });
        }
        begin(ex, 200, TEXT_HEADERS);
        return streamBytes(ex, raw, chunk, pace);
      }
      case 'bulk': {
        const size = intOption(body, 'size', 1024 * 1024, 0, BULK_MAX_BYTES);
        const chunk = intOption(body, 'chunkBytes', 64, 1, 16 * 1024 * 1024);
        const pace = intOption(body, 'paceMs', 0, 0, 60_000);
        if (typeof size === 'string' || typeof chunk === 'string' || typeof pace === 'string') {
          return sendJson(ex, 400, { error: [size, chunk, pace].find((v) => typeof v === 'string') });
        }
        begin(ex, 200, TEXT_HEADERS);
        return streamBytes(ex, cachedBulk(size), chunk, pace);
      }
      case 'timed': {
        const delay = intOption(body, 'delayMs', 250, 0, 60_000);
        const size = intOption(body, 'size', 0, 0, BULK_MAX_BYTES);
        const chunk = intOption(body, 'chunkBytes', 16 * 1024, 1, 16 * 1024 * 1024);
        const pace = intOption(body, 'paceMs', 0, 0, 60_000);
        const shape = body.shape ?? 'sections';
        if (typeof delay === 'string' || typeof size === 'string' || typeof chunk === 'string' || typeof pace === 'string') {
          return sendJson(ex, 400, { error: [delay, size, chunk, pace].find((v) => typeof v === 'string') });
        }
        const shapes = { sections: timedMarkdown, code: timedCode, list: timedList, table: timedTable };
        if (typeof shape !== 'string' || !Object.hasOwn(shapes, shape)) {
          return sendJson(ex, 400, { error: 'shape must be "sections", "code", "list" or "table"' });
        }
        const cacheKey = `${shape}:${size}`;
        let rest = timedCache.get(cacheKey);
        if (rest === undefined) {
          timedCache.clear();
          rest = Buffer.from(shapes[shape as keyof typeof shapes](size), 'utf8');
          timedCache.set(cacheKey, rest);
        }
        begin(ex, 200, TEXT_HEADERS);
        // Headers on the wire now; the body starts after the delay, so a client has settled.
        ex.res.flushHeaders();
        if (!(await pause(delay, ex.signal))) {
          return;
        }
        const marker = `aq-mark-${++markers}`;
        ex.record.marker = marker;
        // The last byte left when the response ended, if the socket took all of it then; else when
        // it was flushed ('finish'). 'finish' alone comes when this process's event loop gets to
        // it: with a bench's browser driving in the same process, up to tens of milliseconds
        // late (a code block's last byte → final DOM once came out at -15 ms).
        ex.res.once('finish', () => {
          ex.record.lastBodyByteAt ??= Date.now();
        });
        ex.record.firstBodyByteAt = Date.now();
        if (!(await write(ex, `${marker}\n\n`))) {
          return;
        }
        return streamBytes(ex, rest, chunk, pace, () => {
          if (ex.res.writableLength === 0) ex.record.lastBodyByteAt = Date.now();
        });
      }
      case 'fail-429':
        return sendJson(ex, 429, { error: 'Rate limit exceeded: too many requests for this application. Try again in 7 seconds.' }, { 'Retry-After': '7' });
      case 'fail-503': {
        const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10_000);
        return sendJson(ex, 503, { error: 'The service is down for maintenance.' }, { 'Retry-After': at.toUTCString() });
      }
      case 'judge': {
        // A judge's template may ask for a slower answer ("paceMs"), for tests that stop a run while it grades.
        const pace = intOption(body, 'paceMs', paceMs, 0, 60_000);
        if (typeof pace === 'string') return sendJson(ex, 400, { error: pace });
        begin(ex, 200, TEXT_HEADERS);
        return streamPaced(ex, splitIntoPieces(judgeVerdict(body), rseed), pace, rseed);
      }
      case 'judge-malformed':
        begin(ex, 200, TEXT_HEADERS);
        return streamPaced(ex, splitIntoPieces(MALFORMED_VERDICT, rseed), paceMs, rseed);
      case 'judge-broken':
        return sendJson(ex, 500, { error: 'Internal server error: the grading model is unavailable.' });
      case 'fail-500':
        return sendJson(ex, 500, { error: 'Internal server error: the model backend crashed.', requestId: 'req-reference-500' });
      case 'html':
        return sendText(ex, 200, 'text/html; charset=utf-8', CAPTIVE_PORTAL_HTML);
      case 'redirect': {
        const target = options.redirectTarget !== undefined
          ? `${options.redirectTarget.replace(/\/+$/, '')}/api/applications/redirect/query`
          : `${origin}/redirected/api/applications/redirect/query`;
        return sendJson(ex, 307, { error: 'This application has moved.', location: target }, { Location: target });
      }
      case 'cutoff': {
        begin(ex, 200, TEXT_HEADERS);
        const prefix = Buffer.from(cutoffPrefix(body), 'utf8');
        const pieces: Buffer[] = [];
        for (let at = 0; at < prefix.length; at += 128) {
          pieces.push(prefix.subarray(at, at + 128));
        }
        const random = createPrng(`${rseed}\u0000pace`);
        for (const piece of pieces) {
          if (!(await write(ex, piece)) || !(await pause(Math.round(paceMs * (0.5 + random())), ex.signal))) {
            return;
          }
        }
        // Once the torn character has reached the socket, break the stream (FIN, no terminating chunk).
        await new Promise<void>((resolve) => ex.res.write(CUTOFF_TAIL, () => resolve()));
        ex.serverCut = true;
        ex.req.socket.destroySoon();
        return;
      }
      case 'stall': {
        begin(ex, 200, TEXT_HEADERS);
        for (const piece of splitIntoPieces(demoAnswer(body), rseed).slice(0, STALL_PIECES)) {
          if (!(await write(ex, piece))) {
            return;
          }
        }
        // Silence until the client gives up (or the service closes).
        await new Promise<void>((resolve) => {
          if (ex.signal.aborted) {
            resolve();
          }
          ex.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        return;
      }
      case 'slow-headers':
        if (!(await pause(slowHeadersMs, ex.signal))) {
          return;
        }
        begin(ex, 200, TEXT_HEADERS);
        return streamPaced(ex, splitIntoPieces(demoAnswer(body), rseed), paceMs, rseed);
      case 'bad-chunk': {
        // Bypass node:http to put broken framing on the wire.
        ex.serverCut = true;
        ex.record.status = 200;
        const socket = ex.req.socket;
        const rawChunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
        const answer = demoAnswer(body);
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n');
        socket.write(rawChunk(answer.slice(0, 40)));
        if (!(await pause(paceMs, ex.signal))) {
          return;
        }
        socket.write(rawChunk(answer.slice(40, 80)));
        if (!(await pause(paceMs, ex.signal))) {
          return;
        }
        socket.write('zz-not-hex\r\nthis is not a valid chunk\r\n');
        socket.end();
        return;
      }
      default: {
        if (isFramedApplication(app.id)) {
          const framed = frameAnswer(app.id, splitIntoPieces(demoAnswer(body), rseed));
          begin(ex, 200, { ...framed.headers, 'X-Accel-Buffering': 'no' });
          return streamPaced(ex, splitSomeFrames(framed.frames, rseed), paceMs, rseed);
        }
        return sendJson(ex, 500, { error: `Application ${app.id} has no behaviour` });
      }
    }
  };

  const handleApplicationRoute = async (ex: Exchange, idSegment: string, isQuery: boolean, raw: Buffer, tooLarge: boolean): Promise<void> => {
    let id: string;
    try {
      id = decodeURIComponent(idSegment);
    } catch {
      return sendJson(ex, 400, { error: 'The application id in the path is not valid percent-encoding.' });
    }
    const app = findApplication(id);
    if (!app) {
      return sendJson(ex, 404, { error: 'Application not found' });
    }
    const allowed = isQuery ? 'POST' : 'GET';
    if (ex.req.method !== allowed) {
      return sendJson(ex, 405, { error: `Method ${ex.req.method ?? '?'} not allowed here; use ${allowed}.` }, { Allow: allowed });
    }
    const auth = authenticate(ex.req);
    if ('error' in auth) {
      return sendJson(ex, 401, { error: auth.error }, { 'WWW-Authenticate': 'Bearer' });
    }
    if (app.id === 'fail-401') {
      return sendJson(ex, 401, { error: 'The API keys of this application have been revoked. Generate a new key in the dashboard.' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
    if (auth.appId !== app.id) {
      return sendJson(ex, 403, { error: `This API key belongs to another application and cannot access "${app.id}".` });
    }
    if (app.id === 'hostile-401') {
      return sendJson(ex, 401, { error: HOSTILE_TEXT });
    }
    if (app.id === 'hostile-500') {
      return sendJson(ex, 500, { error: HOSTILE_TEXT });
    }
    if (!isQuery) {
      return sendJson(ex, 200, applicationRecord(app));
    }
    const contentType = (ex.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== 'application/json') {
      return sendJson(ex, 415, { error: 'Content-Type must be application/json.' });
    }
    if (tooLarge) {
      return sendJson(ex, 413, { error: `The request body is larger than ${MAX_BODY_BYTES} bytes.` });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendJson(ex, 400, { error: 'The request body is not valid JSON.' });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return sendJson(ex, 400, { error: 'The request body must be a JSON object.' });
    }
    return runApplication(ex, app, raw, body as Record<string, unknown>);
  };

  const handleApiGet = (ex: Exchange, endpoint: string): void => {
    if (ex.req.method !== 'GET') {
      return sendJson(ex, 405, { error: 'Use GET for this endpoint.' }, { Allow: 'GET' });
    }
    const auth = authenticate(ex.req);
    if ('error' in auth) {
      return sendJson(ex, 401, { error: auth.error }, { 'WWW-Authenticate': 'Bearer' });
    }
    switch (endpoint) {
      case 'me':
        return sendJson(ex, 200, { application: auth.appId, applications: applications.map((a) => a.id) });
      case 'health':
        return sendJson(ex, 200, { status: 'ok', applications: applications.length });
      case 'applications':
        return sendJson(ex, 200, applications.map(applicationRecord));
      case 'not-json':
        return sendText(ex, 200, 'text/html; charset=utf-8', CAPTIVE_PORTAL_HTML);
      default:
        return sendJson(ex, 404, { error: `Unknown endpoint: /api/${endpoint}` });
    }
  };

  const route = async (ex: Exchange, path: string, raw: Buffer, tooLarge: boolean): Promise<void> => {
    const appRoute = /^\/api\/applications\/([^/]+)(\/query)?$/.exec(path);
    if (appRoute) {
      return handleApplicationRoute(ex, appRoute[1], appRoute[2] !== undefined, raw, tooLarge);
    }
    if (path.startsWith('/api/')) {
      return handleApiGet(ex, path.slice('/api/'.length));
    }
    if (path === '/' && ex.req.method === 'GET') {
      return sendText(ex, 200, 'text/plain; charset=utf-8',
        'Application Query reference service.\nPOST /api/applications/{id}/query with Authorization: Bearer <key>.\n');
    }
    if (path.startsWith('/__hostile/')) {
      // What hostile markdown tries to load: answered (and recorded) so a leak is observable.
      return path.endsWith('.png')
        ? sendText(ex, 200, 'image/png', Buffer.from(TRANSPARENT_PNG, 'base64'))
        : sendText(ex, 200, 'text/plain; charset=utf-8', 'hostile probe');
    }
    if (path.startsWith('/redirected/')) {
      return sendText(ex, 200, 'text/plain; charset=utf-8', 'You followed a redirect; a client should not have.\n');
    }
    return sendJson(ex, 404, { error: 'Not found' });
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path.startsWith('/__control/')) {
      return control(req, res, path);
    }
    const record = newRecord(req);
    requests.push(record);
    const aborter = new AbortController();
    const ex: Exchange = { req, res, record, signal: aborter.signal, serverCut: false };
    const started = Date.now();
    res.on('close', () => {
      const early = !res.writableFinished && !ex.serverCut && !closing;
      if (early) {
        record.closedByClientAt = Date.now();
      }
      aborter.abort();
      log(`${record.method} ${record.path} → ${record.status ?? '-'} in ${Date.now() - started} ms${early ? ' (closed by client)' : ''}${ex.serverCut ? ' (cut by server)' : ''}`);
    });
    const { bytes, tooLarge } = await readBody(req);
    setBody(record, bytes);
    await route(ex, path, bytes, tooLarge);
  };

  const listener = await listen((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`handler failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: 'Internal error in the reference service' }));
      } else {
        res.destroy();
      }
    });
  }, options.port ?? 0, options.host ?? '127.0.0.1');
  origin = listener.url;

  return {
    url: listener.url,
    applications,
    keyFor(applicationId: string): string {
      const key = keys.get(applicationId);
      if (key === undefined) {
        throw new Error(`The reference service has no application "${applicationId}"`);
      }
      return key;
    },
    requests,
    close: () => {
      closing = true;
      return listener.close();
    },
  };
}

/** Starts a second-origin server that records every request and answers 200 "captured". */
export async function startCaptureServer(options: { port?: number; host?: string } = {}): Promise<CaptureServer> {
  const requests: RecordedRequest[] = [];
  const listener = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const record = path.startsWith('/__control/') ? undefined : newRecord(req);
    if (record) {
      requests.push(record);
    }
    res.on('close', () => {
      if (record && !res.writableFinished) {
        record.closedByClientAt = Date.now();
      }
    });
    readBody(req).then(({ bytes }) => {
      if (!record) {
        const status = path === '/__control/requests' && req.method === 'GET' ? 200
          : path === '/__control/reset' && req.method === 'POST' ? 200 : 404;
        if (status === 200 && path === '/__control/reset') {
          requests.length = 0;
        }
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(status === 404 ? { error: 'Unknown control route' } : path === '/__control/reset' ? { ok: true } : requests));
        return;
      }
      setBody(record, bytes);
      record.status = 200;
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('captured');
    }).catch(() => res.destroy());
  }, options.port ?? 0, options.host ?? '127.0.0.1');
  return { url: listener.url, requests, close: () => listener.close() };
}

// A 1×1 transparent PNG: what the hostile answer's remote images get, if a client ever loads them.
const TRANSPARENT_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
