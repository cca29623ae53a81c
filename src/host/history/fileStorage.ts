import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { copyFile, mkdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { StoredHistoryText, type HistoryStorage } from '../../client/history';

/** How long a lock another window left behind (it crashed while writing) blocks a write. */
const STALE_LOCK_MS = 10_000;
/** How long a write waits for another window's before it writes anyway. */
const LOCK_WAIT_MS = 5_000;

interface Stamp {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly size: number;
}

/**
 * A JSON file as History's storage, shared by every window of this machine. `get` reads at most
 * the bytes asked for (the size is checked first, so a huge file is never read whole) and re-reads
 * only when the file changed (a rename gives it a new inode); `update` writes a temporary file and
 * renames it over the old one, so a crash never leaves half a file; `exclusive` holds a lock
 * directory beside the file while History re-reads, merges and writes; `keepUnreadable` copies an
 * unreadable file beside it before it is replaced.
 */
export function fileHistoryStorage(file: string): HistoryStorage {
  let cache: { readonly stamp: Stamp; readonly maxBytes: number; readonly value: unknown } | undefined;
  const stampOf = (): Stamp | undefined => {
    try {
      const { ino, mtimeMs, size } = statSync(file);
      return { ino, mtimeMs, size };
    } catch {
      return undefined;
    }
  };
  const same = (a: Stamp, b: Stamp): boolean => a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.size === b.size;
  const lockDir = `${file}.lock`;
  return {
    get: (maxBytes = Number.MAX_SAFE_INTEGER) => {
      const now = stampOf();
      if (now === undefined) {
        cache = undefined;
        return undefined;
      }
      if (cache !== undefined && same(cache.stamp, now) && (cache.maxBytes >= maxBytes || cache.maxBytes >= now.size)) {
        return cache.value;
      }
      const length = Math.min(now.size, Math.max(0, Math.floor(maxBytes)));
      const buffer = Buffer.alloc(length);
      let read = 0;
      const fd = openSync(file, 'r');
      try {
        while (read < length) {
          const n = readSync(fd, buffer, read, length - read, read);
          if (n === 0) break;
          read += n;
        }
      } finally {
        closeSync(fd);
      }
      const value = new StoredHistoryText(buffer.toString('utf8', 0, read), now.size <= read, now.size);
      cache = { stamp: now, maxBytes, value };
      return value;
    },
    update: async (value) => {
      await mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
      try {
        await writeFile(temporary, JSON.stringify(value));
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      const now = stampOf();
      cache = now === undefined ? undefined : { stamp: now, maxBytes: Number.MAX_SAFE_INTEGER, value };
    },
    exclusive: async <T>(work: () => Promise<T>): Promise<T> => {
      await mkdir(path.dirname(file), { recursive: true });
      const locked = await acquire(lockDir);
      try {
        return await work();
      } finally {
        if (locked) await rmdir(lockDir).catch(() => undefined);
      }
    },
    keepUnreadable: async () => {
      const kept = `${file.replace(/\.json$/, '')}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
      await copyFile(file, kept);
      return kept;
    },
  };
}

/** Takes the lock directory (mkdir is atomic across processes); false when it waited too long. */
async function acquire(lockDir: string): Promise<boolean> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lockDir);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        return false;
      }
    }
    try {
      if (Date.now() - (await stat(lockDir)).mtimeMs > STALE_LOCK_MS) {
        await rmdir(lockDir);
        continue;
      }
    } catch {
      continue;
    }
    if (Date.now() > deadline) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 5 + (randomBytes(1)[0] % 16)));
  }
}
