/**
 * Where text that floods in can be folded without parsing it (answer.ts folds the oldest of it).
 * A line scan, linear in the text: it finds a line that starts a top-level block after a blank
 * line with nothing open across it, so that the text before parses the same whatever follows and
 * the text after parses as it would in the whole answer. It knows only what can stay open across
 * a blank line with HTML off: a fenced code block (a list continues over a blank line too, which
 * is why a cut never starts with a list marker or indentation). Where it cannot be sure (a fence
 * indented inside a list item, say), it stops: the renderer then cuts by parsing, as for any text.
 * No DOM here (the unit tests run it in Node).
 */
import { BLANK, closesFence } from './blockCuts';

/** A fence at the start of a line: at column 0 it can only be a top-level one (a list item's content is indented). */
const FENCE = /^(`{3,}|~{3,})(.*)$/;
/** A fence indented one to three columns: top level, or inside a list item, which a line scan cannot tell. */
const INDENTED_FENCE = /^ {1,3}(?:`{3,}|~{3,})/;
/** A line that starts a block whatever came before the blank line above it: not indented, not a list item. */
const BLOCK_START = /^[^\s\-+*0-9]/;

/**
 * The last offset in `text` (which starts where a top-level block starts, with nothing open) where
 * it can be cut as described above, or 0. Only complete lines count.
 */
export function lastFoldCut(text: string): number {
  let fence: string | undefined;
  let afterBlank = false;
  let cut = 0;
  for (let at = 0, end = text.indexOf('\n'); end >= 0; at = end + 1, end = text.indexOf('\n', at)) {
    const line = text.slice(at, end);
    if (fence !== undefined) {
      if (closesFence(line, fence[0], fence.length)) fence = undefined;
      afterBlank = false;
      continue;
    }
    if (INDENTED_FENCE.test(line)) return cut;
    if (afterBlank && BLOCK_START.test(line)) cut = at;
    const opener = FENCE.exec(line);
    // A backtick fence's info string has no backtick (else the line is a paragraph's).
    if (opener !== null && !(opener[1][0] === '`' && opener[2].includes('`'))) fence = opener[1];
    afterBlank = BLANK.test(line);
  }
  return cut;
}
