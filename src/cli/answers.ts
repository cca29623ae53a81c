import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { QueryTarget } from '../shared/queryFile/targets';
import { QUERY_FILE_SUFFIX } from './files';

/** The longest name part taken from a query's heading. */
const NAME_CHARS = 80;

/** A name part made of letters, digits, `.`, `_` and `-` only (no separator, no `..`), never empty. */
function safePart(text: string): string {
  const cleaned = text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, NAME_CHARS);
  return cleaned === '' ? 'query' : cleaned;
}

/**
 * Where one query's answer is kept under a `--save-answers` folder: the query file's relative path
 * (without `.aq.md`, each part made safe), then the heading, the application when the query asks
 * several, and `-2`, `-3`… for a heading used again in the same file.
 */
export function answerPath(root: string, file: string, heading: string, occurrence: number, target: QueryTarget | undefined, several: boolean): string {
  const parts = file.replace(/\\/g, '/').replace(new RegExp(`${QUERY_FILE_SUFFIX.replace(/\./g, '\\.')}$`), '').split('/').map((part) => (part === '..' ? '_up' : safePart(part)));
  const name = `${safePart(heading)}${occurrence > 0 ? `-${occurrence + 1}` : ''}${several && target !== undefined ? `@${safePart(target.applicationId)}` : ''}.txt`;
  return path.join(root, ...parts, name);
}

/** Writes an answer (already masked) to its file, making the folders it needs. */
export async function saveAnswer(file: string, answer: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, answer, 'utf8');
}

/** The answer saved before at `file`, or undefined when there is none. */
export async function savedAnswer(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}
