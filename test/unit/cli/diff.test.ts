// The answers' diff, against diff -u.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { unifiedDiff } from '../../../src/cli/diff';

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
