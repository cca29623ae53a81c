// The lexer of one option line (`- key: value`) and the suggestion for a key nobody knows.
import { OPTION_KEYS, type OptionKey } from './parsedFile';

const WORD_CHAR = /^[\p{L}\p{N}]$/u;

/** Where the parts of an option line are: `- key: value`. */
export interface OptionForm {
  /** The list marker's column. */
  readonly marker: number;
  readonly keyStart: number;
  readonly keyEnd: number;
  /** The column after the colon. */
  readonly afterColon: number;
}

/**
 * Whether a line is an option item's first line: up to three spaces, a marker (`-`, `*`, `+`),
 * spaces or tabs, a key (letters, digits, `-`, `_`), optional spaces or tabs, and a colon that does
 * not start `://` (a bare URL is no option). Read by hand: this runs on every line of every list
 * under a heading.
 */
export function optionForm(line: string): OptionForm | undefined {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  const marker = i;
  const m = line.charCodeAt(i);
  if (m !== 45 && m !== 42 && m !== 43) return undefined;
  i++;
  const afterMarker = i;
  while (isSpaceOrTab(line.charCodeAt(i))) i++;
  if (i === afterMarker) return undefined;
  const keyStart = i;
  i = keyEnd(line, i);
  if (i === keyStart) return undefined;
  const end = i;
  while (isSpaceOrTab(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== 58 || (line.charCodeAt(i + 1) === 47 && line.charCodeAt(i + 2) === 47)) return undefined;
  return { marker, keyStart, keyEnd: end, afterColon: i + 1 };
}

/** Markdown's spaces: space and tab. */
export function isSpaceOrTab(c: number): boolean {
  return c === 32 || c === 9;
}

/** Where a key starting at `i` ends: letters, digits (any script), `-` and `_`. */
function keyEnd(line: string, i: number): number {
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c < 128) {
      if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 95)) break;
      i++;
      continue;
    }
    const ch = String.fromCodePoint(line.codePointAt(i) ?? c);
    if (!WORD_CHAR.test(ch)) break;
    i += ch.length;
  }
  return i;
}

/** Keys people write for the known ones, for an unknown key's suggestion. */
const KEY_ALIASES: ReadonlyMap<string, OptionKey> = new Map([
  ['app', 'application'], ['apps', 'application'], ['applications', 'application'], ['application-id', 'application'], ['application_id', 'application'], ['app-id', 'application'], ['appid', 'application'], ['model', 'application'],
  ['env', 'environment'], ['envs', 'environment'], ['environments', 'environment'], ['environnement', 'environment'], ['stage', 'environment'], ['target', 'environment'],
  ['contexts', 'context'], ['ctx', 'context'], ['file', 'context'], ['files', 'context'], ['include', 'context'], ['attach', 'context'],
  ['case', 'cases'], ['data', 'cases'], ['dataset', 'cases'], ['rows', 'cases'], ['repeat', 'runs'], ['repeats', 'runs'], ['times', 'runs'], ['pass', 'passes'],
  ['expects', 'expect'], ['expectation', 'expect'], ['expectations', 'expect'], ['expected', 'expect'], ['assert', 'expect'], ['check', 'expect'],
]);

/** The known key an unknown one most likely meant: an alias, or one at most two edits away. */
export function suggestKey(key: string): OptionKey | undefined {
  const lower = key.toLowerCase();
  const alias = KEY_ALIASES.get(lower);
  if (alias !== undefined) return alias;
  if (lower.length > 16) return undefined;
  let best: OptionKey | undefined;
  let bestDistance = 3;
  for (const known of OPTION_KEYS) {
    const d = editDistance(lower, known);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance of two short strings. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** The text and span of a value (`start`..`end` of its line), trimmed and without one pair of enclosing backticks. */
