import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ContextRef } from '../../shared/queryFile';
import type { FileText } from './contextText';

/** The few file-system calls the fence makes (Node's by default; a test can put a step between them). */
export interface FenceFileSystem {
  realpath(file: string): Promise<string>;
  open(file: string, flags: number): Promise<fs.FileHandle>;
  readlink(file: string): Promise<string>;
  stat(file: string): Promise<{ dev: number; ino: number }>;
}

const NODE_FS: FenceFileSystem = { realpath: (f) => fs.realpath(f), open: (f, flags) => fs.open(f, flags), readlink: (f) => fs.readlink(f), stat: (f) => fs.stat(f) };

/** Opening never waits on a pipe or a device someone left in the folder (a FIFO would block the open). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Whether `child` is `root` or below it (case-insensitively where the file system usually is). */
export function isInside(root: string, child: string, paths: typeof path.posix = path): boolean {
  const fold = process.platform === 'win32' || process.platform === 'darwin' ? (p: string) => p.toLowerCase() : (p: string) => p;
  const relative = paths.relative(fold(root), fold(child));
  return relative === '' || (!relative.startsWith('..') && !paths.isAbsolute(relative));
}

/** A file opened inside the fence; close it when done. */
export interface FencedFile {
  readonly handle: fs.FileHandle;
  /** Its real path, as the opened file is (not as the name said before it was opened). */
  readonly realPath: string;
}

/**
 * Opens a context file of a query file whose workspace folder is `folder` (a local path), then
 * checks what was opened: the real path of the opened file (not of the name, which can change
 * between a check and a read) must lie inside the folder's real path, it must be a regular file,
 * and it may have no other hard link (a hard link inside can be the same file as one outside, and
 * nothing tells the two apart). So a folder swapped for a symbolic link after any earlier check, or
 * a hard link to a file outside, is never read.
 */
export async function openFenced(folder: string, folderName: string, ref: ContextRef, files: FenceFileSystem = NODE_FS): Promise<FencedFile | { problem: string }> {
  const lexical = path.resolve(folder, ref.path);
  if (path.isAbsolute(ref.path) || !isInside(path.resolve(folder), lexical)) return { problem: `${ref.path} is outside the workspace folder ${folderName}: a context file must be inside it.` };
  let root: string;
  let handle: fs.FileHandle;
  try {
    root = await files.realpath(folder);
    handle = await files.open(lexical, OPEN_FLAGS);
  } catch (error) {
    return { problem: openProblem(error, ref, folderName) };
  }
  try {
    const opened = await handle.stat();
    const realPath = await openedPath(handle, lexical, opened, files);
    if (realPath === undefined) return closed(handle, `${ref.path} changed while it was being opened; run the query again.`);
    if (!isInside(root, realPath)) return closed(handle, `${ref.path} leads outside the workspace folder ${folderName} (through a symbolic link): a context file must be inside it.`);
    if (!opened.isFile()) return closed(handle, `${ref.path} is not a file.`);
    if (opened.nlink > 1) return closed(handle, `${ref.path} has other hard links, which may lead outside the workspace folder ${folderName}: a context file must be a file of its own.`);
    return { handle, realPath };
  } catch (error) {
    return closed(handle, openProblem(error, ref, folderName));
  }
}

/** Reads a context file inside the fence (see {@link openFenced}) as UTF-8 text (a byte order mark dropped). */
export async function readFenced(folder: string, folderName: string, ref: ContextRef, files: FenceFileSystem = NODE_FS): Promise<FileText> {
  const opened = await openFenced(folder, folderName, ref, files);
  if ('problem' in opened) return opened;
  try {
    const bytes = await opened.handle.readFile();
    return { text: new TextDecoder('utf-8').decode(bytes) };
  } catch (error) {
    return { problem: openProblem(error, ref, folderName) };
  } finally {
    await opened.handle.close();
  }
}

/**
 * The real path of what the handle opened. Where the system names an open file's path (Linux's
 * /proc/self/fd), that name; elsewhere the name's real path, accepted only when it is the very file
 * that was opened (same device and inode), so a swap between the open and this look is refused.
 */
async function openedPath(handle: fs.FileHandle, lexical: string, opened: { dev: number; ino: number }, files: FenceFileSystem): Promise<string | undefined> {
  if (process.platform === 'linux') {
    try {
      return await files.readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      // No /proc here (a container without it): the portable check below.
    }
  }
  const real = await files.realpath(lexical);
  const now = await files.stat(real);
  return now.dev === opened.dev && now.ino === opened.ino ? real : undefined;
}

async function closed(handle: fs.FileHandle, problem: string): Promise<{ problem: string }> {
  await handle.close();
  return { problem };
}

function openProblem(error: unknown, ref: ContextRef, folderName: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return `${ref.path} does not exist in the workspace folder ${folderName}.`;
  if (code === 'EISDIR') return `${ref.path} is not a file.`;
  return `${ref.path} cannot be read (${code ?? 'error'}).`;
}
