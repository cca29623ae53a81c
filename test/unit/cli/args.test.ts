// Arguments and globs.
import * as assert from 'node:assert/strict';
import { parseCommand } from '../../../src/cli/args';
import { globPattern } from '../../../src/cli/files';

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

  it('globs: ** across folders, * within a name, {a,b} and [..]', () => {
    assert.ok(globPattern('**/*.aq.md').test('a/b/c.aq.md'));
    assert.ok(globPattern('**/*.aq.md').test('c.aq.md'));
    assert.ok(!globPattern('*.aq.md').test('a/c.aq.md'));
    assert.ok(globPattern('queries/{smoke,full}/*.aq.md').test('queries/full/x.aq.md'));
    assert.ok(!globPattern('queries/{smoke,full}/*.aq.md').test('queries/other/x.aq.md'));
    assert.ok(globPattern('q[0-9].aq.md').test('q7.aq.md'));
    assert.ok(!globPattern('q?.aq.md').test('q/.aq.md'));
  });
});
