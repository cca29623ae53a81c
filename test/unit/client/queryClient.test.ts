import * as assert from 'node:assert/strict';
import type * as http from 'node:http';
import {
  StoppedError,
  HttpStatusError,
  NetworkError,
  QueryError,
  RedirectError,
  StreamFormatError,
  StreamInterruptedError,
  TimeoutError,
  UnexpectedContentError,
} from '../../../src/client/errors';
import { queryUrl } from '../../../src/shared/baseUrl';
import { QUERY_ACCEPT, sendQuery, type QueryRequest, type QueryResponse } from '../../../src/client/queryClient';
import { closedPort, collect, startServer, waitFor, writeChunk, type TestServer } from '../../support/loopback';

const KEY = 'sk-test-Secret-1234';
const encoder = new TextEncoder();
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Route = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void | Promise<void>;

/** Every error the client produces must be free of the key, in its message and its excerpt. */
function assertNoKey(error: unknown): void {
  assert.ok(error instanceof Error, `expected an Error, got ${String(error)}`);
  assert.ok(!error.message.includes(KEY), `the key leaked into: ${error.message}`);
  assert.ok(!String(error.stack).includes(KEY), 'the key leaked into the stack');
  if (error instanceof HttpStatusError) {
    assert.ok(!error.bodyExcerpt.includes(KEY), `the key leaked into the excerpt: ${error.bodyExcerpt}`);
  }
  if (error instanceof RedirectError) {
    assert.ok(!String(error.location).includes(KEY));
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    assertNoKey(error);
    return error;
  }
  assert.fail('expected the request to fail');
}

