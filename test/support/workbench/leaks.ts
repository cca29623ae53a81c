// What the key-leak tests look for: every 8-character piece of a key in a text, and every file the
// workbench wrote under a folder (History, the output channel's file, settings, logs).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** Every 8-character piece of `key` that appears in `text`. */
export function keyPieces(text: string, key: string): string[] {
  const found = new Set<string>();
  for (let i = 0; i + 8 <= key.length; i++) {
    const piece = key.slice(i, i + 8);
    if (text.includes(piece)) found.add(piece);
  }
  return [...found];
}

/** Every file under `dir` (bounded), for a search of what the workbench wrote to disk. */
export function filesUnder(dir: string, depth = 0): string[] {
  if (depth > 8 || !existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full, depth + 1));
    else if (entry.isFile() && statSync(full).size < 64 * 1024 * 1024) out.push(full);
  }
  return out;
}

/** Each file under `dir` that holds a piece of `key`, with the pieces (empty when none does). */
export function filesWithPieces(dir: string, key: string): string[] {
  const out: string[] = [];
  for (const file of filesUnder(dir)) {
    const pieces = keyPieces(readFileSync(file, 'latin1'), key);
    if (pieces.length > 0) out.push(`${path.relative(dir, file)}: ${pieces.join(', ')}`);
  }
  return out;
}
