// The context fence on real files: open first, then check what was opened. A folder swapped for a
// symbolic link at the moment the file is opened (the window between any check and the read), a
// link out, a hard link to a file outside and a FIFO are refused; a plain file inside is read.
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { openFenced, readFenced, type FenceFileSystem } from '../../../../src/client/queryFiles/contextFence';
import { readQueryContext } from '../../../../src/client/queryFiles/contextText';
import type { ContextRef } from '../../../../src/shared/queryFile';

const SECRET = 'secret outside the workspace';

function ref(p: string, startLine?: number, endLine?: number): ContextRef {
  return { path: p, ...(startLine === undefined ? {} : { startLine }), ...(endLine === undefined ? {} : { endLine }), span: { line: 3, start: 11, end: 11 + p.length } };
}

const NODE_FS: FenceFileSystem = { realpath: (f) => fs.realpath(f), open: (f, flags) => fs.open(f, flags), readlink: (f) => fs.readlink(f), stat: (f) => fs.stat(f) };

describe('context fence (open, then check what was opened)', () => {
  let base: string;
  let workspace: string;
  let outside: string;

  beforeEach(async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'aq-fence-'));
    workspace = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    await fs.mkdir(path.join(workspace, 'docs'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(workspace, 'docs', 'notes.txt'), 'inside one\r\ninside two\ninside three\n');
    await fs.writeFile(path.join(outside, 'notes.txt'), SECRET);
  });

  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  it('reads a plain file inside the folder, whole or by lines (CRLF and LF both end a line)', async () => {
    const read = (r: ContextRef) => readFenced(workspace, 'ws', r);
    const whole = await readQueryContext([ref('docs/notes.txt')], read);
    assert.ok(whole.ok && whole.context !== undefined);
    assert.equal(whole.context.text, 'inside one\r\ninside two\ninside three\n');
    assert.equal(whole.context.languageId, 'plaintext');
    const lines = await readQueryContext([ref('docs/notes.txt', 2, 3)], read);
    assert.ok(lines.ok && lines.context !== undefined);
    assert.equal(lines.context.text, 'inside two\ninside three');
    assert.equal(lines.context.label, 'docs/notes.txt:2-3');
    const past = await readQueryContext([ref('docs/notes.txt', 9)], read);
    assert.ok(!past.ok);
    assert.match(past.message, /has 4 lines; line 9 does not exist/);
  });

  it('refuses .. and absolute paths without opening anything', async () => {
    let opened = 0;
    const counting: FenceFileSystem = { ...NODE_FS, open: (f, flags) => (opened++, fs.open(f, flags)) };
    for (const p of ['../outside/notes.txt', path.join(outside, 'notes.txt')]) {
      const result = await readFenced(workspace, 'ws', ref(p), counting);
      assert.ok('problem' in result, p);
      assert.match(result.problem, /outside the workspace folder ws/);
    }
    assert.equal(opened, 0);
  });

  it('refuses a symbolic link to a file outside, and a link to a folder outside', async () => {
    await fs.symlink(path.join(outside, 'notes.txt'), path.join(workspace, 'link.txt'));
    await fs.symlink(outside, path.join(workspace, 'linked'));
    for (const p of ['link.txt', 'linked/notes.txt']) {
      const result = await readFenced(workspace, 'ws', ref(p));
      assert.ok('problem' in result, p);
      assert.match(result.problem, /leads outside the workspace folder ws/);
    }
  });

  it('refuses a hard link to a file outside (the same file, reached from inside)', async () => {
    await fs.link(path.join(outside, 'notes.txt'), path.join(workspace, 'hard.txt'));
    const result = await readFenced(workspace, 'ws', ref('hard.txt'));
    assert.ok('problem' in result);
    assert.match(result.problem, /other hard links/);
  });

  it('a folder swapped for a link to outside at the moment of the open is refused, and nothing of the outside file is returned', async () => {
    // The swap happens after the folder's real path is known and before the open: exactly the window a check-then-read fence leaves.
    const swapping: FenceFileSystem = {
      ...NODE_FS,
      open: async (f, flags) => {
        await fs.rename(path.join(workspace, 'docs'), path.join(base, 'docs-moved'));
        await fs.symlink(outside, path.join(workspace, 'docs'));
        return fs.open(f, flags);
      },
    };
    const result = await readFenced(workspace, 'ws', ref('docs/notes.txt'), swapping);
    assert.ok('problem' in result, JSON.stringify(result));
    assert.match(result.problem, /leads outside the workspace folder ws/);
  });

  it('without /proc, a swap between the open and the real-path look is caught by the file identity', async () => {
    const noProc: FenceFileSystem = {
      ...NODE_FS,
      readlink: () => Promise.reject(Object.assign(new Error('no /proc'), { code: 'ENOENT' })),
      realpath: async (f) => {
        if (f.endsWith('notes.txt')) {
          // After the open: the folder now leads to a different file of the same name inside the workspace.
          await fs.rename(path.join(workspace, 'docs'), path.join(workspace, 'docs-old'));
          await fs.mkdir(path.join(workspace, 'docs'));
          await fs.writeFile(path.join(workspace, 'docs', 'notes.txt'), 'another file');
        }
        return fs.realpath(f);
      },
    };
    const result = await readFenced(workspace, 'ws', ref('docs/notes.txt'), noProc);
    assert.ok('problem' in result, JSON.stringify(result));
    assert.match(result.problem, /changed while it was being opened/);
  });

  it('a FIFO in the folder is refused as not a file, without waiting for a writer', async function () {
    if (process.platform === 'win32') this.skip();
    execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
    const result = await readFenced(workspace, 'ws', ref('pipe'));
    assert.ok('problem' in result);
    assert.match(result.problem, /is not a file/);
  });

  it('a missing file or a folder says so; an opened file is handed over open and inside', async () => {
    const missing = await readFenced(workspace, 'ws', ref('docs/none.txt'));
    assert.ok('problem' in missing);
    assert.match(missing.problem, /does not exist in the workspace folder ws/);
    const folder = await readFenced(workspace, 'ws', ref('docs'));
    assert.ok('problem' in folder);
    assert.match(folder.problem, /is not a file/);
    const opened = await openFenced(workspace, 'ws', ref('docs/notes.txt'));
    assert.ok(!('problem' in opened));
    assert.equal(opened.realPath, path.join(await fs.realpath(workspace), 'docs', 'notes.txt'));
    await opened.handle.close();
  });
});
