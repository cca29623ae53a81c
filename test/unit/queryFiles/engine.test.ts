// The query-file engine without the editor, against the reference service: planning, context read
// only when a query's turn comes (memory follows the concurrency), the limit per service, Stop,
// expectations and masking of a key the service echoes.
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readFenced } from '../../../src/client/queryFiles/contextFence';
import { planQuery, runQueries, type PlannedQuery, type QueryResult } from '../../../src/client/queryFiles/engine';
import { pipelineSender } from '../../../src/client/queryFiles/pipelineSender';
import { knownFrom, serviceOrigin, type EngineSettings, type KeySource } from '../../../src/client/queryFiles/sources';
import { validateBaseUrl } from '../../../src/shared/baseUrl';
import { DEFAULT_TEMPLATE } from '../../../src/shared/template';
import { parseQueryFile } from '../../../src/shared/queryFile';
import { startService, type ReferenceService } from '../../../service/server';
import { waitFor } from '../helpers/loopback';

const QUIET = { info: () => undefined, warn: () => undefined, error: () => undefined };

function settingsFor(url: string, concurrency: number): EngineSettings {
  const ids = ['echo', 'stall', 'echo-key', 'fail-500'];
  return {
    applications: () => ({ applications: ids.map((id) => ({ id })) }),
    environments: () => ({ environments: [] }),
    defaultTemplate: () => DEFAULT_TEMPLATE,
    baseUrl: () => validateBaseUrl(url),
    serviceFor: () => validateBaseUrl(url),
    headersTimeoutMs: () => 10_000,
    idleTimeoutMs: () => 0,
    queryConcurrency: () => concurrency,
  };
}

function keysOf(service: ReferenceService): KeySource {
  const ids = ['echo', 'stall', 'echo-key', 'fail-500'];
  return { get: (ref) => Promise.resolve(service.keyFor(ref.applicationId)), knownSecrets: () => ids.map((id) => service.keyFor(id)) };
}

describe('query-file engine (no editor)', () => {
  let service: ReferenceService;
  let folder: string;

  before(async () => {
    service = await startService({ quiet: true, paceMs: 1 });
  });
  after(async () => {
    await service.close();
  });
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'aq-engine-'));
  });
  afterEach(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  function plan(text: string, settings: EngineSettings): PlannedQuery<string>[] {
    const known = knownFrom(settings, undefined);
    return parseQueryFile(text).queries.map((query) => {
      const p = planQuery(query, known);
      assert.ok(p.ok, JSON.stringify(p));
      const target = p.targets[0];
      return { tag: query.name, query, target, service: serviceOrigin(settings, target), readContext: (r) => readFenced(folder, 'ws', r) };
    });
  }

  it('reads each query’s context only when its turn comes: with 2 at a time, 2 contexts read while 2 requests wait; Stop skips the rest', async () => {
    await fs.writeFile(path.join(folder, 'ctx.txt'), 'context text');
    const settings = settingsFor(service.url, 2);
    const sections = Array.from({ length: 6 }, (_, i) => `## Stalls ${i + 1}\n- application: stall\n- context: ctx.txt\n\nWait ${i + 1}\n`);
    const reads: string[] = [];
    const planned = plan(sections.join('\n'), settings).map((p) => ({ ...p, readContext: (r: Parameters<typeof p.readContext>[0]) => (reads.push(p.tag), p.readContext(r)) }));
    const before = service.requests.length;
    const stop = new AbortController();
    const started: string[] = [];
    const ended = new Map<string, QueryResult>();
    const running = runQueries(planned, pipelineSender(settings, keysOf(service), QUIET), {
      concurrency: settings.queryConcurrency(),
      signal: stop.signal,
      listener: { started: (p) => started.push(p.tag), ended: (p, r) => ended.set(p.tag, r) },
    });
    await waitFor(() => service.requests.length - before >= 2, 'two requests at the service');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(service.requests.length - before, 2, 'the limit: two at a time');
    assert.deepEqual(reads, ['Stalls 1', 'Stalls 2'], 'only the two sent have read their context');
    stop.abort();
    const results = await running;
    assert.deepEqual(started, ['Stalls 1', 'Stalls 2']);
    assert.deepEqual(results.map((r) => r.verdict), Array(6).fill('skipped'));
    assert.equal(reads.length, 2, 'the skipped ones never read theirs');
    await waitFor(() => service.requests.slice(before).every((r) => r.closedByClientAt !== undefined), 'the service saw both connections close');
  });

  it('checks expectations, masks an echoed key, and reports a context outside the folder as not sent', async () => {
    await fs.writeFile(path.join(folder, 'ctx.ts'), 'one\nexport const answer = 42;\nthree\n');
    await fs.symlink(os.tmpdir(), path.join(folder, 'link.txt'));
    const settings = settingsFor(service.url, 4);
    const text = [
      '## Passes',
      '- application: echo',
      '- context: ctx.ts#L2',
      '- expect: contains "answer = 42"',
      '- expect: not contains "three"',
      '',
      'Q1',
      '## Fails',
      '- application: fail-500',
      '',
      'Q2',
      '## Echoes the key',
      '- application: echo-key',
      '- expect: status 200',
      '',
      'Q3',
      '## Out',
      '- application: echo',
      '- context: link.txt',
      '',
      'Q4',
    ].join('\n');
    const results = await runQueries(plan(text, settings), pipelineSender(settings, keysOf(service), QUIET), {
      concurrency: 4,
      signal: new AbortController().signal,
      listener: { started: () => undefined, ended: () => undefined },
    });
    assert.deepEqual(results.map((r) => r.verdict), ['passed', 'failed', 'passed', 'errored']);
    const echoed = results[2];
    assert.ok(echoed.verdict === 'passed');
    assert.ok(!echoed.sent.answer.includes(service.keyFor('echo-key')), 'the echoed key is masked');
    assert.ok(!echoed.sent.answer.includes(service.keyFor('echo-key').slice(0, 12)));
    const out = results[3];
    assert.ok(out.verdict === 'errored');
    assert.match(out.message, /^Not sent: link.txt leads outside the workspace folder ws/);
    assert.equal(out.line, 18);
  });
});