describe('queryClient', () => {
  let server: TestServer;
  let route: Route;

  before(async () => {
    server = await startServer((req, res, body) => route(req, res, body));
  });

  after(async () => {
    await server.close();
  });

  let closedBefore = 0;
  /** Connections the server saw closed before its response finished, during this test. */
  const closedEarly = (): number => server.closedEarly() - closedBefore;

  beforeEach(() => {
    server.requests.length = 0;
    closedBefore = server.closedEarly();
    route = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
    };
  });

  function query(overrides: Partial<QueryRequest> = {}): Promise<QueryResponse> {
    return sendQuery({ baseUrl: server.url, applicationId: 'app-1', apiKey: KEY, body: { query: 'hi' }, ...overrides });
  }

  describe('the request', () => {
    it('POSTs the exact headers and JSON body to the encoded application URL', async () => {
      const body = { query: 'Quote " backslash \\ newline \n unicode é 😀 ${file}', n: 1, nested: [true, null] };
      const response = await query({ applicationId: 'team/app name?#é', body });
      const { text } = await collect(response.text);
      assert.equal(text, 'ok');
      assert.equal(server.requests.length, 1);
      const request = server.requests[0];
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/api/applications/team%2Fapp%20name%3F%23%C3%A9/query');
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['authorization'], `Bearer ${KEY}`);
      assert.equal(request.headers['accept'], QUERY_ACCEPT);
      assert.equal(QUERY_ACCEPT, 'text/plain, text/event-stream, application/x-ndjson, application/json;q=0.9, */*;q=0.8');
      assert.equal(request.body, JSON.stringify(body));
      assert.deepEqual(JSON.parse(request.body), body);
      assert.equal(response.url, `${server.url}/api/applications/team%2Fapp%20name%3F%23%C3%A9/query`);
    });

    it('keeps a path prefix of the base URL', async () => {
      await collect((await query({ baseUrl: `${server.url}/gateway/v2/` })).text);
      assert.equal(server.requests[0].url, '/gateway/v2/api/applications/app-1/query');
    });

    it('builds the query URL the same way for display', () => {
      assert.equal(queryUrl('https://s.example/p/', 'a b/c'), 'https://s.example/p/api/applications/a%20b%2Fc/query');
    });

    it('uses the given fetch', async () => {
      let calls = 0;
      const fetchImpl: typeof fetch = (input, init) => {
        calls++;
        return fetch(input, init);
      };
      await collect((await query({ fetchImpl })).text);
      assert.equal(calls, 1);
    });

    it('refuses bad settings before sending anything, without naming the key', async () => {
      const cases: Array<Partial<QueryRequest>> = [
        { baseUrl: '' },
        { baseUrl: 'http://remote.example.com' },
        { applicationId: '' },
        { applicationId: '..' },
        { apiKey: `${KEY} ` },
        { apiKey: `${KEY}\n` },
        { apiKey: '' },
      ];
      for (const overrides of cases) {
        const error = await rejection(query(overrides));
        assert.ok(error instanceof QueryError);
        assert.equal(error.kind, 'config', JSON.stringify(overrides));
      }
      assert.equal(server.requests.length, 0);
    });
  });

  describe('statuses', () => {
    it('streams a 2xx answer and reports status, type and format', async () => {
      route = (_req, res) => {
        res.writeHead(201, 'Created', { 'Content-Type': 'text/plain' });
        res.end('made');
      };
      const response = await query();
      assert.equal(response.status, 201);
      assert.equal(response.statusText, 'Created');
      assert.equal(response.contentType, 'text/plain');
      assert.equal(response.format, 'text');
      assert.equal((await collect(response.text)).text, 'made');
      assert.equal(response.bytesReceived(), 4);
    });

    it('treats 204 as an empty answer', async () => {
      route = (_req, res) => {
        res.writeHead(204);
        res.end();
      };
      const response = await query();
      const { pieces, error } = await collect(response.text);
      assert.equal(error, undefined);
      assert.deepEqual(pieces, []);
    });

    for (const status of [301, 302, 303, 307, 308]) {
      it(`does not follow a ${status} redirect and names its target`, async () => {
        const elsewhere = await startServer((_req, res) => {
          res.end('should never be reached');
        });
        try {
          route = (_req, res) => {
            res.writeHead(status, { Location: `${elsewhere.url}/api/applications/app-1/query` });
            res.end();
          };
          const error = await rejection(query());
          assert.ok(error instanceof RedirectError);
          assert.equal(error.kind, 'redirect');
          assert.equal(error.status, status);
          assert.equal(error.location, `${elsewhere.url}/api/applications/app-1/query`);
          assert.match(error.message, new RegExp(`HTTP ${status}`));
          assert.ok(error.message.includes(elsewhere.url));
          assert.equal(elsewhere.requests.length, 0, 'the redirect target received a request');
        } finally {
          await elsewhere.close();
        }
      });
    }

    it('resolves a relative redirect target', async () => {
      route = (_req, res) => {
        res.writeHead(302, { Location: '/login?next=%2F' });
        res.end();
      };
      const error = await rejection(query());
      assert.ok(error instanceof RedirectError);
      assert.equal(error.location, `${server.url}/login?next=%2F`);
    });

    it('reports a 304 as a misplaced cache answer, not as a redirect to an unnamed place', async () => {
      route = (_req, res) => {
        res.writeHead(304);
        res.end();
      };
      const error = await rejection(query());
      assert.ok(error instanceof HttpStatusError, String(error));
      assert.equal(error.status, 304);
      assert.match(error.message, /^HTTP 304 Not Modified: .*not modified.*no cache is used/);
      assert.doesNotMatch(error.message, /unnamed/);
    });

    it('reports 4xx with the status, its meaning and a plain excerpt of the body', async () => {
      route = (_req, res) => {
        res.writeHead(401, 'Unauthorized', { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Invalid API key\u0007 provided.', type: 'auth' } }));
      };
      const error = await rejection(query());
      assert.ok(error instanceof HttpStatusError);
      assert.equal(error.kind, 'http');
      assert.equal(error.status, 401);
      assert.equal(error.statusText, 'Unauthorized');
      assert.equal(error.bodyExcerpt, 'Invalid API key provided.');
      assert.match(error.message, /^HTTP 401 Unauthorized: The API key is missing or not valid/);
      assert.equal(error.retryAfterMs, undefined);
    });

    it('reduces an HTML error page to its text', async () => {
      route = (_req, res) => {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end('<!DOCTYPE html><html><head><style>body{color:red}</style><script>var x=1</script></head><body><h1>502 Bad Gateway</h1><hr><center>nginx &amp; co</center></body></html>');
      };
      const error = await rejection(query());
      assert.ok(error instanceof HttpStatusError);
      assert.equal(error.status, 502);
      assert.equal(error.bodyExcerpt, '502 Bad Gateway nginx & co');
    });

    it('reads at most a bounded excerpt of a huge error body', async () => {
      let wrote = 0;
      route = async (_req, res) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        const block = 'x'.repeat(64 * 1024);
        // 16 MiB unless the client stops reading (it should, after 64 KiB).
        for (let i = 0; i < 256 && !res.destroyed; i++) {
          await writeChunk(res, block).catch(() => undefined);
          wrote++;
        }
        res.end();
      };
      const error = await rejection(query());
      assert.ok(error instanceof HttpStatusError);
      assert.equal(error.bodyExcerpt.length, 500);
      assert.ok(error.bodyExcerpt.endsWith('…'));
      await waitFor(() => closedEarly() > 0, 'the client to close the error body early');
      assert.ok(wrote < 256);
    });

    it('reads Retry-After in seconds on 429', async () => {
      route = (_req, res) => {
        res.writeHead(429, { 'Retry-After': '7', 'Content-Type': 'text/plain' });
        res.end('slow down');
      };
      const error = await rejection(query());
      assert.ok(error instanceof HttpStatusError);
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 7000);
      assert.match(error.message, /Too many requests/);
      assert.equal(error.bodyExcerpt, 'slow down');
    });

    it('reads Retry-After as an HTTP date on 429', async () => {
      route = (_req, res) => {
        res.writeHead(429, { 'Retry-After': new Date(Date.now() + 120_000).toUTCString() });
        res.end();
      };
      const error = await rejection(query());
      assert.ok(error instanceof HttpStatusError);
      // The date has whole-second precision and the clock moved on a little; 2 minutes, give or take.
      assert.ok(error.retryAfterMs !== undefined && error.retryAfterMs > 60_000 && error.retryAfterMs <= 120_000, String(error.retryAfterMs));
    });

    it('refuses an HTML page sent with 200 instead of an answer', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end('<html><body><form>Sign in to the Wi-Fi</form></body></html>');
      };
      const error = await rejection(query());
      assert.ok(error instanceof UnexpectedContentError);
      assert.equal(error.kind, 'unexpectedContent');
      assert.equal(error.contentType, 'text/html; charset=utf-8');
      assert.match(error.message, /HTML page \(a login page or captive portal\?\)/);
      assert.ok(!error.message.includes('Wi-Fi'), 'the page content is never shown');
    });
  });

  describe('streaming', () => {
    it('delivers one-byte chunks of multibyte text byte-exact, with the raw text alongside', async () => {
      const answer = 'Grüße, 世界! 😀 e\u0301 — done\n';
      const bytes = encoder.encode(answer);
      route = async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        for (const byte of bytes) {
          await writeChunk(res, Uint8Array.of(byte));
          await pause(1);
        }
        res.end();
      };
      const raw: string[] = [];
      const response = await query({ onRaw: (text) => raw.push(text) });
      const { pieces, text, error } = await collect(response.text);
      assert.equal(error, undefined);
      assert.equal(text, answer);
      assert.equal(raw.join(''), answer);
      assert.ok(pieces.every((piece) => piece !== '' && !piece.includes('\uFFFD')));
      assert.equal(response.bytesReceived(), bytes.length);
      assert.deepEqual(response.warnings, []);
    });

    it('keeps what arrived when the connection is cut midway, naming the bytes', async () => {
      const sent = 'partial answer é';
      route = async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        await writeChunk(res, sent);
        await pause(20);
        res.socket?.destroy();
      };
      const response = await query();
      const { text, error } = await collect(response.text);
      assertNoKey(error);
      assert.equal(text, sent);
      assert.ok(error instanceof StreamInterruptedError);
      assert.equal(error.kind, 'interrupted');
      assert.equal(error.bytesReceived, encoder.encode(sent).length);
      assert.match(error.message, new RegExp(`interrupted after ${encoder.encode(sent).length} bytes: `));
    });

    it('stops mid-stream on abort, keeps what arrived and closes the connection', async () => {
      route = async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        await writeChunk(res, 'first ');
        // Keep the stream open until the client goes away.
      };
      const controller = new AbortController();
      const response = await query({ signal: controller.signal });
      const pieces: string[] = [];
      let caught: unknown;
      try {
        for await (const piece of response.text) {
          pieces.push(piece);
          controller.abort();
        }
      } catch (error) {
        caught = error;
      }
      assert.deepEqual(pieces, ['first ']);
      assert.ok(caught instanceof StoppedError);
      assert.equal(caught.kind, 'stopped');
      await waitFor(() => closedEarly() === 1, 'the server to see the connection close');
    });

    it('closes the connection when the consumer stops reading early', async () => {
      route = async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        await writeChunk(res, 'one ');
      };
      const response = await query();
      for await (const piece of response.text) {
        assert.equal(piece, 'one ');
        break;
      }
      await waitFor(() => closedEarly() === 1, 'the server to see the connection close');
    });

    it('aborts before the headers arrive', async () => {
      route = () => {
        // Never answer.
      };
      const controller = new AbortController();
      const pending = query({ signal: controller.signal });
      await waitFor(() => server.requests.length === 1, 'the request to arrive');
      controller.abort();
      const error = await rejection(pending);
      assert.ok(error instanceof StoppedError);
      await waitFor(() => closedEarly() === 1, 'the server to see the connection close');
    });

    it('sends nothing when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const error = await rejection(query({ signal: controller.signal }));
      assert.ok(error instanceof StoppedError);
      assert.equal(server.requests.length, 0);
    });

    it('gives up waiting for headers after the headers timeout', async () => {
      route = () => {
        // Never answer.
      };
      const error = await rejection(query({ headersTimeoutMs: 200 }));
      assert.ok(error instanceof TimeoutError);
      assert.equal(error.phase, 'headers');
      assert.equal(error.seconds, 0.2);
      await waitFor(() => closedEarly() === 1, 'the server to see the connection close');
    });

    it('gives up when the body stalls for the idle timeout, keeping what arrived', async () => {
      route = async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        await writeChunk(res, 'before the stall');
      };
      const response = await query({ idleTimeoutMs: 200, headersTimeoutMs: 10_000 });
      const { text, error } = await collect(response.text);
      assert.equal(text, 'before the stall');
      assert.ok(error instanceof TimeoutError);
      assert.equal(error.phase, 'idle');
      await waitFor(() => closedEarly() === 1, 'the server to see the connection close');
    });

    it('does not count a slow consumer as a stalled service', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('all of it');
      };
      const response = await query({ idleTimeoutMs: 50 });
      await pause(300);
      const { text, error } = await collect(response.text);
      assert.equal(error, undefined);
      assert.equal(text, 'all of it');
    });

    it('warns when the answer ends in the middle of a character', async () => {
      const bytes = encoder.encode('cut 😀');
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(bytes.slice(0, bytes.length - 1));
      };
      const response = await query();
      const { text, error } = await collect(response.text);
      assert.equal(error, undefined);
      assert.equal(text, 'cut \uFFFD');
      assert.equal(response.warnings.length, 1);
      assert.match(response.warnings[0], /middle of a character/);
    });
  });

  describe('formats', () => {
    it('parses SSE announced by the content type', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"delta":{"content":"lo"}}]}\n\ndata: [DONE]\n\n');
      };
      const raw: string[] = [];
      const response = await query({ onRaw: (text) => raw.push(text) });
      assert.equal(response.format, 'sse');
      assert.equal((await collect(response.text)).text, 'Hello');
      assert.match(raw.join(''), /^data: \{"choices"/);
    });

    it('sniffs SSE sent without a content type, even one byte at a time', async () => {
      const stream = encoder.encode('data: {"text":"sni"}\n\ndata: {"text":"ffed é"}\n\n');
      route = async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        for (const byte of stream) {
          await writeChunk(res, Uint8Array.of(byte));
        }
        res.end();
      };
      const response = await query();
      assert.equal(response.format, 'sse');
      assert.equal((await collect(response.text)).text, 'sniffed é');
    });

    it('sniffs plain text without a content type and delivers it whole', async () => {
      route = (_req, res) => {
        res.removeHeader('Content-Type');
        res.writeHead(200);
        res.end('Just text, no type.');
      };
      const response = await query();
      assert.equal(response.format, 'text');
      assert.equal((await collect(response.text)).text, 'Just text, no type.');
    });

    it('parses NDJSON and warns when no event carried text', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
        res.end('{"weird":"a"}\n{"weird":"b"}\n');
      };
      const response = await query();
      assert.equal(response.format, 'ndjson');
      const { text, error } = await collect(response.text);
      assert.equal(error, undefined);
      assert.equal(text, '');
      assert.equal(response.warnings.length, 1);
      assert.match(response.warnings[0], /responseField/);
    });

    it('reads the configured field and honours an explicit format', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('{"weird":"a"}\n{"weird":"b"}\n');
      };
      const asNdjson = await query({ responseFormat: 'ndjson', responseField: 'weird' });
      assert.equal(asNdjson.format, 'ndjson');
      assert.equal((await collect(asNdjson.text)).text, 'ab');
      const asText = await query({ responseFormat: 'text' });
      assert.equal((await collect(asText.text)).text, '{"weird":"a"}\n{"weird":"b"}\n');
    });

    it('throws a stream error event as a StreamFormatError after the text before it', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(`data: {"text":"so far"}\n\nevent: error\ndata: {"message":"upstream failed for ${KEY}"}\n\n`);
      };
      const { text, error } = await collect((await query()).text);
      assert.equal(text, 'so far');
      assertNoKey(error);
      assert.ok(error instanceof StreamFormatError);
      assert.match(error.message, /upstream failed for ••••/);
    });
  });

  describe('charsets', () => {
    it('decodes the charset the service declares (ISO-8859-1), not UTF-8', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=ISO-8859-1' });
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xfc, 0x62, 0x65, 0x72]));
      };
      const response = await query();
      assert.equal((await collect(response.text)).text, 'café über');
      assert.deepEqual(response.warnings, []);
    });

    it('reads an unknown charset as UTF-8 and says so', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=x-martian' });
        res.end('hello');
      };
      const response = await query();
      assert.equal((await collect(response.text)).text, 'hello');
      assert.match(response.warnings.join(' '), /charset=x-martian.*read as UTF-8/);
    });
  });

  describe('network failures and secrecy', () => {
    it('names a refused connection', async () => {
      const port = await closedPort();
      const error = await rejection(query({ baseUrl: `http://127.0.0.1:${port}` }));
      assert.ok(error instanceof NetworkError);
      assert.equal(error.kind, 'network');
      assert.match(error.message, new RegExp(`^Could not connect to http://127\\.0\\.0\\.1:${port} \\(connection refused\\)`));
    });

    it('never puts the key in an error, even when the service echoes it', async () => {
      const echoes: Route[] = [
        (_req, res) => {
          res.writeHead(401, { 'Content-Type': 'text/plain' });
          res.end(`Key ${KEY} is not valid (encoded: ${encodeURIComponent(KEY)})`);
        },
        (_req, res) => {
          res.writeHead(403, { 'Content-Type': 'text/html' });
          res.end(`<html><body>Forbidden for <b>${KEY}</b></body></html>`);
        },
        (_req, res) => {
          res.writeHead(302, { Location: `https://evil.example/collect?key=${KEY}` });
          res.end();
        },
        (req, res) => {
          res.writeHead(400, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ message: `bad request, headers were ${JSON.stringify(req.headers)}` }));
        },
      ];
      for (const echo of echoes) {
        route = echo;
        const error = await rejection(query());
        assert.ok(error instanceof QueryError);
        assert.ok(error.message.includes('••••'), `expected a mask in: ${error.message}`);
      }
    });
  });
});
