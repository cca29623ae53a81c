// The query-file engine without the editor, against the reference service: planning, context read
// only when a query's turn comes (memory follows the concurrency), the limit per service, Stop,
// expectations and masking of a key the service echoes.
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readFenced } from '../../../../src/client/queryFiles/contextFence';
import { planQuery, runQueries, type PlannedQuery, type QueryResult } from '../../../../src/client/queryFiles/engine';
import { pipelineSender } from '../../../../src/client/queryFiles/pipelineSender';
import { knownFrom, serviceOrigin, type EngineSettings, type KeySource } from '../../../../src/client/queryFiles/sources';
import { parseQueryFile } from '../../../../src/shared/queryFile';
import { startService, type ReferenceService } from '../../../../service/server';
import { waitFor } from '../../../support/loopback';
import { loopbackSettings } from '../../../support/engineSettings';

const QUIET = { info: () => undefined, warn: () => undefined, error: () => undefined };

const IDS = ['echo', 'stall', 'echo-key', 'fail-500', 'judge', 'judge-malformed', 'judge-broken'];

function settingsFor(url: string, concurrency: number): EngineSettings {
  return loopbackSettings(url, IDS, concurrency, 10_000);
}

function keysOf(service: ReferenceService): KeySource {
  const ids = IDS;
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

  it('checks for answers that vary: repeats, JSON and its schema, the longest gap, and judges that pass, fail, give no verdict, fail, or are not there', async () => {
    await fs.writeFile(path.join(folder, 'query.schema.json'), JSON.stringify({ type: 'object', required: ['query'], properties: { query: { type: 'string' } } }));
    await fs.writeFile(path.join(folder, 'strict.schema.json'), JSON.stringify({ type: 'object', required: ['answer'], properties: { query: { type: 'integer' } } }));
    const settings = settingsFor(service.url, 2);
    const section = (name: string, lines: string[]): string => [`## ${name}`, '- application: echo', ...lines, '', 'Tell me about the refund policy', ''].join('\n');
    const text = [
      section('Judged and shaped, 3 runs', ['- runs: 3', '- expect: judged by judge: mentions "refund"', '- expect: json', '- expect: json schema query.schema.json', '- expect: max gap under 10s']),
      section('Judged FAIL twice', ['- runs: 2', '- expect: judged by judge: mentions "holiday"']),
      section('No verdict', ['- expect: judged by judge-malformed: mentions "refund"']),
      section('Failing judge', ['- expect: judged by judge-broken: mentions "refund"']),
      section('A model', ['- expect: judged by model some-model: is polite']),
      section('Schema violations', ['- expect: json schema strict.schema.json']),
    ].join('\n');
    const before = service.requests.length;
    const results = await runQueries(plan(text, settings), pipelineSender(settings, keysOf(service), QUIET), {
      concurrency: 2,
      signal: new AbortController().signal,
      listener: { started: () => undefined, ended: () => undefined },
      checks: { known: knownFrom(settings, undefined) },
    });
    assert.deepEqual(results.map((r) => r.verdict), ['passed', 'failed', 'failed', 'failed', 'failed', 'failed']);
    const messages = (r: QueryResult): string[] => (r.verdict === 'passed' || r.verdict === 'failed' ? r.checks.map((c) => c.message) : []);
    const [repeated, judgedFail, malformed, broken, model, schema] = results;
    assert.ok(repeated.verdict === 'passed' && repeated.repeats !== undefined);
    assert.deepEqual([repeated.repeats.passed, repeated.repeats.needed, repeated.repeats.runs.length], [3, 3, 3]);
    assert.deepEqual(messages(repeated).slice(1, 4), ['Judged PASS by "judge". the answer mentions "refund".', 'The answer is JSON.', 'The answer is JSON that validates against "query.schema.json".']);
    assert.match(messages(repeated)[4], /^The longest gap between chunks was \d+ ms \(limit 10 s\)\.$/);
    // Three runs and three judgements, each a request of its own (the judge's through its own key and template).
    const sent = service.requests.slice(before);
    assert.equal(sent.filter((r) => r.applicationId === 'judge').length, 3 + 2);
    assert.ok(sent.filter((r) => r.applicationId === 'judge').every((r) => r.body.includes('<<<CRITERION>>>')));
    assert.deepEqual(messages(judgedFail).slice(0, 2), ['0 of 2 runs passed; every run must pass.', 'Run 1: Judged FAIL by "judge". the answer never mentions "holiday".']);
    assert.match(messages(malformed)[1], /^Not judged: the judge's answer starts with neither PASS nor FAIL, nor is it JSON with "pass": "I read the answer carefully/);
    assert.equal(messages(broken)[1], 'Not judged: the judge judge-broken answered HTTP 500.');
    assert.ok(model.verdict === 'failed');
    assert.deepEqual([model.checks[1].message, model.checks[1].notRun], ["Not run: judged by model some-model needs VS Code's language models; the command line has none.", true]);
    assert.match(messages(schema)[1], /^Expected the answer to validate against "strict\.schema\.json"; 2 violations:\n\(the whole answer\): must have required property 'answer'\n\/query: must be integer$/);
  });
});
