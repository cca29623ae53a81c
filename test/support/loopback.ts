import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as net from 'node:net';

/** A request as the test server saw it. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The raw header lines, exactly as sent (name, value, name, value…). */
  readonly rawHeaders: readonly string[];
  readonly body: string;
}

/** Handles one request; the body has been read already. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void | Promise<void>;

/** A loopback HTTP server on an ephemeral port that records what it receives. */
export interface TestServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** How many requests saw their connection close before the response was finished. */
  readonly closedEarly: () => number;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1:0 that reads each request body and then calls `handler`. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let closedEarly = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body });
      res.on('close', () => {
        if (!res.writableFinished) {
          closedEarly++;
        }
      });
      Promise.resolve(handler(req, res, body)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    closedEarly: () => closedEarly,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) {
          socket.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Writes `data` and resolves once it was handed to the socket (so separate writes stay separate chunks). */
export function writeChunk(res: http.ServerResponse, data: string | Uint8Array): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    res.write(data, (error) => (error ? reject(error) : resolve()));
  });
}

/** Waits until `condition` holds, polling; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for: ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Iterates to the end, keeping the pieces and the error (if any) instead of throwing. */
export async function collect(iterable: AsyncIterable<string>): Promise<{ pieces: string[]; text: string; error: unknown }> {
  const pieces: string[] = [];
  let error: unknown;
  try {
    for await (const piece of iterable) {
      pieces.push(piece);
    }
  } catch (caught) {
    error = caught;
  }
  return { pieces, text: pieces.join(''), error };
}

/** An async iterable over the given items, one per tick. */
export async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) {
    await Promise.resolve();
    yield item;
  }
}
