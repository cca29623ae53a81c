// The command line's settings files: JSONC with comments and trailing commas, the applicationQuery.* keys.
import * as assert from 'node:assert/strict';
import { CliSettings, parseSettings, SettingsError } from '../../../src/cli/settings';

describe('command line: settings file', () => {
  it('reads the applicationQuery.* keys of a settings file with comments and trailing commas, and nothing else', () => {
    const text = [
      '\uFEFF{',
      '  // The service',
      '  "applicationQuery.baseUrl": "https://service.example.com", /* inline */',
      '  "applicationQuery.applications": [{ "id": "support-bot", "name": "Support", }, { "id": "grader" },],',
      '  "applicationQuery.environments": { "staging": { "baseUrl": "https://staging.example.com" } },',
      '  "applicationQuery.requestTemplate": { "q": "${input}", "note": "// not a comment, /* nor this */" },',
      '  "applicationQuery.queryFiles.concurrency": 8,',
      '  "applicationQuery.output": "outputChannel",',
      '  "editor.fontSize": 14,',
      '}',
    ].join('\n');
    const values = parseSettings(text, 'settings.json');
    assert.equal(values.baseUrl, 'https://service.example.com');
    assert.deepEqual(values.applications.map((a) => a.id), ['support-bot', 'grader']);
    assert.deepEqual(values.environments, [{ name: 'staging', baseUrl: 'https://staging.example.com' }]);
    assert.deepEqual(values.requestTemplate, { q: '${input}', note: '// not a comment, /* nor this */' });
    assert.equal(values.concurrency, 8);
    assert.ok(!('output' in values));
    const settings = new CliSettings(values, { environment: 'staging' });
    const staging = settings.baseUrl();
    assert.ok(staging.ok && staging.origin === 'https://staging.example.com');
    const overridden = new CliSettings(values, { environment: '', baseUrl: 'http://127.0.0.1:9' }).baseUrl();
    assert.ok(overridden.ok && overridden.origin === 'http://127.0.0.1:9', 'APPLICATION_QUERY_BASE_URL wins over the file');
    assert.equal(new CliSettings(values, { environment: '', concurrency: 2 }).queryConcurrency(), 2);
  });

  it('a file that is not JSON, or holds a wrong type, is one clear error naming the file', () => {
    for (const [text, pattern] of [
      ['{ "applicationQuery.baseUrl": ', /settings\.json is not valid JSON/],
      ['[]', /must hold an object/],
      ['{ "applicationQuery.baseUrl": 42 }', /baseUrl must be a string/],
      ['{ "applicationQuery.queryFiles.concurrency": 99 }', /concurrency must be a whole number from 1 to 16/],
      ['{ "applicationQuery.applications": { "id": "x" } }', /applications must be an array/],
    ] as const) {
      assert.throws(() => parseSettings(text, 'settings.json'), (error: unknown) => error instanceof SettingsError && pattern.test(error.message), text);
    }
  });

  it('reads settings files as VS Code writes them: comments and trailing commas, and says where one is broken', () => {
    const settings = parseSettings('{\n  // the team\'s service\n  "applicationQuery.baseUrl": "https://x.test/*not a comment*/", /* c */\n  "applicationQuery.applications": [{ "id": "a//b" },],\n}', 'settings.json');
    assert.equal(settings.baseUrl, 'https://x.test/*not a comment*/');
    assert.deepEqual(settings.applications.map((app) => app.id), ['a//b']);
    assert.throws(() => parseSettings('{\n  "applicationQuery.baseUrl": "x"\n  "applicationQuery.env": 1\n}', 'settings.json'), /settings\.json is not valid JSON: CommaExpected at line 3, column 3\./);
  });
});
