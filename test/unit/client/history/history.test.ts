import * as assert from 'node:assert/strict';
import { answerPieces, demoAnswer } from '../../../../service/apps';
import { frameAnswer } from '../../../../service/framing';
import { startService, type ReferenceService } from '../../../../service/server';
import { detectStreamShape } from '../../../../src/client/formats';
import {
  ExchangeRecorder,
  HISTORY_MAX_BYTES,
  HISTORY_MAX_ENTRIES,
  HistoryStore,
  REQUEST_BODY_CAP_BYTES,
  StreamCapture,
  isReplayable,
  maskHeaders,
  parseExchange,
  recordingSink,
  type Exchange,
  type ExchangeStart,
  type HistoryStorage,
} from '../../../../src/client/history';
import { maskCredentials, maskKey, maskSecrets } from '../../../../src/shared/secretMask';
import { QUERY_ACCEPT, sendQuery } from '../../../../src/client/queryClient';
import { collect } from '../../../support/loopback';

const CANARY = 'aq_CANARY-must-never-be-stored-7Q9Z';

/** A Memento-like storage that, like VS Code's, keeps what it is given as JSON. */
class MemoryStorage implements HistoryStorage {
  value: unknown;
  writes = 0;
  get(): unknown {
    return this.value;
  }
  update(value: unknown): Promise<void> {
    this.writes++;
    this.value = JSON.parse(JSON.stringify(value)) as unknown;
    return Promise.resolve();
  }
  serialized(): string {
    return JSON.stringify(this.value) ?? '';
  }
}

