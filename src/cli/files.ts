import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';

/** The query files' ending. */
export const QUERY_FILE_SUFFIX = '.aq.md';

/** Folders never searched: dependencies and version control. */
const SKIPPED_FOLDERS = ['node_modules', '.git'];

/** Whether a path argument is a glob (has a character only globs use). */
export function isGlob(arg: string): boolean {
  return isDynamicPattern(arg);
}

/** The files under `folder` that a glob (relative to it) matches, but in skipped folders, as absolute paths, sorted. */
async function matching(folder: string, pattern: string): Promise<string[]> {
  const found = await glob(pattern, {
    cwd: folder,
    absolute: true,
    onlyFiles: true,
    // A folder named on purpose is searched; links to folders are not followed (a repository's link could point anywhere).
    followSymbolicLinks: false,
    expandDirectories: false,
    // Like the editor's search, folders whose names start with a dot are searched too (but version control's).
    dot: true,
    ignore: SKIPPED_FOLDERS.map((name) => `**/${name}/**`),
  });
  return found.map((file) => path.normalize(file)).sort();
}

/** Every query file under `folder`, as absolute paths in a stable order. */
export function queryFilesUnder(folder: string): Promise<string[]> {
  return matching(folder, `**/*${QUERY_FILE_SUFFIX}`);
}

/** Why the arguments name no file, or the query files they name (each once, in the order given). */
export async function findQueryFiles(cwd: string, args: readonly string[]): Promise<{ files: string[]; problems: string[] }> {
  const problems: string[] = [];
  const files = new Set<string>();
  if (args.length === 0) {
    for (const file of await queryFilesUnder(cwd)) files.add(file);
    return { files: [...files], problems };
  }
  for (const arg of args) {
    if (isGlob(arg)) {
      // A glob may name any file (a query file need not end in .aq.md when named on purpose).
      const matched = await matching(cwd, arg.replace(/\\/g, '/'));
      if (matched.length === 0) problems.push(`${arg} matches no file.`);
      for (const file of matched) files.add(file);
      continue;
    }
    const full = path.resolve(cwd, arg);
    const stat = await fs.stat(full).catch(() => undefined);
    if (stat === undefined) problems.push(`${arg} does not exist.`);
    else if (stat.isDirectory()) for (const file of await queryFilesUnder(full)) files.add(file);
    else files.add(full);
  }
  return { files: [...files], problems };
}
