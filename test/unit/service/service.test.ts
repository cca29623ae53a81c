import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import {
  APPLICATIONS, CLOSING_LINE, CUTOFF_TAIL, NDJSON_BAD_GOOD_LINES, SSE_ERROR_DELTAS, SSE_ERROR_MESSAGE, STALL_PIECES,
  answerPieces, bulkBytes, timedCode, timedMarkdown, bulkText, cutoffPrefix, demoAnswer, deriveKey,
} from '../../../service/apps';
import { gradingPrompt, readVerdict } from '../../../src/shared/queryFile';
import { startCaptureServer, startService, type CaptureServer, type RecordedRequest, type ReferenceService } from '../../../service/server';

const SEED = 'unit-seed';

interface Read {
  chunks: Buffer[];
  bytes: Buffer;
  text: string;
  error?: unknown;
}

async function readAll(res: Response): Promise<Read> {
  assert.ok(res.body, 'response has a body');
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let error: unknown;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      chunks.push(Buffer.from(value));
    }
  } catch (err) {
    error = err;
  }
  const bytes = Buffer.concat(chunks);
  return { chunks, bytes, text: bytes.toString('utf8'), error };
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A tiny SSE reader for checking the service's frames (the client's real parser lives in core). */
function sseEvents(text: string): { event: string; data: string }[] {
  const events: { event: string; data: string }[] = [];
  let event = '';
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) {
        events.push({ event: event || 'message', data: data.join('\n') });
      }
      event = '';
      data = [];
      continue;
    }
    if (line.startsWith(':')) {
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') {
      data.push(value);
    } else if (field === 'event') {
      event = value;
    }
  }
  return events;
}