const start = (overrides: Partial<ExchangeStart> = {}): ExchangeStart => ({
  applicationId: 'demo-assistant',
  applicationLabel: 'Demo Assistant',
  surface: 'command',
  method: 'POST',
  url: 'http://127.0.0.1:8787/api/applications/demo-assistant/query',
  headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${CANARY}`, Accept: QUERY_ACCEPT },
  body: '{"query":"hi"}',
  secrets: [CANARY],
  ...overrides,
});

/** A finished exchange with `raw` as its body. */
function exchange(raw = 'hello', overrides: Partial<ExchangeStart> = {}): Exchange {
  const recorder = new ExchangeRecorder(start(overrides));
  recorder.headers(200, 'OK', { 'content-type': 'text/plain' }, 'text');
  recorder.raw(raw);
  recorder.text(raw);
  return recorder.finish({ kind: 'done' });
}

describe('history', () => {
  describe('masking', () => {
    it('shows a key as •••• plus its last 4 characters, a short one as •••• alone', () => {
      assert.equal(maskKey(CANARY), '••••7Q9Z');
      assert.equal(maskKey('short-key'), '••••');
    });

    it('masks the Authorization header, leaving an already masked one and the others as they are', () => {
      assert.deepEqual(maskHeaders({ authorization: `Bearer ${CANARY}`, Accept: 'text/plain' }), { authorization: 'Bearer ••••7Q9Z', Accept: 'text/plain' });
      assert.deepEqual(maskHeaders({ Authorization: 'Bearer ••••7Q9Z' }), { Authorization: 'Bearer ••••7Q9Z' });
      assert.deepEqual(maskHeaders({ Authorization: CANARY }), { Authorization: '••••7Q9Z' });
    });

    it('masks every Bearer token in a text: plain, JSON-escaped, URL-encoded, and every given secret', () => {
      const text = [
        `Authorization: Bearer ${CANARY}`,
        `{"headers":{"authorization":"bearer ${CANARY}"}}`,
        `{"echo":"Bearer ${CANARY}\\"}`,
        `?auth=Bearer%20${CANARY}&x=1`,
        `the key ${CANARY} alone`,
        'Bearer ••••7Q9Z stays',
      ].join('\n');
      const masked = maskSecrets(text, [CANARY]);
      assert.ok(!masked.includes(CANARY), masked);
      assert.ok(!masked.includes('CANARY'), masked);
      assert.match(masked, /Bearer ••••7Q9Z stays/);
      assert.ok(!maskCredentials(`Bearer ${CANARY}`).includes(CANARY), 'in request text, without being told the secret');
      assert.equal(maskSecrets(`The Bearer scheme`), 'The Bearer scheme', 'an answer\'s words stay');
    });
  });

  describe('StreamCapture', () => {
    it('keeps text up to the cap in UTF-8 bytes, never inside a character, and counts all of it', () => {
      const capture = new StreamCapture(10);
      capture.write('abc');
      capture.write('日本語'); // 9 bytes: only 日本 (6) fits after abc (3)
      capture.write('more');
      assert.equal(capture.text, 'abc日本');
      assert.equal(capture.truncated, true);
      assert.equal(capture.totalBytes, 3 + 9 + 4);
    });

    it('decodes bytes split inside characters and flushes a cut character at the end', () => {
      const bytes = Buffer.from('é👍x', 'utf8');
      const capture = recordingSink();
      for (const byte of bytes) {
        capture.write(Uint8Array.of(byte));
      }
      capture.write(Buffer.from('日', 'utf8').subarray(0, 2));
      capture.end();
      assert.equal(capture.text, 'é👍x\uFFFD');
      assert.equal(capture.totalBytes, bytes.length + 2);
      assert.equal(capture.truncated, false);
    });

    it('takes exactly the cap when it falls on a character boundary', () => {
      const capture = new StreamCapture(4);
      capture.write('ab');
      capture.write('cd');
      assert.equal(capture.truncated, false);
      capture.write('e');
      assert.equal(capture.text, 'abcd');
      assert.equal(capture.truncated, true);
    });
  });

  describe('ExchangeRecorder', () => {
    it('records the request as sent (key masked), the response, timings and counts', () => {
      let clock = 1_000_000;
      const recorder = new ExchangeRecorder(start({ surface: 'chat', replayOf: 'earlier' }), () => clock);
      clock += 40;
      recorder.headers(200, 'OK', [['content-type', 'text/event-stream']], 'sse');
      clock += 15;
      recorder.raw('');
      recorder.raw('data: {"text":"hé"}\n\n');
      recorder.format('sse', 'openai-chat');
      recorder.text('hé');
      clock += 100;
      const recorded = recorder.finish({ kind: 'done', wireBytes: 22, warning: 'careful' });
      assert.match(recorded.id, /^[0-9a-f-]{36}$/);
      assert.equal(recorded.when, new Date(1_000_000).toISOString());
      assert.equal(recorded.surface, 'chat');
      assert.equal(recorded.replayOf, 'earlier');
      assert.deepEqual(recorded.request, {
        method: 'POST',
        url: 'http://127.0.0.1:8787/api/applications/demo-assistant/query',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ••••7Q9Z', Accept: QUERY_ACCEPT },
        body: '{"query":"hi"}',
      });
      assert.deepEqual(recorded.response, {
        status: 200,
        statusText: 'OK',
        headers: { 'content-type': 'text/event-stream' },
        format: 'sse',
        shape: 'openai-chat',
        raw: 'data: {"text":"hé"}\n\n',
        rawTruncated: false,
        text: 'hé',
        textTruncated: false,
      });
      assert.deepEqual(recorded.timings, { headersMs: 40, firstByteMs: 55, durationMs: 155 });
      assert.deepEqual(recorded.outcome, { kind: 'done', warning: 'careful' });
      assert.equal(recorded.wireBytes, 22);
      assert.equal(recorded.textChars, 2);
      assert.deepEqual(parseExchange(JSON.parse(JSON.stringify(recorded))), recorded);
    });

    it('records an exchange that got no response, and a cut request body as not replayable', () => {
      const big = `{"query":"${'x'.repeat(REQUEST_BODY_CAP_BYTES)}"}`;
      const recorder = new ExchangeRecorder(start({ body: big }));
      const recorded = recorder.finish({ kind: 'error', message: 'Could not connect (connection refused).' });
      assert.equal(recorded.response, undefined);
      assert.equal(recorded.timings.headersMs, undefined);
      assert.equal(recorded.request.bodyTruncated, true);
      assert.equal(Buffer.byteLength(recorded.request.body ?? ''), REQUEST_BODY_CAP_BYTES);
      assert.equal(isReplayable(recorded), false);
      assert.equal(isReplayable(exchange()), true);
      assert.equal(recorded.wireBytes, 0);
    });

    it('caps the raw body and the text but counts every byte and character', () => {
      const recorder = new ExchangeRecorder(start());
      recorder.headers(200, 'OK', {}, 'text');
      const piece = 'ü'.repeat(1024); // 2 KiB
      for (let i = 0; i < 400; i++) {
        recorder.raw(piece);
        recorder.text(piece);
      }
      const recorded = recorder.finish({ kind: 'done' });
      assert.equal(recorded.response?.rawTruncated, true);
      assert.equal(recorded.response?.textTruncated, true);
      assert.equal(Buffer.byteLength(recorded.response?.raw ?? ''), 512 * 1024);
      assert.equal(recorded.wireBytes, 400 * 2048);
      assert.equal(recorded.textChars, 400 * 1024);
    });

    it('records a real query to the reference service: raw frames as on the wire, text, shape, no key', async function () {
      this.timeout(20_000);
      const service: ReferenceService = await startService({ quiet: true, paceMs: 0, seed: 'history-seed' });
      try {
        const key = service.keyFor('sse-anthropic');
        const body = { query: 'Grüße 👋' };
        const url = `${service.url}/api/applications/sse-anthropic/query`;
        const recorder = new ExchangeRecorder({
          applicationId: 'sse-anthropic',
          applicationLabel: 'Anthropic-style SSE',
          surface: 'panel',
          method: 'POST',
          url,
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, Accept: QUERY_ACCEPT },
          body: JSON.stringify(body),
          secrets: [key],
        });
        const response = await sendQuery({ baseUrl: service.url, applicationId: 'sse-anthropic', apiKey: key, body, onRaw: (text) => recorder.raw(text) });
        recorder.headers(response.status, response.statusText, { 'content-type': response.contentType }, response.format);
        const { error } = await collect((async function* () {
          for await (const piece of response.text) {
            recorder.text(piece);
            yield piece;
          }
        })());
        assert.equal(error, undefined);
        const wire = frameAnswer('sse-anthropic', answerPieces(body, 'history-seed')).frames.join('');
        recorder.format(response.format, detectStreamShape(response.format, wire.slice(0, 4096)));
        const recorded = recorder.finish({ kind: 'done', wireBytes: response.bytesReceived(), noTextExtracted: response.noTextExtracted() });
        assert.equal(recorded.response?.raw, wire);
        assert.equal(recorded.response?.text, demoAnswer(body));
        assert.equal(recorded.response?.shape, 'anthropic');
        assert.equal(recorded.wireBytes, Buffer.byteLength(wire));
        assert.equal(recorded.request.headers['Authorization'], `Bearer ••••${key.slice(-4)}`);
        assert.ok(!JSON.stringify(recorded).includes(key));
        assert.equal(recorded.timings.firstByteMs !== undefined && recorded.timings.firstByteMs <= recorded.timings.durationMs, true);
      } finally {
        await service.close();
      }
    });
  });

  describe('HistoryStore', () => {
    it('says its default bounds', () => {
      assert.equal(HISTORY_MAX_ENTRIES, 200);
      assert.equal(HISTORY_MAX_BYTES, 8 * 1024 * 1024);
    });

    it('adds newest first, gets by id, clears, and tells listeners', async () => {
      const storage = new MemoryStorage();
      const store = new HistoryStore(storage);
      let changes = 0;
      const subscription = store.onDidChange(() => changes++);
      store.onDidChange(() => {
        throw new Error('a broken listener');
      });
      const a = await store.add(exchange('a'));
      const b = await store.add(exchange('b'));
      assert.deepEqual(store.list().map((e) => e.id), [b.id, a.id]);
      assert.equal(store.get(a.id)?.response?.raw, 'a');
      assert.equal(store.get('nope'), undefined);
      assert.equal(changes, 2);
      await store.clear();
      assert.deepEqual(store.list(), []);
      assert.equal(changes, 3);
      subscription.dispose();
      await store.add(exchange('c'));
      assert.equal(changes, 3);
    });

    it('persists: a new store over the same storage lists the same exchanges', async () => {
      const storage = new MemoryStorage();
      const first = new HistoryStore(storage);
      const added = [await first.add(exchange('one')), await first.add(exchange('two', { surface: 'tool', method: 'GET', body: undefined }))];
      const second = new HistoryStore(storage);
      assert.deepEqual(second.list(), [added[1], added[0]]);
      assert.deepEqual(second.problems, []);
    });

    it('keeps at most maxEntries, evicting the oldest', async () => {
      const store = new HistoryStore(new MemoryStorage(), { maxEntries: 5 });
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        ids.push((await store.add(exchange(`n${i}`))).id);
      }
      assert.deepEqual(store.list().map((e) => e.id), ids.slice(3).reverse());
    });

    it('keeps at most maxBytes of JSON, evicting the oldest, and cuts one exchange too large on its own', async () => {
      const storage = new MemoryStorage();
      const store = new HistoryStore(storage, { maxBytes: 64 * 1024 });
      for (let i = 0; i < 20; i++) {
        await store.add(exchange(`${i}:${'x'.repeat(5000)}`));
      }
      assert.ok(Buffer.byteLength(storage.serialized()) <= 64 * 1024);
      const kept = store.list();
      // Each exchange holds its 5 KB twice (raw body and text): about 10 KB of JSON.
      assert.ok(kept.length >= 5 && kept.length < 7, `kept ${kept.length}`);
      assert.match(kept[0].response?.raw ?? '', /^19:/);
      const huge = await store.add(exchange('y'.repeat(200 * 1024)));
      assert.equal(huge.response?.rawTruncated, true);
      assert.ok(Buffer.byteLength(JSON.stringify(huge)) <= 16 * 1024);
      assert.equal(store.list()[0].id, huge.id);
      assert.ok(Buffer.byteLength(storage.serialized()) <= 64 * 1024);
    });

    it('loads corrupted storage without throwing, dropping what is not a valid exchange', () => {
      const good = exchange('good');
      const bad: unknown[] = [
        null,
        42,
        'text',
        {},
        { ...good, id: '' },
        { ...good, id: 'x1', surface: 'elsewhere' },
        { ...good, id: 'x2', when: 'yesterday' },
        { ...good, id: 'x3', wireBytes: -1 },
        { ...good, id: 'x4', outcome: { kind: 'exploded' } },
        { ...good, id: 'x5', request: { ...good.request, headers: { a: 1 } } },
        { ...good, id: 'x6', response: { ...good.response, raw: 5 } },
        { ...good, id: 'x7', timings: {} },
        good, // a duplicate id
      ];
      for (const value of [undefined, null, 'garbage', [], { version: 99, exchanges: [good] }, { version: 1, exchanges: 'no' }]) {
        const store = new HistoryStore({ get: () => value, update: () => Promise.resolve() });
        assert.deepEqual(store.list(), []);
      }
      const throwing = new HistoryStore({
        get: () => {
          throw new Error('storage broke');
        },
        update: () => Promise.resolve(),
      });
      assert.deepEqual(throwing.list(), []);
      const store = new HistoryStore({ get: () => ({ version: 1, exchanges: [good, ...bad] }), update: () => Promise.resolve() });
      assert.deepEqual(store.list(), [good]);
      assert.match(store.problems.join(' '), /13 stored history entries were not valid/);
    });

    it('follows the storage when another window changed it', async () => {
      const storage = new MemoryStorage();
      const mine = new HistoryStore(storage);
      const other = new HistoryStore(storage);
      const a = await mine.add(exchange('a'));
      const b = await other.add(exchange('b'));
      assert.deepEqual(mine.list().map((e) => e.id), [b.id, a.id]);
      await other.clear();
      assert.deepEqual(mine.list(), []);
    });

    it('writes concurrent adds in order, losing none', async () => {
      const storage = new MemoryStorage();
      const store = new HistoryStore(storage);
      const added = await Promise.all([1, 2, 3, 4].map((n) => store.add(exchange(String(n)))));
      const stored = new HistoryStore(storage).list().map((e) => e.id);
      assert.deepEqual(stored, added.map((e) => e.id).reverse());
    });

    it('never stores a key: the canary is masked wherever a service put it, also in what it loads', async () => {
      const storage = new MemoryStorage();
      const store = new HistoryStore(storage);
      const recorder = new ExchangeRecorder(start({ secrets: [] }));
      recorder.headers(401, 'Unauthorized', { 'www-authenticate': `Bearer realm="x", token="${CANARY}"`, 'x-echo': `Bearer ${CANARY}` }, 'text');
      recorder.raw(`{"error":"Bad key","authorization":"Bearer ${CANARY}"}`);
      recorder.raw(`\nyou sent ${CANARY}`);
      const leaky = recorder.finish({ kind: 'error', message: `HTTP 401: The service said: Bearer ${CANARY} is not valid` });
      const stored = await store.add(leaky, { secrets: [CANARY] });
      assert.ok(!storage.serialized().includes(CANARY), storage.serialized());
      assert.ok(!JSON.stringify(stored).includes(CANARY));
      assert.equal(stored.request.headers['Authorization'], 'Bearer ••••7Q9Z');

      // A hand-made exchange that skipped the recorder, and storage planted with a key.
      const raw = { ...exchange('x'), id: 'planted', request: { ...exchange('x').request, headers: { Authorization: `Bearer ${CANARY}` } } };
      await store.add(raw);
      assert.ok(!storage.serialized().includes(CANARY));
      const planted = { version: 1, exchanges: [{ ...raw, outcome: { kind: 'done', message: `Bearer ${CANARY}` } }] };
      const loaded = new HistoryStore({ get: () => planted, update: () => Promise.resolve() });
      assert.ok(!JSON.stringify(loaded.list()).includes(CANARY));
      assert.equal(loaded.list().length, 1);
    });
  });
});
