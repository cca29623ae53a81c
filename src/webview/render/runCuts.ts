/**
 * Where a long paragraph's text is cut into runs. A browser lays out one paragraph's lines in time
 * that grows faster than the paragraph, so a paragraph of LONG_PARAGRAPH or more is rendered as
 * runs, each a block of its own inside the paragraph (markdown.ts for a whole answer,
 * longBlocks.ts as it streams). Where a run ends depends on its own text and a window after it
 * only, so a streamed paragraph is cut exactly where the whole text is. No DOM here (the unit
 * tests run it in Node).
 */
import { createMarkdown } from '../../shared/answer/blocks';

/** A paragraph whose inline text is this long or longer is rendered in runs. */
export const LONG_PARAGRAPH = 16 * 1024;
/** A run is about a multiple of this long: it ends at the first sentence (else word) that starts past one. */
const STEP = 4 * 1024;
/** How far past a step a sentence or word start is looked for. */
const LOOK = 1024;
/** Steps tried for a run that leaves no emphasis, link or code span open; past the last, the run ends anyway. */
const STEPS = 4;

const inline = createMarkdown();
/** Characters that, left over as text after an inline parse, could still pair with text after them. */
const OPEN_MARKS = /[*_~`]/;

/**
 * Whether inline `text` renders alone exactly as it does followed by more text: nothing in it is
 * left open. An emphasis, strikethrough or backtick mark left as text could pair with a later
 * one, and so could a `[` whose `]` has not come.
 */
export function closedInline(text: string): boolean {
  let open = 0;
  for (const token of inline.parseInline(text, {})[0]?.children ?? []) {
    if (token.type !== 'text') continue;
    if (OPEN_MARKS.test(token.content)) return false;
    for (const [bracket] of token.content.matchAll(/[[\]]/g)) open = bracket === '[' ? open + 1 : Math.max(0, open - 1);
  }
  return open === 0;
}

const SPACE = /\s/;

/**
 * The first place in `text` from `at` (and before `until`) where a sentence starts after
 * whitespace, else where a word does; -1: neither.
 */
function startAfter(text: string, at: number, until: number): number {
  let word = -1;
  for (let i = Math.max(at, 1); i < until; i++) {
    if (SPACE.test(text[i]) || !SPACE.test(text[i - 1])) continue;
    let before = i - 1;
    while (before > 0 && SPACE.test(text[before])) before--;
    if (/[.!?]/.test(text[before])) return i;
    if (word < 0) word = i;
  }
  return word;
}

/**
 * Where the run of `text` that starts at `from` ends: an offset, 'later' when the text up to
 * `known` is not enough to tell (more is coming), or 'rest' when the rest of the text is the
 * last run (`known` is its end and nothing more comes).
 */
export function runEnd(text: string, from: number, known: number, complete: boolean): number | 'later' | 'rest' {
  let last = -1;
  for (let step = 1; step <= STEPS; step++) {
    const at = from + step * STEP;
    // The text ends before this step: the rest is the last run.
    if (at >= known) return complete ? 'rest' : 'later';
    // The window must be all there, and the character after it (a start needs the next character).
    if (!complete && at + LOOK + 1 > known) return 'later';
    const start = startAfter(text, at, Math.min(at + LOOK, known));
    if (start < 0) continue;
    if (closedInline(text.slice(from, start))) return start;
    last = start;
  }
  if (last >= 0) return last;
  // No word starts in any window (one long word): cut at the last step, never between a surrogate pair's halves.
  const at = from + STEPS * STEP;
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at + 1 : at;
}

/** The runs of a long paragraph's whole inline text: the offset each ends at (the last ends at the text's end). */
export function runEnds(text: string): number[] {
  const ends: number[] = [];
  let from = 0;
  while (from < text.length) {
    const end = runEnd(text, from, text.length, true);
    from = end === 'rest' || end === 'later' ? text.length : end;
    ends.push(from);
  }
  return ends;
}
