// The command line's own parts in plain Node: settings files (JSONC), key variable names, the JUnit
// writer (escaping, characters XML cannot hold), the answers' diff (against diff -u), globs, arguments.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCommand } from '../../../src/cli/args';
import { unifiedDiff } from '../../../src/cli/diff';
import { findQueryFiles } from '../../../src/cli/files';
import { EnvironmentKeys, keyVariable } from '../../../src/cli/keys';
import type { QueryReport } from '../../../src/cli/report';
import { junitReport, xmlText } from '../../../src/cli/reporters/junit';
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

describe('command line: keys from the environment', () => {
  it('names each application’s variable: upper-cased, every character outside A-Z and 0-9 as _', () => {
    assert.equal(keyVariable('support-bot'), 'APPLICATION_QUERY_KEY_SUPPORT_BOT');
    assert.equal(keyVariable('app.v2:beta'), 'APPLICATION_QUERY_KEY_APP_V2_BETA');
    assert.equal(keyVariable('ünï-1'), 'APPLICATION_QUERY_KEY__N__1');
    assert.equal(keyVariable('echo'), 'APPLICATION_QUERY_KEY_ECHO');
  });

  it('an application’s own key wins over the shared one; a missing or unusable key is a problem that names the variable, never the key', async () => {
    const keys = new EnvironmentKeys({ APPLICATION_QUERY_KEY_ECHO: 'own-key-123456', APPLICATION_QUERY_KEY: 'shared-key-123456', APPLICATION_QUERY_KEY_BAD: 'has space', PATH: '/bin' });
    assert.equal(await keys.get({ applicationId: 'echo' }), 'own-key-123456');
    assert.equal(await keys.get({ applicationId: 'other' }), 'shared-key-123456');
    assert.deepEqual([...keys.knownSecrets()].sort(), ['has space', 'own-key-123456', 'shared-key-123456']);
    assert.match(keys.problem('bad') ?? '', /^APPLICATION_QUERY_KEY_BAD: The API key contains spaces/);
    assert.ok(!(keys.problem('bad') ?? '').includes('has space'));
    const none = new EnvironmentKeys({});
    assert.equal(none.problem('support-bot'), 'No API key for support-bot: set APPLICATION_QUERY_KEY_SUPPORT_BOT (or APPLICATION_QUERY_KEY) in the environment.');
  });
});

function report(name: string, result: QueryReport['result']): QueryReport {
  return { file: 'queries/a&b.aq.md', query: name, line: 4, name, result };
}

const sent = (answer: string) => ({ outcome: { kind: 'done' as const, httpStatus: 200, wireBytes: 1, textChars: answer.length, durationMs: 1234, retryable: false, remedies: [] }, answer, cut: false, sent: true });

describe('command line: JUnit report', () => {
  it('escapes markup and removes characters XML 1.0 cannot hold (controls, lone surrogates, U+FFFE)', () => {
    assert.equal(xmlText('a<b>&"c\'\u0000\u001b[31m\uD800x\uFFFE\t\n😀'), 'a&lt;b&gt;&amp;&quot;c&apos;[31mx\t\n😀');
  });

  it('a suite per file, a case per query: failure with expected and actual, error for not sent, skipped, the answer in system-out', () => {
    const xml = junitReport(
      [
        report('passes <ok>', { verdict: 'passed', sent: sent('fine \u0007answer'), checks: [] }),
        report('fails', { verdict: 'failed', sent: sent('the answer'), checks: [{ passed: false, message: 'Expected the answer to contain "x", it does not.', expected: 'x', actual: 'the answer' }] }),
        report('not sent', { verdict: 'errored', message: 'No API key', line: 9 }),
        report('stopped', { verdict: 'skipped' }),
      ],
      5000,
    );
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="application-query" tests="4" failures="1" errors="1" skipped="1" time="5.000">/);
    assert.match(xml, /<testsuite name="queries\/a&amp;b.aq.md" tests="4" failures="1" errors="1" skipped="1" time="2.468">/);
    assert.match(xml, /<testcase name="passes &lt;ok&gt;" classname="queries\/a&amp;b.aq.md" file="queries\/a&amp;b.aq.md" line="5" time="1.234">\n\s+<system-out>fine answer<\/system-out>/);
    assert.match(xml, /<failure message="Expected the answer to contain &quot;x&quot;, it does not." type="expectation">Expected the answer to contain &quot;x&quot;, it does not.\nexpected: x\nactual: the answer<\/failure>/);
    assert.match(xml, /<error message="No API key" type="not sent">No API key<\/error>/);
    assert.match(xml, /<testcase name="stopped"[^>]*>\n\s+<skipped message="stopped before it completed"\/>/);
  });
});