describe('reference service (service/)', function () {
  this.timeout(60_000);
  let service: ReferenceService;
  let capture: CaptureServer;

  const key = (id: string): string => service.keyFor(id);
  const post = (id: string, body: unknown, init: { key?: string | null; contentType?: string; raw?: string; signal?: AbortSignal; redirect?: RequestRedirect } = {}): Promise<Response> => {
    const headers: Record<string, string> = { 'Content-Type': init.contentType ?? 'application/json' };
    const k = init.key === undefined ? key(id) : init.key;
    if (k !== null) {
      headers.Authorization = `Bearer ${k}`;
    }
    return fetch(`${service.url}/api/applications/${encodeURIComponent(id)}/query`, {
      method: 'POST', headers, body: init.raw ?? JSON.stringify(body), signal: init.signal, redirect: init.redirect,
    });
  };
  const get = (endpoint: string, k: string | null): Promise<Response> =>
    fetch(`${service.url}/api/${endpoint}`, { headers: k === null ? {} : { Authorization: `Bearer ${k}` } });
  const lastRecord = (applicationId: string): RecordedRequest | undefined =>
    [...service.requests].reverse().find((r) => r.applicationId === applicationId);

  before(async () => {
    capture = await startCaptureServer();
    service = await startService({ quiet: true, paceMs: 2, seed: SEED, slowHeadersMs: 10 * 60_000, redirectTarget: capture.url });
  });
  after(async () => {
    await service?.close();
    await capture?.close();
  });

  describe('keys', () => {
    it('gives every application an aq_ key of 32 url-safe characters, distinct and derived from the seed', () => {
      const keys = APPLICATIONS.map((a) => key(a.id));
      for (const k of keys) {
        assert.match(k, /^aq_[A-Za-z0-9_-]{32}$/);
      }
      assert.equal(new Set(keys).size, keys.length);
      assert.equal(key('echo'), deriveKey(SEED, 'echo'));
      assert.notEqual(deriveKey('other-seed', 'echo'), key('echo'));
      assert.throws(() => service.keyFor('no-such-app'), /no application/);
    });

    it('lists the fixed application ids the other test lanes use', () => {
      const ids = service.applications.map((a) => a.id);
      for (const id of ['demo-assistant', 'echo', 'bulk', 'sse-openai', 'sse-vercel', 'sse-dify', 'sse-flowise', 'sse-error',
        'ndjson', 'ndjson-bad', 'vercel-data', 'fail-401', 'fail-429', 'fail-503', 'fail-500', 'cutoff', 'stall',
        'slow-headers', 'html', 'redirect', 'bad-chunk', 'hostile', 'sse-anthropic', 'sse-openai-responses', 'sse-langserve',
        'sse-langserve-stream', 'sse-custom-field']) {
        assert.ok(ids.includes(id), id);
      }
      assert.equal(service.applications.find((a) => a.id === 'demo-assistant')?.name, 'Demo Assistant');
      assert.match(service.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    });
  });

  describe('query: status codes a client must handle', () => {
    it('answers 401 without a key, with an unknown key, and with a malformed header', async () => {
      for (const res of [
        await post('echo', { query: 'x' }, { key: null }),
        await post('echo', { query: 'x' }, { key: 'aq_notavalidkeynotavalidkeynotavali' }),
        await fetch(`${service.url}/api/applications/echo/query`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Basic ${key('echo')}` }, body: '{}' }),
      ]) {
        assert.equal(res.status, 401);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        const json = await res.json() as { error: unknown };
        assert.equal(typeof json.error, 'string');
      }
    });

    it('answers 403 to the key of another application, and never echoes a key back', async () => {
      const res = await post('echo', { query: 'x' }, { key: key('demo-assistant') });
      assert.equal(res.status, 403);
      const text = await res.text();
      assert.ok(!text.includes(key('demo-assistant')));
      assert.match((JSON.parse(text) as { error: string }).error, /another application/);
    });

    it('answers 404 {"error":"Application not found"} for ids it does not have', async () => {
      const res = await post('no-such-app', { query: 'x' }, { key: key('echo') });
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { error: 'Application not found' });
    });

    it('answers 415 without a JSON content type, 400 for invalid JSON or a non-object, 405 for GET', async () => {
      assert.equal((await post('echo', null, { contentType: 'text/plain', raw: '{"query":"x"}' })).status, 415);
      assert.equal((await post('echo', null, { raw: '{"query": "x",' })).status, 400);
      assert.equal((await post('echo', null, { raw: '"just a string"' })).status, 400);
      const wrongMethod = await fetch(`${service.url}/api/applications/echo/query`, { headers: { Authorization: `Bearer ${key('echo')}` } });
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get('allow'), 'POST');
      const withCharset = await post('echo', { query: 'x' }, { contentType: 'application/json; charset=utf-8' });
      assert.equal(withCharset.status, 200);
      await withCharset.arrayBuffer();
    });

    it('fail-401 refuses even its own key; 429 and 503 carry Retry-After; 500 has a JSON error', async () => {
      const revoked = await post('fail-401', { query: 'x' });
      assert.equal(revoked.status, 401);
      assert.match(((await revoked.json()) as { error: string }).error, /revoked/);

      const limited = await post('fail-429', { query: 'x' });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '7');
      await limited.arrayBuffer();

      const before = Date.now();
      const unavailable = await post('fail-503', { query: 'x' });
      const after = Date.now();
      assert.equal(unavailable.status, 503);
      const retryAt = Date.parse(unavailable.headers.get('retry-after') ?? '');
      assert.ok(retryAt >= before + 9000 && retryAt <= after + 11_000, `Retry-After ${unavailable.headers.get('retry-after')}`);
      await unavailable.arrayBuffer();

      const failed = await post('fail-500', { query: 'x' });
      assert.equal(failed.status, 500);
      assert.equal(typeof ((await failed.json()) as { error: unknown }).error, 'string');
    });
  });

  describe('authenticated GET', () => {
    it('returns the application record with the same auth rules as a query', async () => {
      const res = await get('applications/demo-assistant', key('demo-assistant'));
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), {
        id: 'demo-assistant', name: 'Demo Assistant', slug: 'demo-assistant',
        description: APPLICATIONS.find((a) => a.id === 'demo-assistant')?.description,
      });
      assert.equal((await get('applications/demo-assistant', key('echo'))).status, 403);
      assert.equal((await get('applications/demo-assistant', null)).status, 401);
      assert.equal((await get('applications/nope', key('echo'))).status, 404);
    });

    it('answers other endpoints for any valid key, 404 JSON for unknown ones, HTML for /api/not-json', async () => {
      const me = await get('me', key('echo'));
      assert.equal(me.status, 200);
      const body = await me.json() as { application: string; applications: string[] };
      assert.equal(body.application, 'echo');
      assert.ok(body.applications.includes('demo-assistant'));
      assert.deepEqual(await (await get('health', key('bulk'))).json(), { status: 'ok', applications: APPLICATIONS.length });
      const unknown = await get('no-such-endpoint', key('echo'));
      assert.equal(unknown.status, 404);
      assert.match(((await unknown.json()) as { error: string }).error, /Unknown endpoint/);
      assert.equal((await get('health', null)).status, 401);
      const html = await get('not-json', key('echo'));
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await html.text(), /<html/);
    });
  });

  describe('demo-assistant', () => {
    const body = { query: 'How do I sort an array?\nconst xs = [3, 1, 2]; // ```fence```', languageId: 'python' };

    it('streams the markdown answer in several chunks; the chunks join to exactly the expected text', async () => {
      const slow = await startService({ quiet: true, paceMs: 20, seed: SEED });
      try {
        const res = await fetch(`${slow.url}/api/applications/demo-assistant/query`, {
          method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${slow.keyFor('demo-assistant')}` },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
        const read = await readAll(res);
        assert.equal(read.error, undefined);
        assert.ok(read.chunks.length > 1, `arrived in ${read.chunks.length} chunk(s)`);
        assert.equal(read.text, demoAnswer(body));
        assert.equal(read.text, answerPieces(body, SEED).join(''));
      } finally {
        await slow.close();
      }
    });

    it('builds the answer from the query: heading, restated question, bullets, fenced code in the languageId, multibyte close', () => {
      const answer = demoAnswer(body);
      assert.match(answer, /^## /);
      assert.ok(answer.includes('How do I sort an array? const xs = [3, 1, 2];'), 'restates the question on one line');
      assert.match(answer, /^- /m);
      assert.match(answer, /^````python\nHow do I sort an array\?\nconst xs = \[3, 1, 2\]; \/\/ ```fence```\n````$/m,
        'a fence longer than any backtick run in the query');
      assert.ok(answer.includes(CLOSING_LINE));
      assert.match(demoAnswer({ query: 'x' }), /^```ts$/m);
      assert.ok(demoAnswer({ input: 'from input' }).includes('You asked: from input'));
      assert.ok(demoAnswer({ messages: [{ role: 'user' }, { content: 'first string wins' }] }).includes('You asked: user'));
    });

    it('splits deterministically per seed and query into pieces of 1-12 characters', () => {
      const pieces = answerPieces(body, SEED);
      assert.deepEqual(answerPieces(body, SEED), pieces);
      assert.notDeepEqual(answerPieces(body, 'another-seed'), pieces);
      for (const p of pieces) {
        const n = Array.from(p).length;
        assert.ok(n >= 1 && n <= 12, `piece of ${n} characters`);
      }
    });
  });

  describe('echo', () => {
    it('streams back exactly the raw request bytes, splitting multibyte characters', async () => {
      const raw = '{ "query" :  "héllo 日本語 😀 \\"quoted\\" \\u0000 ${input}",\n  "__chunkBytes": 5, "n": 1.50 }';
      const res = await post('echo', null, { raw });
      assert.equal(res.status, 200);
      const read = await readAll(res);
      assert.equal(read.error, undefined);
      assert.ok(read.bytes.equals(Buffer.from(raw, 'utf8')));
      assert.equal(lastRecord('echo')?.body, raw);
    });

    it('paces its chunks when asked ("__paceMs")', async () => {
      const raw = JSON.stringify({ query: 'ünïcödé '.repeat(20), __chunkBytes: 3, __paceMs: 1 });
      const read = await readAll(await post('echo', null, { raw }));
      assert.ok(read.bytes.equals(Buffer.from(raw, 'utf8')));
    });
  });

  describe('judges', () => {
    const ask = async (id: string, criterion: string, answer: string): Promise<{ status: number; text: string }> => {
      const res = await post(id, { query: gradingPrompt({ criterion, question: 'What is the refund window?', answer }) });
      return { status: res.status, text: await res.text() };
    };

    it('judge: PASS when the answer holds every quoted word of the criterion (any case), FAIL naming the one it lacks; the verdict reads as such', async () => {
      const pass = await ask('judge', 'mentions "refund" and "30 days"', 'Refunds are possible within 30 DAYS.');
      assert.deepEqual(pass, { status: 200, text: 'PASS: the answer mentions "refund" and "30 days".\n' });
      assert.deepEqual(readVerdict(pass.text), { pass: true, reason: 'the answer mentions "refund" and "30 days".' });
      const fail = await ask('judge', 'mentions "refund"', 'We never give money back.');
      assert.deepEqual(readVerdict(fail.text), { pass: false, reason: 'the answer never mentions "refund".' });
      // An answer that quotes the prompt's own end marker cannot end its block early.
      const tricky = await ask('judge', 'mentions "refund"', 'nothing\n<<<ANSWER END>>>\nrefund');
      assert.deepEqual(readVerdict(tricky.text), { pass: true, reason: 'the answer mentions "refund".' });
      assert.match((await ask('judge', 'is polite', 'Hello')).text, /^FAIL: the criterion names no "quoted" word/);
    });

    it('judge-malformed answers no verdict; judge-broken fails with HTTP 500', async () => {
      const malformed = await ask('judge-malformed', 'mentions "refund"', 'refund');
      assert.equal(malformed.status, 200);
      assert.ok('error' in readVerdict(malformed.text));
      assert.equal((await ask('judge-broken', 'mentions "refund"', 'refund')).status, 500);
    });
  });

  describe('bulk', () => {
    it('bulkBytes(n) is exactly n bytes of valid UTF-8 mixing 1- to 4-byte characters', () => {
      const strict = new TextDecoder('utf-8', { fatal: true });
      for (const n of [0, 1, 2, 3, 5, 77, 78, 79, 1000, 65_537]) {
        const bytes = bulkBytes(n);
        assert.equal(bytes.length, n);
        assert.doesNotThrow(() => strict.decode(bytes), `size ${n}`);
      }
      const text = bulkText(10_000);
      const widths = new Set(Array.from(text).map((c) => Buffer.byteLength(c)));
      assert.deepEqual([...widths].sort(), [1, 2, 3, 4]);
      assert.ok(text.includes('\n'));
      assert.ok(bulkBytes(20_000).subarray(0, 9_000).equals(bulkBytes(10_000).subarray(0, 9_000)), 'stable prefix');
    });

    it('streams bulkBytes(size) byte-exact in small byte-sized chunks', async () => {
      const read = await readAll(await post('bulk', { size: 300_000, chunkBytes: 61 }));
      assert.equal(read.error, undefined);
      assert.equal(read.bytes.length, 300_000);
      assert.ok(read.bytes.equals(bulkBytes(300_000)));
    });

    it('defaults to 1 MiB and refuses sizes over 64 MiB', async () => {
      const read = await readAll(await post('bulk', {}));
      assert.ok(read.bytes.equals(bulkBytes(1024 * 1024)));
      const tooBig = await post('bulk', { size: 64 * 1024 * 1024 + 1 });
      assert.equal(tooBig.status, 400);
      assert.match(((await tooBig.json()) as { error: string }).error, /size/);
    });
  });

  describe('timed', () => {
    it('paceMs spaces its chunks: the answer arrives whole, over at least (chunks - 1) × paceMs; a negative pace is refused', async () => {
      const size = 8 * 1024;
      const started = Date.now();
      const paced = await readAll(await post('timed', { delayMs: 0, size, chunkBytes: 1024, paceMs: 40 }));
      const pacedMs = Date.now() - started;
      assert.equal(paced.error, undefined);
      const marker = /^aq-mark-\d+\n\n/.exec(paced.text)?.[0] ?? '';
      assert.notEqual(marker, '', 'the answer starts with its marker');
      assert.equal(paced.text, marker + timedMarkdown(size), 'the marker, then the whole answer');
      // Eight chunks, seven pauses of 40 ms between them.
      assert.ok(pacedMs >= 7 * 40, `paced answer took ${pacedMs} ms`);
      const bad = await post('timed', { paceMs: -1 });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: string }).error, /paceMs/);
    });

    it('shape "code" answers one long TypeScript code block; an unknown shape is refused', async () => {
      const read = await readAll(await post('timed', { delayMs: 0, size: 20_000, shape: 'code' }));
      const answer = read.text.replace(/^aq-mark-\d+\n\n/, '');
      assert.equal(answer, timedCode(20_000));
      const fences = answer.split('\n').filter((line) => line.startsWith('```'));
      assert.deepEqual(fences, ['```ts', '```'], 'one code block');
      assert.ok(Buffer.byteLength(answer) > 20_000);
      assert.match(answer, /\nFunctions: \d+\.\n$/);
      const bad = await post('timed', { shape: 'poem' });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: string }).error, /shape/);
    });
  });

  describe('framed answers carry the same text as demo-assistant', () => {
    const body = { query: 'Explain this:\nlet x = "ü → 日本 🚀";' };
    const expected = demoAnswer(body);

    async function framed(id: string): Promise<{ res: Response; raw: string }> {
      const res = await post(id, body);
      assert.equal(res.status, 200);
      const read = await readAll(res);
      assert.equal(read.error, undefined);
      return { res, raw: read.text };
    }

    it('sse-openai: choices[0].delta.content events, a comment, CRLF in places, then [DONE]', async () => {
      const { res, raw } = await framed('sse-openai');
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.match(raw, /^: /m);
      assert.ok(raw.includes('\r\n'));
      const events = sseEvents(raw);
      assert.equal(events.at(-1)?.data, '[DONE]');
      const text = events.slice(0, -1).map((e) => {
        const choice = (JSON.parse(e.data) as { choices: { delta: { content?: string } }[] }).choices[0];
        return choice.delta.content ?? '';
      }).join('');
      assert.equal(text, expected);
    });

    it('sse-vercel: text-delta events between start and finish, with the UI message stream header', async () => {
      const { res, raw } = await framed('sse-vercel');
      assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
      const parts = sseEvents(raw).filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as { type: string; delta?: string });
      assert.equal(parts[0].type, 'start');
      assert.equal(parts.at(-1)?.type, 'finish');
      assert.equal(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta).join(''), expected);
    });

    it('sse-dify: message events with answer, then message_end', async () => {
      const parts = sseEvents((await framed('sse-dify')).raw).map((e) => JSON.parse(e.data) as { event: string; answer?: string });
      assert.equal(parts.at(-1)?.event, 'message_end');
      assert.equal(parts.filter((p) => p.event === 'message').map((p) => p.answer).join(''), expected);
    });

    it('sse-flowise: token events between start and end', async () => {
      const { raw } = await framed('sse-flowise');
      assert.match(raw, /^message:$/m);
      const parts = sseEvents(raw).map((e) => JSON.parse(e.data) as { event: string; data: unknown });
      assert.equal(parts[0].event, 'start');
      assert.equal(parts.at(-1)?.event, 'end');
      assert.equal(parts.filter((p) => p.event === 'token').map((p) => p.data).join(''), expected);
    });

    it('sse-anthropic: message_start, pings, text deltas, message_stop', async () => {
      const events = sseEvents((await framed('sse-anthropic')).raw);
      assert.deepEqual(events.map((e) => e.event).filter((e) => e !== 'content_block_delta'),
        ['message_start', 'content_block_start', 'ping', 'ping', 'content_block_stop', 'message_delta', 'message_stop']);
      for (const e of events) {
        assert.equal((JSON.parse(e.data) as { type: string }).type, e.event);
      }
      const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data) as { delta: { type: string; text: string } });
      assert.ok(deltas.every((d) => d.delta.type === 'text_delta'));
      assert.equal(deltas.map((d) => d.delta.text).join(''), expected);
    });

    it('sse-openai-responses: output_text deltas, the whole text repeated in the done events, then response.completed', async () => {
      const events = sseEvents((await framed('sse-openai-responses')).raw);
      const parts = events.map((e) => JSON.parse(e.data) as { type: string; delta?: string; text?: string; sequence_number: number });
      assert.deepEqual(parts.map((p) => p.type), events.map((e) => e.event));
      assert.deepEqual(parts.map((p) => p.sequence_number), parts.map((_, i) => i));
      assert.equal(parts[0].type, 'response.created');
      assert.equal(parts.at(-1)?.type, 'response.completed');
      assert.equal(parts.filter((p) => p.type === 'response.output_text.delta').map((p) => p.delta).join(''), expected);
      assert.equal(parts.find((p) => p.type === 'response.output_text.done')?.text, expected);
    });

    it('sse-langserve: on_chat_model_stream chunks (string or text parts) among events that repeat them', async () => {
      const events = sseEvents((await framed('sse-langserve')).raw);
      assert.ok(events.every((e) => e.event === 'data'));
      const parts = events.map((e) => JSON.parse(e.data) as { event: string; data: { chunk?: { content: string | { text: string }[] } | string } });
      const model = parts.filter((p) => p.event === 'on_chat_model_stream').map((p) => {
        const content = (p.data.chunk as { content: string | { text: string }[] }).content;
        return typeof content === 'string' ? content : content.map((c) => c.text).join('');
      });
      assert.equal(model.join(''), expected);
      assert.ok(parts.some((p) => p.event === 'on_chat_model_stream' && Array.isArray((p.data.chunk as { content: unknown }).content)));
      assert.equal(parts.filter((p) => p.event === 'on_parser_stream').map((p) => p.data.chunk as string).join(''), expected);
    });

    it('sse-langserve-stream: metadata, AIMessageChunk data events, end', async () => {
      const { raw } = await framed('sse-langserve-stream');
      assert.match(raw, /event: end\n\n$/);
      const events = sseEvents(raw);
      assert.equal(events[0].event, 'metadata');
      const chunks = events.slice(1).map((e) => JSON.parse(e.data) as { type: string; content: string });
      assert.ok(chunks.every((c) => c.type === 'AIMessageChunk'));
      assert.equal(chunks.map((c) => c.content).join(''), expected);
    });

    it('sse-custom-field: the text only in output.value', async () => {
      const parts = sseEvents((await framed('sse-custom-field')).raw).map((e) => JSON.parse(e.data) as { output: { value?: string } });
      assert.equal(parts.map((p) => p.output.value ?? '').join(''), expected);
      assert.deepEqual(Object.keys(parts[0]), ['output']);
    });

    it('sse-error: a few deltas, then an error event saying "model overloaded"', async () => {
      const events = sseEvents((await framed('sse-error')).raw);
      assert.equal(events.length, SSE_ERROR_DELTAS + 1);
      assert.deepEqual(events.at(-1), { event: 'error', data: JSON.stringify({ message: SSE_ERROR_MESSAGE }) });
      const deltas = events.slice(0, -1).map((e) => (JSON.parse(e.data) as { choices: { delta: { content: string } }[] }).choices[0].delta.content);
      assert.equal(deltas.join(''), answerPieces(body, SEED).slice(0, SSE_ERROR_DELTAS).join(''));
    });

    it('ndjson: text/response lines with CRLF and blank lines, ending done:true', async () => {
      const { res, raw } = await framed('ndjson');
      assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
      assert.ok(raw.includes('\r\n'));
      assert.match(raw, /\n\r?\n/);
      const lines = raw.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { text?: string; response?: string; done?: boolean });
      assert.equal(lines.at(-1)?.done, true);
      assert.equal(lines.map((l) => l.text ?? l.response ?? '').join(''), expected);
    });

    it('ndjson-bad: line 4 is not valid JSON; the lines before it carry the start of the answer', async () => {
      const lines = (await framed('ndjson-bad')).raw.split('\n');
      assert.throws(() => JSON.parse(lines[3]) as unknown);
      const good = lines.slice(0, NDJSON_BAD_GOOD_LINES).map((l) => (JSON.parse(l) as { text: string }).text);
      assert.equal(good.join(''), answerPieces(body, SEED).slice(0, NDJSON_BAD_GOOD_LINES).join(''));
      assert.ok(lines.length > 5, 'more lines follow the bad one');
    });

    it('vercel-data: 0:"text" lines with the data stream header', async () => {
      const { res, raw } = await framed('vercel-data');
      assert.equal(res.headers.get('x-vercel-ai-data-stream'), 'v1');
      const text = raw.split('\n').filter((l) => l.startsWith('0:')).map((l) => JSON.parse(l.slice(2)) as string).join('');
      assert.equal(text, expected);
    });
  });

  describe('faults', () => {
    it('cutoff: the reader fails after ~2 KB, the last bytes being the first two of a 3-byte character', async () => {
      const body = { query: 'cut me off' };
      const res = await post('cutoff', body);
      assert.equal(res.status, 200);
      const read = await readAll(res);
      assert.ok(read.error instanceof Error, 'reading the body throws');
      const expected = Buffer.concat([Buffer.from(cutoffPrefix(body), 'utf8'), CUTOFF_TAIL]);
      assert.ok(read.bytes.length >= 2048);
      assert.ok(read.bytes.equals(expected), `got ${read.bytes.length} of ${expected.length} bytes`);
      assert.deepEqual([...read.bytes.subarray(-2)], [0xe8, 0xaa]);
      const record = await waitFor('cutoff record', () => lastRecord('cutoff'));
      assert.equal(record.closedByClientAt, undefined, 'the server cut it, not the client');
    });

    it('stall: sends a little, then nothing; records closedByClientAt when the client aborts', async () => {
      const body = { query: 'stall please' };
      const controller = new AbortController();
      const res = await post('stall', body, { signal: controller.signal });
      assert.equal(res.status, 200);
      assert.ok(res.body);
      const reader = res.body.getReader();
      const want = answerPieces(body, SEED).slice(0, STALL_PIECES).join('');
      let got = '';
      const decoder = new TextDecoder();
      while (got.length < want.length) {
        const { value, done } = await reader.read();
        assert.ok(!done, 'stream must not end');
        got += decoder.decode(value, { stream: true });
      }
      assert.equal(got, want);
      const record = lastRecord('stall');
      assert.ok(record);
      assert.equal(record.closedByClientAt, undefined);
      controller.abort();
      await reader.read().catch(() => undefined);
      const closedAt = await waitFor('closedByClientAt', () => record.closedByClientAt);
      assert.ok(closedAt >= record.at);
      const overHttp = await (await fetch(`${service.url}/__control/requests`)).json() as RecordedRequest[];
      assert.equal(overHttp.filter((r) => r.applicationId === 'stall').at(-1)?.closedByClientAt, closedAt);
    });

    it('slow-headers: no headers until the client gives up, which the service records', async () => {
      const controller = new AbortController();
      const pending = post('slow-headers', { query: 'wait' }, { signal: controller.signal });
      let settled = false;
      pending.then(() => (settled = true), () => (settled = true));
      const record = await waitFor('slow-headers request', () => {
        const r = lastRecord('slow-headers');
        return r && r.closedByClientAt === undefined ? r : undefined;
      });
      assert.equal(settled, false, 'no response headers yet');
      controller.abort();
      await assert.rejects(pending, { name: 'AbortError' });
      await waitFor('closedByClientAt', () => record.closedByClientAt);
      assert.equal(record.status, undefined, 'no headers were sent');
    });

    it('slow-headers answers normally once its delay has passed', async () => {
      const quick = await startService({ quiet: true, paceMs: 0, slowHeadersMs: 50 });
      try {
        const res = await fetch(`${quick.url}/api/applications/slow-headers/query`, {
          method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${quick.keyFor('slow-headers')}` },
          body: '{"query":"late"}',
        });
        assert.equal(res.status, 200);
        assert.equal(await res.text(), demoAnswer({ query: 'late' }));
      } finally {
        await quick.close();
      }
    });

    it('html: a 200 text/html captive-portal page', async () => {
      const res = await post('html', { query: 'x' });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await res.text(), /<!DOCTYPE html>/);
    });

    it('redirect: 307 to the capture origin (which receives nothing unless followed), else to itself', async () => {
      const res = await post('redirect', { query: 'x' }, { redirect: 'manual' });
      assert.equal(res.status, 307);
      assert.equal(res.headers.get('location'), `${capture.url}/api/applications/redirect/query`);
      await res.arrayBuffer();
      assert.equal(capture.requests.length, 0);

      const self = await startService({ quiet: true, paceMs: 0 });
      try {
        const r = await fetch(`${self.url}/api/applications/redirect/query`, {
          method: 'POST', redirect: 'manual', body: '{}',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${self.keyFor('redirect')}` },
        });
        assert.equal(r.status, 307);
        assert.ok(r.headers.get('location')?.startsWith(`${self.url}/`));
        await r.arrayBuffer();
      } finally {
        await self.close();
      }
    });

    it('bad-chunk: the reader fails on invalid chunked framing after some valid data', async () => {
      const body = { query: 'framing' };
      const res = await post('bad-chunk', body);
      assert.equal(res.status, 200);
      const read = await readAll(res);
      assert.ok(read.error instanceof Error, 'reading the body throws');
      assert.equal(read.text, demoAnswer(body).slice(0, 80));
    });

    it('hostile: markdown with script, event handlers, iframes, remote loads and dangerous links', async () => {
      const read = await readAll(await post('hostile', { query: 'x' }));
      assert.equal(read.error, undefined);
      for (const needle of ['<script>', 'onerror=', '<svg onload=', '<iframe', `](${service.url}/__hostile/`, '](command:workbench.action.quit)',
        '](javascript:alert(1))', 'style="background-image: url(']) {
        assert.ok(read.text.includes(needle), needle);
      }
    });
  });

  describe('recording and test control', () => {
    it('records every request in order, with headers (key included), body, app id and status', async () => {
      await fetch(`${service.url}/__control/reset`, { method: 'POST' });
      assert.equal(service.requests.length, 0, 'reset clears the in-process list too');
      const body = JSON.stringify({ query: 'recorded ✓' });
      await (await post('echo', null, { raw: body })).arrayBuffer();
      await (await get('applications/echo', key('echo'))).arrayBuffer();
      await (await fetch(`${service.url}/nowhere`)).arrayBuffer();
      const overHttp = await (await fetch(`${service.url}/__control/requests`)).json() as RecordedRequest[];
      assert.deepEqual(overHttp.map((r) => [r.method, r.path, r.applicationId, r.status]), [
        ['POST', '/api/applications/echo/query', 'echo', 200],
        ['GET', '/api/applications/echo', 'echo', 200],
        ['GET', '/nowhere', undefined, 404],
      ]);
      assert.equal(overHttp[0].headers.authorization, `Bearer ${key('echo')}`);
      assert.equal(overHttp[0].body, body);
      assert.equal(service.requests.length, 3, 'control routes are not recorded');
      assert.ok(overHttp[0].at <= overHttp[1].at);
    });

    it('serves the keys at /__control/keys', async () => {
      const keys = await (await fetch(`${service.url}/__control/keys`)).json() as Record<string, string>;
      assert.deepEqual(Object.keys(keys), APPLICATIONS.map((a) => a.id));
      for (const a of APPLICATIONS) {
        assert.equal(keys[a.id], key(a.id));
      }
    });
  });

  describe('capture server', () => {
    it('answers every request 200 "captured" and records it, control routes aside', async () => {
      const res = await fetch(`${capture.url}/api/applications/redirect/query`, {
        method: 'POST', headers: { Authorization: 'Bearer aq_leaked', 'Content-Type': 'application/json' }, body: '{"a":1}',
      });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'captured');
      await (await fetch(`${capture.url}/anything?x=1`, { method: 'DELETE' })).arrayBuffer();
      const overHttp = await (await fetch(`${capture.url}/__control/requests`)).json() as RecordedRequest[];
      assert.deepEqual(overHttp.map((r) => [r.method, r.path]), [['POST', '/api/applications/redirect/query'], ['DELETE', '/anything?x=1']]);
      assert.equal(overHttp[0].headers.authorization, 'Bearer aq_leaked');
      assert.equal(overHttp[0].body, '{"a":1}');
      assert.equal(capture.requests.length, 2);
      await (await fetch(`${capture.url}/__control/reset`, { method: 'POST' })).arrayBuffer();
      assert.equal(capture.requests.length, 0);
    });
  });

  describe('lifecycle', () => {
    it('close() ends open streams and idle connections; the port then refuses connections', async () => {
      const s = await startService({ quiet: true, paceMs: 0 });
      await (await fetch(`${s.url}/api/health`, { headers: { Authorization: `Bearer ${s.keyFor('echo')}` } })).arrayBuffer();
      const stalled = await fetch(`${s.url}/api/applications/stall/query`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.keyFor('stall')}` }, body: '{}',
      });
      const reading = readAll(stalled);
      await s.close();
      assert.ok((await reading).error, 'the stalled stream ends with an error');
      assert.equal(s.requests.find((r) => r.applicationId === 'stall')?.closedByClientAt, undefined);
      await assert.rejects(fetch(`${s.url}/api/health`));
    });

    it('the CLI prints the URL and keys, serves, refuses non-loopback hosts, and exits 0 on SIGTERM', async () => {
      const main = path.join(__dirname, '..', '..', '..', 'service', 'main.js');
      const refused = spawn(process.execPath, [main, '--host', '0.0.0.0'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let refusedErr = '';
      refused.stderr.on('data', (d: Buffer) => (refusedErr += d.toString()));
      assert.equal(await new Promise((resolve) => refused.on('exit', resolve)), 2);
      assert.match(refusedErr, /loopback/);

      const child = spawn(process.execPath, [main, '--port', '0', '--pace', '0', '--seed', 'cli-seed'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        const url = await waitFor('the banner', () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]);
        await waitFor('the key table', () => (out.includes('Ctrl+C') ? true : undefined));
        const demoKey = deriveKey('cli-seed', 'demo-assistant');
        assert.ok(out.includes(demoKey));
        const res = await fetch(`${url}/api/health`, { headers: { Authorization: `Bearer ${demoKey}` } });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0);
    });
  });
});
