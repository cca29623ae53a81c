// History and environments: each exchange records the environment it went to, a stored one is read
// back defensively, the new surfaces (query files, Compare) are kept, and Replay's target follows
// the recorded environment while it exists.
import * as assert from 'node:assert/strict';
import {
  ENVIRONMENT_NAME_MAX_CHARS,
  ExchangeRecorder,
  HistoryStore,
  parseExchange,
  replayTarget,
  type Exchange,
  type ExchangeStart,
  type HistoryStorage,
} from '../../../../src/client/history';

const CANARY = 'aq_CANARY-history-environment-4R8T';

const start = (overrides: Partial<ExchangeStart> = {}): ExchangeStart => ({
  applicationId: 'demo',
  applicationLabel: 'Demo',
  surface: 'command',
  method: 'POST',
  url: 'https://staging.example.com/api/applications/demo/query',
  headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${CANARY}` },
  body: '{"query":"hi"}',
  secrets: [CANARY],
  ...overrides,
});

function exchange(overrides: Partial<ExchangeStart> = {}): Exchange {
  const recorder = new ExchangeRecorder(start(overrides));
  recorder.headers(200, 'OK', { 'content-type': 'text/plain' }, 'text');
  recorder.raw('hello');
  recorder.text('hello');
  return recorder.finish({ kind: 'done' });
}

/** What a reloaded window reads: the exchange through JSON and back. */
function reread(value: unknown): Exchange | undefined {
  return parseExchange(JSON.parse(JSON.stringify(value)));
}

/** A storage holding `exchanges` as History stores them (as JSON). */
function storageOf(exchanges: readonly unknown[]): HistoryStorage {
  const value: unknown = JSON.parse(JSON.stringify({ version: 1, exchanges }));
  return { get: () => value, update: () => Promise.resolve() };
}

describe('history/environments', () => {
  describe('recording', () => {
    it('records the environment the request went to, as given', () => {
      const recorded = exchange({ environment: 'staging' });
      assert.equal(recorded.environment, 'staging');
      assert.equal(reread(recorded)?.environment, 'staging');
    });

    it('records an empty environment (applicationQuery.baseUrl) as empty, and none when none is given', () => {
      assert.equal(exchange({ environment: '' }).environment, '');
      assert.equal(reread(exchange({ environment: '' }))?.environment, '');
      const without = exchange();
      assert.equal('environment' in without, false, 'no environment property at all');
      assert.equal('environment' in (reread(without) ?? {}), false);
    });

    it('masks the key in the environment name too, like every recorded string', () => {
      const recorded = exchange({ environment: `env-${CANARY}` });
      assert.ok(!JSON.stringify(recorded).includes(CANARY));
      assert.equal(recorded.environment, 'env-••••4R8T');
    });
  });

  describe('reading a stored exchange back', () => {
    it('keeps a name of up to 200 characters exactly, hostile text included (it is made inert where it is shown)', () => {
      const longest = 'e'.repeat(ENVIRONMENT_NAME_MAX_CHARS);
      assert.equal(ENVIRONMENT_NAME_MAX_CHARS, 200);
      assert.equal(reread({ ...exchange(), environment: longest })?.environment, longest);
      const hostile = '[prod](command:workbench.action.openSettings) $(alert) \u202e\n';
      assert.equal(reread({ ...exchange(), environment: hostile })?.environment, hostile);
    });

    it('drops an oversized or non-string environment, never the exchange', () => {
      const good = exchange({ environment: 'staging' });
      for (const environment of ['x'.repeat(ENVIRONMENT_NAME_MAX_CHARS + 1), 'x'.repeat(1_000_000), 42, true, null, {}, ['staging'], { name: 'staging' }]) {
        const parsed = reread({ ...good, environment });
        assert.ok(parsed !== undefined, `the exchange with environment ${JSON.stringify(environment).slice(0, 40)} is kept`);
        assert.equal(parsed.id, good.id);
        assert.equal('environment' in parsed, false, `environment ${JSON.stringify(environment).slice(0, 40)} is dropped`);
        assert.deepEqual(parsed, reread({ ...good, environment: undefined }));
      }
    });

    it('a stored history with a hostile, oversized environment loads the exchange without it', () => {
      const good = exchange({ environment: 'prod' });
      const bad = { ...exchange({ environment: 'dev' }), environment: `${'A'.repeat(5000)}[x](command:evil)` };
      const store = new HistoryStore(storageOf([good, bad]));
      const [first, second] = store.list();
      assert.equal(store.list().length, 2);
      assert.equal(first.environment, 'prod');
      assert.equal(second.id, bad.id);
      assert.equal(second.environment, undefined);
      assert.deepEqual(store.problems, [], 'a dropped field is not a dropped entry');
    });

    it('an exchange stored before environments (no field) reads back without one', () => {
      const older: Record<string, unknown> = { ...exchange({ environment: 'staging' }) };
      delete older.environment;
      const parsed = reread(older);
      assert.ok(parsed);
      assert.equal(parsed.environment, undefined);
    });
  });

  describe('surfaces', () => {
    it('records and reads back the query file and Compare surfaces', () => {
      for (const surface of ['queryFile', 'compare'] as const) {
        const recorded = exchange({ surface, environment: 'dev' });
        assert.equal(recorded.surface, surface);
        const parsed = reread(recorded);
        assert.equal(parsed?.surface, surface);
        assert.equal(parsed?.environment, 'dev');
      }
    });

    it('still drops an exchange from an unknown surface', () => {
      for (const surface of ['query-file', 'Compare', 'queryfile', '', 'elsewhere']) {
        assert.equal(reread({ ...exchange(), surface }), undefined, surface);
      }
    });

    it('a store keeps exchanges from every surface across a reload', async () => {
      let value: unknown;
      const storage: HistoryStorage = {
        get: () => value,
        update: (next) => {
          value = JSON.parse(JSON.stringify(next)) as unknown;
          return Promise.resolve();
        },
      };
      const store = new HistoryStore(storage);
      await store.add(exchange({ surface: 'queryFile', environment: 'staging' }));
      await store.add(exchange({ surface: 'compare', environment: '' }));
      const reloaded = new HistoryStore(storage).list();
      assert.deepEqual(reloaded.map((e) => [e.surface, e.environment]), [['compare', ''], ['queryFile', 'staging']]);
    });
  });

  describe('Replay target', () => {
    const configured = [{ name: 'dev' }, { name: 'staging' }];

    it('the recorded environment while it exists', () => {
      assert.deepEqual(replayTarget(exchange({ environment: 'staging' }), configured), { environment: 'staging' });
    });

    it('applicationQuery.baseUrl when it was recorded there (an empty name)', () => {
      assert.deepEqual(replayTarget(exchange({ environment: '' }), configured), { environment: '' });
      assert.deepEqual(replayTarget(exchange({ environment: '' }), []), { environment: '' });
    });

    it('the current service when the exchange does not say', () => {
      assert.deepEqual(replayTarget(exchange(), configured), {});
    });

    it('the current service, naming the missing one, when the recorded environment is gone', () => {
      assert.deepEqual(replayTarget(exchange({ environment: 'prod' }), configured), { missing: 'prod' });
      assert.deepEqual(replayTarget(exchange({ environment: 'Staging' }), configured), { missing: 'Staging' }, 'names match exactly');
      assert.deepEqual(replayTarget(exchange({ environment: 'staging' }), []), { missing: 'staging' });
    });
  });
});
