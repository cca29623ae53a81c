import * as assert from 'node:assert/strict';
import { StoppedError, HttpStatusError, InvalidJsonError, NetworkError, QueryError, RedirectError, TimeoutError } from '../../../src/client/errors';
import { getJson, normalizeEndpoint, type GetRequest } from '../../../src/client/getClient';
import { closedPort, startServer, waitFor, type Handler, type TestServer } from '../../support/loopback';

const KEY = 'sk-get-Secret-5678';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error);
    assert.ok(!error.message.includes(KEY), `the key leaked into: ${error.message}`);
    return error;
  }
  assert.fail('expected the request to fail');
}

describe('getClient', () => {
  describe('normalizeEndpoint', () => {
    it('accepts the usual spellings and keeps a query string', () => {
      const cases: Array<[string, string]> = [
        ['applications/x', 'applications/x'],
        ['/applications/x', 'applications/x'],
        ['/api/applications/x', 'applications/x'],
        ['api/applications/x', 'applications/x'],
        ['  applications/x  ', 'applications/x'],
        ['applications?limit=5&q=a%20b', 'applications?limit=5&q=a%20b'],
        ['apis/list', 'apis/list'],
        ['applications/a%2Fb', 'applications/a%2Fb'],
      ];
      for (const [input, expected] of cases) {
        assert.equal(normalizeEndpoint(input), expected, input);
      }
    });

    it('refuses empty paths, absolute URLs and ways out of /api/', () => {
      const cases: Array<[string, RegExp]> = [
        ['', /Enter an endpoint/],
        ['/', /Enter an endpoint/],
        ['/api/', /Enter an endpoint/],
        ['https://evil.example/api/x', /not a full URL/],
        ['//evil.example/x', /not a full URL/],
        ['javascript:alert(1)', /not a full URL/],
        ['../secret', /"\." or "\.\." segments/],
        ['applications/../../admin', /"\." or "\.\." segments/],
        ['applications/%2e%2E/x', /"\." or "\.\." segments/],
        ['./applications', /"\." or "\.\." segments/],
        ['applications\\..\\x', /backslashes/],
        ['applications/x#frag', /fragment/],
        ['applications/a b', /spaces/],
        ['applications/\u0000', /control/],
      ];
      for (const [input, pattern] of cases) {
        const result = normalizeEndpoint(input);
        assert.ok(typeof result !== 'string', `expected ${JSON.stringify(input)} to be refused, got ${JSON.stringify(result)}`);
        assert.match(result.error, pattern, input);
      }
    });
  });

  describe('getJson', () => {
    let server: TestServer;
    let route: Handler;

    before(async () => {
      server = await startServer((req, res, body) => route(req, res, body));
    });

    after(async () => {
      await server.close();
    });

    beforeEach(() => {
      server.requests.length = 0;
    });

    function get(overrides: Partial<GetRequest> = {}): ReturnType<typeof getJson> {
      return getJson({ baseUrl: server.url, endpoint: 'applications/app-1', apiKey: KEY, ...overrides });
    }

    it('GETs {base}/api/{endpoint} with the key and parses the JSON', async () => {
      const record = { name: 'Reviewer', description: 'Reviews code — ✓', slug: 'reviewer' };
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(record));
      };
      const result = await get({ baseUrl: `${server.url}/prefix/`, endpoint: '/api/applications/app-1' });
      assert.deepEqual(result.json, record);
      assert.equal(result.status, 200);
      assert.equal(result.url, `${server.url}/prefix/api/applications/app-1`);
      assert.equal(result.bytes, Buffer.byteLength(JSON.stringify(record)));
      const request = server.requests[0];
      assert.equal(request.method, 'GET');
      assert.equal(request.url, '/prefix/api/applications/app-1');
      assert.equal(request.headers['authorization'], `Bearer ${KEY}`);
      assert.equal(request.body, '');
    });

    it('parses JSON sent with another content type', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('\uFEFF[1,2,3]');
      };
      assert.deepEqual((await get()).json, [1, 2, 3]);
    });

    it('reports a non-JSON answer with its content type', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end('<html><body>Please sign in</body></html>');
      };
      const error = await rejection(get());
      assert.ok(error instanceof InvalidJsonError);
      assert.equal(error.kind, 'invalidJson');
      assert.match(error.message, /answered with text\/html, not JSON \(an HTML page/);
    });

    it('reports an empty body as not JSON', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end();
      };
      const error = await rejection(get());
      assert.ok(error instanceof InvalidJsonError);
      assert.match(error.message, /empty body/);
    });

    it('reports a non-2xx status with an excerpt', async () => {
      route = (_req, res) => {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ detail: 'No application app-1' }));
      };
      const error = await rejection(get());
      assert.ok(error instanceof HttpStatusError);
      assert.equal(error.status, 404);
      assert.equal(error.bodyExcerpt, 'No application app-1');
    });

    it('does not follow redirects', async () => {
      const elsewhere = await startServer((_req, res) => {
        res.end('{}');
      });
      try {
        route = (_req, res) => {
          res.writeHead(302, { Location: `${elsewhere.url}/api/applications/app-1` });
          res.end();
        };
        const error = await rejection(get());
        assert.ok(error instanceof RedirectError);
        assert.equal(error.location, `${elsewhere.url}/api/applications/app-1`);
        assert.equal(elsewhere.requests.length, 0);
      } finally {
        await elsewhere.close();
      }
    });

    it('times out, aborts, and names a refused connection', async () => {
      route = () => {
        // Never answer.
      };
      const timeout = await rejection(get({ timeoutMs: 200 }));
      assert.ok(timeout instanceof TimeoutError);
      assert.equal(timeout.phase, 'headers');

      const controller = new AbortController();
      const pending = get({ signal: controller.signal });
      await waitFor(() => server.requests.length === 2, 'the second request to arrive');
      controller.abort();
      assert.ok((await rejection(pending)) instanceof StoppedError);

      const port = await closedPort();
      const refused = await rejection(get({ baseUrl: `http://127.0.0.1:${port}` }));
      assert.ok(refused instanceof NetworkError);
      assert.match(refused.message, /connection refused/);
    });

    it('refuses bad settings and endpoints before sending', async () => {
      for (const overrides of [{ baseUrl: 'http://remote.example' }, { apiKey: 'with space' }, { endpoint: '../x' }, { endpoint: 'https://x.example' }]) {
        const error = await rejection(get(overrides));
        assert.ok(error instanceof QueryError);
        assert.equal(error.kind, 'config');
      }
      assert.equal(server.requests.length, 0);
    });

    it('never puts the key in an error when the service echoes it', async () => {
      route = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`not json, your key is ${KEY}`);
      };
      const error = await rejection(get());
      assert.ok(error instanceof InvalidJsonError);
      assert.match(error.message, /••••/);
    });
  });
});
