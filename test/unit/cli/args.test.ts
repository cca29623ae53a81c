// The command line's arguments.
import * as assert from 'node:assert/strict';
import { parseCommand } from '../../../src/cli/args';

describe('command line: arguments', () => {
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

});
