import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** The query files' ending. */
export const QUERY_FILE_SUFFIX = '.aq.md';

/** Folders never searched: dependencies and version control. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/** Whether a path argument is a glob (has a character only globs use). */
export function isGlob(arg: string): boolean {
  return /[*?[\]{}]/.test(arg);
}

/**
 * A glob as a regular expression over `/`-separated relative paths: `**` any number of folders,
 * `*` and `?` within one name, `{a,b}` alternatives, `[abc]` a character class. The pattern comes
 * from the command line (the user's own), and paths are short, so its cost is bounded by them.
 */
export function globPattern(glob: string): RegExp {
  let out = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:[^/]*/)*' : '.*';
      i += slash ? 2 : 1;
    } else if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else if (ch === '{') {
      out += '(?:';
      depth++;
    } else if (ch === '}' && depth > 0) {
      out += ')';
      depth--;
    } else if (ch === ',' && depth > 0) out += '|';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) out += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        out += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else out += ch.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${out}${')'.repeat(depth)}$`);
}

/** Every query file under `folder` (links to folders are not followed), as absolute paths in a stable order. */
export function queryFilesUnder(folder: string): Promise<string[]> {
  return filesUnder(folder, (name) => name.endsWith(QUERY_FILE_SUFFIX));
}

/** Every file under `folder` whose name `keep` accepts, but in skipped folders, sorted. */
async function filesUnder(folder: string, keep: (name: string) => boolean): Promise<string[]> {
  const found: string[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const entries = await fs.readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) pending.push(full);
      } else if (keep(entry.name)) found.push(full);
    }
  }
  return found.sort();
}

/** Why the arguments name no file, or the query files they name (each once, in the order given). */
export async function findQueryFiles(cwd: string, args: readonly string[]): Promise<{ files: string[]; problems: string[] }> {
  const problems: string[] = [];
  const files = new Set<string>();
  if (args.length === 0) {
    for (const file of await queryFilesUnder(cwd)) files.add(file);
    return { files: [...files], problems };
  }
  let everything: string[] | undefined;
  for (const arg of args) {
    if (isGlob(arg)) {
      // A glob may name any file (a query file need not end in .aq.md when named on purpose).
      everything ??= await filesUnder(cwd, () => true);
      const pattern = globPattern(arg.replace(/\\/g, '/').replace(/^\.\//, ''));
      const matched = everything.filter((file) => pattern.test(path.relative(cwd, file).split(path.sep).join('/')));
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