describe('command line: the answers’ diff', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'aq-diff-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** diff -u's hunks for the same texts (its header lines carry file names and times). */
  function gnuHunks(a: string, b: string): string {
    writeFileSync(path.join(dir, 'a'), a);
    writeFileSync(path.join(dir, 'b'), b);
    try {
      execFileSync('diff', ['-u', path.join(dir, 'a'), path.join(dir, 'b')]);
      return '';
    } catch (error) {
      return String((error as { stdout: Buffer }).stdout).split('\n').slice(2).join('\n');
    }
  }

  it('gives the same hunks as diff -u for changes, insertions, deletions and far-apart edits', function () {
    try {
      execFileSync('diff', ['--version']);
    } catch {
      this.skip();
    }
    const base = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
    const cases: [string[], string[]][] = [
      [base, base.map((l, i) => (i === 5 ? 'changed' : l))],
      [base, [...base.slice(0, 10), 'new a', 'new b', ...base.slice(10)]],
      [base, base.filter((_, i) => i !== 0 && i !== 39)],
      [base, base.map((l, i) => (i === 2 || i === 30 ? `${l}!` : l))],
      [['only'], ['other', 'lines']],
      [[], ['added']],
    ];
    for (const [a, b] of cases) {
      const textA = a.length === 0 ? '' : `${a.join('\n')}\n`;
      const textB = `${b.join('\n')}\n`;
      const ours = unifiedDiff(textA, textB, { before: 'a', after: 'b' }).split('\n').slice(2).join('\n');
      assert.equal(ours, gnuHunks(textA, textB), JSON.stringify([a.length, b.length]));
    }
    assert.equal(unifiedDiff('same\n', 'same\n', { before: 'a', after: 'b' }), '');
    // Two answers that both end without a line break differ only in their lines; one that gains a line break says so, as diff -u does.
    assert.equal(unifiedDiff('old', 'new', { before: 'a', after: 'b' }), '--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n');
    assert.equal(unifiedDiff('same', 'same\n', { before: 'a', after: 'b' }), '--- a\n+++ b\n@@ -1 +1 @@\n-same\n\\ No newline at end of file\n+same\n');
  });
});

describe('command line: arguments and globs', () => {
  it('parses the test command and refuses what it cannot use, in one line', () => {
    const ok = parseCommand(['test', 'a.aq.md', '--reporter', 'junit', '--output', 'r.xml', '--grep', 'refund', '--concurrency', '3', '--env', 'staging']);
    assert.ok(ok.kind === 'test');
    assert.deepEqual(ok.options, { paths: ['a.aq.md'], environment: 'staging', reporter: 'junit', output: 'r.xml', grep: 'refund', concurrency: 3 });
    assert.equal(parseCommand(['--version']).kind, 'version');
    for (const argv of [['test', '--reporter', 'tap'], ['test', '--concurrency', '0'], ['test', '--nope'], ['run'], [], ['test', '--output', 'x']]) {
      const command = parseCommand(argv);
      assert.equal(command.kind, 'usage', argv.join(' '));
    }
  });

  it('globs: ** across folders, * within a name, {a,b} and [..]; folders are searched for query files, but node_modules and .git', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'aq-globs-'));
    try {
      for (const file of ['c.aq.md', 'a/b/c.aq.md', 'queries/full/x.aq.md', 'queries/other/x.aq.md', 'q7.aq.md', 'notes.md', 'node_modules/p/x.aq.md', '.git/x.aq.md', '.team/t.aq.md']) {
        await mkdir(path.dirname(path.join(root, file)), { recursive: true });
        await writeFile(path.join(root, file), '## Q\n\nHi\n');
      }
      const found = async (...args: string[]): Promise<string[]> => {
        const result = await findQueryFiles(root, args);
        return [...result.files.map((file) => path.relative(root, file).split(path.sep).join('/')), ...result.problems];
      };
      assert.deepEqual(await found('**/*.aq.md'), ['.team/t.aq.md', 'a/b/c.aq.md', 'c.aq.md', 'q7.aq.md', 'queries/full/x.aq.md', 'queries/other/x.aq.md']);
      assert.deepEqual(await found('*.aq.md'), ['c.aq.md', 'q7.aq.md']);
      assert.deepEqual(await found('queries/{smoke,full}/*.aq.md'), ['queries/full/x.aq.md']);
      assert.deepEqual(await found('q[0-9].aq.md', 'q?.aq.md'), ['q7.aq.md']);
      assert.deepEqual(await found(), ['.team/t.aq.md', 'a/b/c.aq.md', 'c.aq.md', 'q7.aq.md', 'queries/full/x.aq.md', 'queries/other/x.aq.md']);
      assert.deepEqual(await found('queries', 'notes.md'), ['queries/full/x.aq.md', 'queries/other/x.aq.md', 'notes.md']);
      assert.deepEqual(await found('*.txt', 'missing'), ['*.txt matches no file.', 'missing does not exist.']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
