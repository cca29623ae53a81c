import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExchangeRecorder, HistoryStore, type Exchange, type HistoryStorage } from '../../../../src/client/history';
import { fileHistoryStorage } from '../../../../src/host/history/fileStorage';

const CANARY = 'aq_CANARY-history-store-7Q9Z';

function exchange(text: string): Exchange {
  const recorder = new ExchangeRecorder({
    applicationId: 'demo',
    applicationLabel: 'Demo',
    surface: 'command',
    method: 'POST',
    url: 'http://127.0.0.1:8787/api/applications/demo/query',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${CANARY}` },
    body: JSON.stringify({ query: text }),
    secrets: [CANARY],
  });
  recorder.headers(200, 'OK', { 'content-type': 'text/plain' }, 'text');
  recorder.raw(text);
  recorder.text(text);
  return recorder.finish({ kind: 'done' });
}

/** One storage two windows share: writes land a tick later, as a file's do, and one lock serializes writers. */
class SharedStorage implements HistoryStorage {
  value: unknown;
  unreadable: unknown;
  private lock: Promise<void> = Promise.resolve();
  get(): unknown {
    return this.value;
  }
  async update(value: unknown): Promise<void> {
    const copy = JSON.parse(JSON.stringify(value)) as unknown;
    await new Promise((resolve) => setImmediate(resolve));
    this.value = copy;
  }
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work);
    this.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
  keepUnreadable(raw: unknown): Promise<string> {
    this.unreadable = raw;
    return Promise.resolve('the second key');
  }
}

/** Adds `count` exchanges from each store at once, interleaved, a tick apart. */
async function recordConcurrently(stores: readonly HistoryStore[], count: number): Promise<Set<string>> {
  const ids = new Set<string>();
  await Promise.all(
    stores.map(async (store, s) => {
      const pending: Array<Promise<Exchange>> = [];
      for (let i = 0; i < count; i++) {
        pending.push(store.add(exchange(`window ${s} entry ${i}`)));
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (const added of await Promise.all(pending)) ids.add(added.id);
    }),
  );
  return ids;
}

describe('history/HistoryStore over shared and bad storage', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'aq-history-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('two stores over one shared storage, both recording 40 at once, keep all 80', async () => {
    const storage = new SharedStorage();
    const a = new HistoryStore(storage);
    const b = new HistoryStore(storage);
    const ids = await recordConcurrently([a, b], 40);
    assert.equal(ids.size, 80);
    const kept = new HistoryStore(storage).list().map((entry) => entry.id);
    assert.equal(kept.length, 80);
    assert.deepEqual(new Set(kept), ids);
    assert.equal(new Set([...a.list(), ...b.list()].map((entry) => entry.id)).size, 80);
  });

  it('two windows over one history file, both recording 40 at once, keep all 80', async () => {
    const file = path.join(dir, 'history.json');
    const a = new HistoryStore(fileHistoryStorage(file));
    const b = new HistoryStore(fileHistoryStorage(file));
    const ids = await recordConcurrently([a, b], 40);
    const kept = new HistoryStore(fileHistoryStorage(file)).list().map((entry) => entry.id);
    assert.equal(kept.length, 80);
    assert.deepEqual(new Set(kept), ids);
    assert.deepEqual(readdirSync(dir), ['history.json'], 'no lock or temporary file left');
  });

  it('clear in one window forgets what the other stored, and the merge does not bring it back', async () => {
    const storage = new SharedStorage();
    const a = new HistoryStore(storage);
    const b = new HistoryStore(storage);
    await a.add(exchange('a'));
    await b.add(exchange('b'));
    await a.clear();
    assert.deepEqual(new HistoryStore(storage).list(), []);
    const c = await b.add(exchange('c'));
    assert.deepEqual(new HistoryStore(storage).list().map((entry) => entry.id), [c.id]);
  });

  it('a corrupt history file is kept beside the new one, and the log is told', async () => {
    const file = path.join(dir, 'history.json');
    writeFileSync(file, '{"version":1,"exchanges":[{"id":"x"');
    const store = new HistoryStore(fileHistoryStorage(file));
    const problems: string[] = [];
    store.onProblem((problem) => problems.push(problem));
    assert.deepEqual(store.list(), []);
    const added = await store.add(exchange('after'));
    const kept = readdirSync(dir).filter((name) => name.startsWith('history.unreadable-'));
    assert.equal(kept.length, 1);
    assert.equal(readFileSync(path.join(dir, kept[0]), 'utf8'), '{"version":1,"exchanges":[{"id":"x"');
    assert.deepEqual(new HistoryStore(fileHistoryStorage(file)).list().map((entry) => entry.id), [added.id]);
    assert.match(problems.join('\n'), /not valid JSON; it starts empty\. The unreadable history was kept as .*history\.unreadable-.*\.json/);
  });

  it('an unreadable stored value (not a file) is kept under a second key', async () => {
    const storage = new SharedStorage();
    storage.value = { version: 7, something: 'else' };
    const store = new HistoryStore(storage);
    assert.deepEqual(store.list(), []);
    await store.add(exchange('x'));
    assert.deepEqual(storage.unreadable, { version: 7, something: 'else' });
    assert.match(store.problems.join('\n'), /not in a known form; it starts empty\. The unreadable history was kept as the second key/);
  });

  it('a hostile 64 MiB history file is listed in well under a second, bounded and scrubbed', () => {
    const file = path.join(dir, 'history.json');
    const template = exchange('z'.repeat(300));
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 64 * 1024 * 1024; i++) {
      // Unmasked keys everywhere: what is kept must be scrubbed; what is not kept need not be.
      const item = JSON.stringify({ ...template, id: `e${i}`, request: { ...template.request, headers: { Authorization: `Bearer ${CANARY}` } }, outcome: { kind: 'done', message: `Bearer ${CANARY}` } });
      parts.push(item);
      size += item.length + 1;
    }
    writeFileSync(file, `{"version":1,"exchanges":[${parts.join(',')}]}`);
    const store = new HistoryStore(fileHistoryStorage(file));
    const started = process.hrtime.bigint();
    const listed = store.list();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`      listing a ${(size / 1024 / 1024).toFixed(0)} MiB history file (${parts.length} entries) took ${ms.toFixed(0)} ms; ${listed.length} kept`);
    assert.ok(ms < 1000, `${ms} ms`);
    assert.ok(listed.length > 0 && listed.length <= 200);
    assert.equal(listed[0].id, 'e0');
    assert.ok(!JSON.stringify(listed).includes(CANARY));
    assert.match(store.problems.join('\n'), /more than History keeps: only its newest exchanges were read/);
  });

  it('a 64 MiB file of garbage is set aside quickly too', async () => {
    const file = path.join(dir, 'history.json');
    writeFileSync(file, Buffer.alloc(64 * 1024 * 1024, 'x'));
    const store = new HistoryStore(fileHistoryStorage(file));
    const started = process.hrtime.bigint();
    assert.deepEqual(store.list(), []);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`      listing a 64 MiB garbage file took ${ms.toFixed(0)} ms`);
    assert.ok(ms < 1000, `${ms} ms`);
    await store.add(exchange('x'));
    assert.equal(readdirSync(dir).filter((name) => name.startsWith('history.unreadable-')).length, 1);
  });
});
