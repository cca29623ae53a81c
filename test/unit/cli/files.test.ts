// Which query files the arguments name: globs, folders and files, on a real folder.
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { findQueryFiles } from '../../../src/cli/files';

describe('command line: query files the arguments name', () => {
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
