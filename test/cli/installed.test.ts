// The command line as a CI job meets it: the package in cli/ is packed with `npm pack`, installed
// with npm into an empty folder, and its `application-query` binary run there against the
// reference service: every reporter, every exit status, a key the service echoes (masked in
// stdout, JUnit and JSON), Ctrl+C in the middle of a run, saved and compared answers, --grep, --env.
import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startService, type ReferenceService } from '../../service/server';
import { runCollected, type Collected } from '../support/collect';
import { cleanEnv, closedPortUrl, repoRoot, runProcess, waitFor } from './support';

/** What one run of the installed binary did. */
type Run = Collected;

describe('application-query, packed and installed into an empty folder', function () {
  this.timeout(300_000);
  let temp: string;
  let bin: string;
  let workspace: string;
  let service: ReferenceService;
  let keyEnv: Record<string, string>;

  before(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), 'aq-cli-lane-'));
    const env = cleanEnv();
    const packed = await runProcess('npm', ['pack', '--pack-destination', temp], { cwd: path.join(repoRoot(), 'cli'), env });
    assert.equal(packed.code, 0, packed.output);
    const tarball = (await readdir(temp)).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball !== undefined, `npm pack wrote no tarball: ${packed.output}`);
    const install = path.join(temp, 'ci');
    await mkdir(install);
    // The job's own folder, as a CI job has one: npm then installs here, whatever a folder above holds.
    await writeFile(path.join(install, 'package.json'), '{ "private": true }\n');
    const installed = await runProcess('npm', ['install', '--no-audit', '--no-fund', path.join(temp, tarball)], { cwd: install, env });
    assert.equal(installed.code, 0, installed.output);
    bin = path.join(install, 'node_modules', '.bin', 'application-query');
    const files = await readdir(path.join(install, 'node_modules', 'application-query-cli'));
    assert.deepEqual(files.sort(), ['README.md', 'dist', 'package.json'], 'the package holds the bundle, its README and manifest');
    assert.deepEqual(await readdir(path.join(install, 'node_modules')), ['.bin', '.package-lock.json', 'application-query-cli'], 'no run-time dependencies');
    service = await startService({ quiet: true, paceMs: 1 });
    keyEnv = {
      APPLICATION_QUERY_KEY_ECHO: service.keyFor('echo'),
      APPLICATION_QUERY_KEY_ECHO_KEY: service.keyFor('echo-key'),
      APPLICATION_QUERY_KEY_STALL: service.keyFor('stall'),
      APPLICATION_QUERY_KEY: service.keyFor('fail-500'),
    };
    workspace = path.join(temp, 'repo');
    await mkdir(path.join(workspace, 'queries'), { recursive: true });
    await mkdir(path.join(workspace, 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(workspace, 'node_modules', 'dep', 'ignored.aq.md'), '## Never run\n- application: echo\n\nQ\n');
    await writeFile(path.join(workspace, 'queries', 'context.ts'), 'one\nexport const answer = 42;\nthree\n');
    await writeFile(
      path.join(workspace, 'queries', 'main.aq.md'),
      [
        '# Checks',
        '',
        '## Echoes the context',
        '- application: echo',
        '- context: queries/context.ts#L2',
        '- expect: contains "answer = 42"',
        '- expect: not contains "three"',
        '',
        'What is the answer?',
        '',
        '## Echoes the key',
        '- application: echo-key',
        '- expect: contains "Here is what you sent me"',
        '',
        'Say it back.',
        '',
        '## Fails a contains',
        '- application: echo',
        '- expect: contains "not in the answer"',
        '',
        'Echo me.',
        '',
      ].join('\n'),
    );
    await writeFile(
      path.join(workspace, 'settings.json'),
      [
        '{',
        '  // As VS Code writes it: comments and trailing commas.',
        `  "applicationQuery.baseUrl": "${service.url}",`,
        `  "applicationQuery.environments": { "local": { "baseUrl": "${service.url}" }, },`,
        '  "applicationQuery.applications": [{ "id": "echo" }, { "id": "echo-key" }, { "id": "stall" }, { "id": "fail-500" },],',
        '  "editor.fontSize": 14,',
        '}',
      ].join('\n'),
    );
  });

  after(async () => {
    await service?.close();
    if (temp !== undefined) await rm(temp, { recursive: true, force: true });
  });

  /** Runs the installed binary in the workspace, with the keys in its environment unless `env` says otherwise. */
  function run(args: readonly string[], env: Record<string, string | undefined> = {}, onStart?: (child: ChildProcess) => void): Promise<Run> {
    return runCollected(bin, args, { cwd: workspace, env: cleanEnv({ ...keyEnv, CI: 'true', ...env }) }, onStart);
  }

  function assertMasked(text: string, where: string): void {
    const key = service.keyFor('echo-key');
    for (let start = 0; start + 8 <= key.length; start += 4) assert.ok(!text.includes(key.slice(start, start + 8)), `${where} holds a piece of the key`);
  }

  it('--version and --help answer without a service; the version is the package’s', async () => {
    const version = await run(['--version']);
    assert.equal(version.code, 0);
    const manifest = JSON.parse(await readFile(path.join(repoRoot(), 'cli', 'package.json'), 'utf8')) as { version: string };
    assert.equal(version.stdout, `${manifest.version}\n`);
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: application-query test/);
  });

  it('console: a line per query as it ends, expected and actual for a failure, a summary; exit 1; plain text in CI; the echoed key masked', async () => {
    const before = service.requests.length;
    const result = await run(['test', '--settings', 'settings.json']);
    assert.equal(result.code, 1, result.stderr);
    assert.ok(!result.stdout.includes('\u001b['), 'no colour in a CI log');
    assert.match(result.stdout, /✓ pass {2}queries\/main\.aq\.md › Echoes the context \(\d/);
    assert.match(result.stdout, /✓ pass {2}queries\/main\.aq\.md › Echoes the key/);
    assert.match(result.stdout, /✗ FAIL {2}queries\/main\.aq\.md › Fails a contains[^\n]*\n {4}Expected the answer to contain "not in the answer", it does not\.\n {4}expected: not in the answer\n {4}actual: {3}\{"query":"Echo me\."\}/);
    assert.match(result.stdout, /\n2 passed, 1 failed \(/);
    assert.ok(!result.stdout.includes('Never run'), 'node_modules is skipped');
    assertMasked(result.stdout + result.stderr, 'the console output');
    const posts = service.requests.slice(before);
    assert.equal(posts.length, 3);
    assert.ok(posts.some((p) => p.body.includes('answer = 42') && !p.body.includes('three')), 'the context lines were sent, only those');
  });

  it('junit to a file and json to stdout: every query, failures with expected and actual, the echoed key masked in both', async () => {
    const junit = await run(['test', '--settings', 'settings.json', '--reporter', 'junit', '--output', 'report.xml']);
    assert.equal(junit.code, 1);
    const xml = await readFile(path.join(workspace, 'report.xml'), 'utf8');
    assert.match(xml, /<testsuite name="queries\/main\.aq\.md" tests="3" failures="1" errors="0" skipped="0"/);
    assert.match(xml, /<testcase name="Fails a contains"[^>]*>\n\s+<failure message="Expected the answer to contain &quot;not in the answer&quot;, it does not\." type="expectation">[^<]*expected: not in the answer\nactual: \{&quot;query&quot;:&quot;Echo me\.&quot;\}<\/failure>/);
    assert.match(xml, /<testcase name="Echoes the key"[^>]*>\n\s+<system-out>Here is what you sent me/);
    assertMasked(xml + junit.stdout, 'the JUnit report');
    const json = await run(['test', '--settings', 'settings.json', '--reporter', 'json']);
    assert.equal(json.code, 1);
    const parsed = JSON.parse(json.stdout) as { totals: Record<string, number>; queries: { name: string; verdict: string; answer?: string; httpStatus?: number }[] };
    assert.deepEqual(parsed.totals, { passed: 2, failed: 1, errored: 0, skipped: 0 });
    assert.deepEqual(parsed.queries.map((q) => [q.name, q.verdict, q.httpStatus]), [['Echoes the context', 'passed', 200], ['Echoes the key', 'passed', 200], ['Fails a contains', 'failed', 200]]);
    assert.match(parsed.queries[1].answer ?? '', /Here is what you sent me/);
    assertMasked(json.stdout + json.stderr, 'the JSON report');
    assert.match(json.stderr, /2 passed, 1 failed/, 'the live lines go to stderr when the report takes stdout');
  });

  it('--grep picks queries by name; all passing is exit 0; --env sends to that environment', async () => {
    const before = service.requests.length;
    const result = await run(['test', 'queries/main.aq.md', '--settings', 'settings.json', '--grep', 'ECHOES', '--env', 'local'], { APPLICATION_QUERY_BASE_URL: await closedPortUrl() });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /\n2 passed \(/);
    assert.equal(service.requests.length - before, 2, 'the local environment’s service got both (the base URL is a closed port)');
  });

  it('exit 2 with one line, before anything is sent: no key, a bad settings file, an unknown environment, no files, a bad flag', async () => {
    const before = service.requests.length;
    const cases: [string[], Record<string, string | undefined>, RegExp][] = [
      [['test', '--settings', 'settings.json'], { APPLICATION_QUERY_KEY_ECHO: undefined, APPLICATION_QUERY_KEY: undefined }, /^application-query: No API key for echo: set APPLICATION_QUERY_KEY_ECHO \(or APPLICATION_QUERY_KEY\) in the environment\.\n$/],
      [['test', '--settings', 'queries/context.ts'], {}, /^application-query: The settings file .*context\.ts is not valid JSON: .*\n$/],
      [['test', '--settings', 'missing.json'], {}, /^application-query: The settings file .*missing\.json cannot be read \(ENOENT\)\.\n$/],
      [['test', '--settings', 'settings.json', '--env', 'prod'], {}, /^application-query: --env prod: there is no such environment in applicationQuery\.environments \(known: local\)\.\n$/],
      [['test', 'nothing-here'], {}, /^application-query: nothing-here does not exist\.\n$/],
      [['test', '--reporter', 'tap'], {}, /^application-query: Unknown reporter "tap": console, junit or json\n$/],
    ];
    for (const [args, env, pattern] of cases) {
      const result = await run(args, env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, pattern, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
    }
    const empty = await mkdtemp(path.join(temp, 'empty-'));
    const none = await runCollected(bin, ['test'], { cwd: empty, env: cleanEnv(keyEnv) });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^application-query: No query files \(\*\.aq\.md\) under .*\n$/);
    assert.equal(service.requests.length, before, 'the service received nothing');
  });

  it('Ctrl+C in the middle of a run stops every request (the service sees each connection close), prints what ran and exits 1 (not every query passed)', async () => {
    const sections = Array.from({ length: 5 }, (_, i) => `## Stalls ${i + 1}\n- application: stall\n\nWait ${i + 1}\n`);
    await writeFile(path.join(workspace, 'stall.aq.md'), sections.join('\n'));
    try {
      const before = service.requests.length;
      const result = await run(['test', 'stall.aq.md', '--settings', 'settings.json', '--concurrency', '2'], {}, (child) => {
        void waitFor('two stalled requests at the service', () => service.requests.length - before >= 2 || undefined, 30_000).then(() => child.kill('SIGINT'));
      });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stderr, /interrupted; stopping every request/);
      assert.equal((result.stdout.match(/- skip {2}stall\.aq\.md › Stalls \d/g) ?? []).length, 5, result.stdout);
      assert.match(result.stdout, /Interrupted: 0 passed, 5 skipped/);
      const posts = service.requests.slice(before);
      assert.equal(posts.length, 2, 'the rest were never sent');
      await waitFor('the service saw both connections close', () => posts.every((p) => p.closedByClientAt !== undefined) || undefined, 10_000);
    } finally {
      await rm(path.join(workspace, 'stall.aq.md'));
    }
  });

  it('--save-answers writes each answer (masked); --compare-answers reports a changed one with a diff, which is not a failure', async () => {
    const saved = await run(['test', '--settings', 'settings.json', '--grep', 'echoes', '--save-answers', 'answers']);
    assert.equal(saved.code, 0, saved.stdout);
    const files = (await readdir(path.join(workspace, 'answers', 'queries', 'main'))).sort();
    assert.deepEqual(files, ['Echoes-the-context.txt', 'Echoes-the-key.txt']);
    const keyAnswer = await readFile(path.join(workspace, 'answers', 'queries', 'main', 'Echoes-the-key.txt'), 'utf8');
    assert.match(keyAnswer, /Here is what you sent me/);
    assertMasked(keyAnswer, 'the saved answer');
    const contextFile = path.join(workspace, 'answers', 'queries', 'main', 'Echoes-the-context.txt');
    await writeFile(contextFile, (await readFile(contextFile, 'utf8')).replace('42', '41'));
    const compared = await run(['test', '--settings', 'settings.json', '--grep', 'echoes', '--compare-answers', 'answers', '--reporter', 'json', '--output', 'compare.json']);
    assert.equal(compared.code, 0, 'a changed answer is information, not a failure');
    assert.match(compared.stdout, /Echoes the context[^\n]*\n {4}the answer changed since the saved one:\n {4}--- saved answer\n {4}\+\+\+ this answer\n {4}@@ -1 \+1 @@\n {4}-[^\n]*41[^\n]*\n {4}\+[^\n]*42/);
    assert.match(compared.stdout, /2 passed, 1 answers changed/);
    const report = JSON.parse(await readFile(path.join(workspace, 'compare.json'), 'utf8')) as { queries: { answerChange?: string }[] };
    assert.deepEqual(report.queries.map((q) => q.answerChange), ['changed', 'same']);
  });
});
