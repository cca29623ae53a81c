import * as assert from 'node:assert/strict';
import { validateBaseUrl } from '../../../src/shared/baseUrl';
import { prepare, type PrepareConfig, type QueryContext } from '../../../src/shared/prepare';

const config = (overrides: Partial<PrepareConfig> = {}): PrepareConfig => ({
  applications: [{ id: 'docs', name: 'Docs Bot' }, { id: 'raw', requestTemplate: { q: '${question}', f: '${file}' }, responseFormat: 'sse', responseField: 'a.b' }],
  defaultTemplate: { query: '${input}' },
  baseUrl: validateBaseUrl('https://service.example.com/base/'),
  confirmAboveChars: 1000,
  ...overrides,
});

const selection = (text: string, fileText: string): QueryContext => ({ kind: 'selection', label: 'a.ts:1-2', text, fileName: 'a.ts', languageId: 'typescript', fileText });

function nested(depth: number): unknown {
  let value: unknown = '${input}';
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

describe('prepare: the pure first step of every query', () => {
  it('builds the request: URL with the encoded id, the rendered body and its JSON text, the format', () => {
    const ready = prepare({ applicationId: 'raw', question: 'why?', context: selection('x', 'whole file') }, config());
    assert.ok(ready.ok);
    assert.equal(ready.url, 'https://service.example.com/base/api/applications/raw/query');
    assert.equal(ready.origin, 'https://service.example.com');
    assert.deepEqual(ready.body, { q: 'why?', f: 'whole file' });
    assert.equal(ready.bodyText, '{"q":"why?","f":"whole file"}');
    assert.equal(ready.responseFormat, 'sse');
    assert.equal(ready.responseField, 'a.b');
    assert.equal(ready.confirm, undefined);
    assert.equal(ready.label, 'raw');
  });

  it('refuses an application that is not configured, with Add Application… as the remedy', () => {
    const refused = prepare({ applicationId: 'nope', question: 'q' }, config());
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok);
    assert.match(refused.message, /"nope" is not in applicationQuery\.applications/);
    assert.deepEqual(refused.remedies, ['addApplication']);
  });

  it('refuses a bad base URL, with Open Settings as the remedy', () => {
    const refused = prepare({ applicationId: 'docs', question: 'q' }, config({ baseUrl: validateBaseUrl('http://example.com') }));
    assert.ok(!refused.ok);
    assert.match(refused.message, /https/);
    assert.deepEqual(refused.remedies, ['openBaseUrlSetting']);
  });

  it('refuses a template nested too deeply instead of throwing (the runner used to leave its sinks open)', () => {
    const refused = prepare({ applicationId: 'deep', question: 'q' }, config({ applications: [{ id: 'deep', requestTemplate: nested(150) as Record<string, unknown> }] }));
    assert.ok(!refused.ok);
    assert.match(refused.message, /request template of deep cannot be used: .*nested too deeply/);
    assert.deepEqual(refused.remedies, ['checkApplications']);
  });

  it('refuses an application id that is not well-formed Unicode instead of throwing in encodeURIComponent', () => {
    const id = 'app-\uD800';
    const refused = prepare({ applicationId: id, question: 'q' }, config({ applications: [{ id }] }));
    assert.ok(!refused.ok);
    assert.match(refused.message, /not well-formed Unicode/);
  });

  it('asks before a large body, whichever variable made it large (${file} inside a selection query too)', () => {
    const big = 'x'.repeat(5000);
    const viaFile = prepare({ applicationId: 'raw', question: 'q', context: selection('small', big) }, config());
    assert.ok(viaFile.ok);
    assert.match(viaFile.confirm ?? '', /^The request with a\.ts:1-2 is large \(5 K characters\)\. Send it to raw\?$/);
    const viaHistory = prepare({ applicationId: 'docs', question: 'q', history: big }, config({ applications: [{ id: 'docs', requestTemplate: { h: '${history}' } }] }));
    assert.ok(viaHistory.ok);
    assert.match(viaHistory.confirm ?? '', /^The request is large/);
    const small = prepare({ applicationId: 'docs', question: 'q', context: selection('small', big) }, config());
    assert.ok(small.ok);
    assert.equal(small.confirm, undefined, 'the default template does not use ${file}: nothing large is sent');
  });

  it('replays a recorded body exactly as it was (no template), and refuses one that is not JSON', () => {
    const recorded = '{"q":"as sent","n":1.5,"nested":{"x":"${file} stays"}}';
    const ready = prepare({ applicationId: 'raw', question: 'ignored', recordedBody: recorded }, config());
    assert.ok(ready.ok);
    assert.equal(ready.bodyText, recorded);
    assert.deepEqual(ready.body, JSON.parse(recorded));
    const refused = prepare({ applicationId: 'raw', question: '', recordedBody: '{"cut' }, config());
    assert.ok(!refused.ok);
    assert.match(refused.message, /recorded request body is not valid JSON/);
  });
});
