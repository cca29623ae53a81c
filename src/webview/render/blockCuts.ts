/**
 * Where streamed Markdown's top-level blocks can be told apart: markdown-it's block pass over
 * text near the end, never the whole answer again. No DOM here (the unit tests run it in Node).
 */
import type MarkdownIt from 'markdown-it';
import { createMarkdown } from '../../shared/answer/blocks';

/** One markdown-it token. */
export type Token = MarkdownIt.Token;

/** The block pass only: block structure does not depend on how anything is rendered. */
const blocks = createMarkdown();
/** A line of only spaces and tabs. */
export const BLANK = /^[ \t]*$/;
/** The start of a line that makes it a paragraph's first whatever follows on it (no block marker starts so). */
const PARAGRAPH_START = /^ {0,3}(?:\*{1,2}|_{1,2}|`{1,2})?[A-Za-z\u00c0-\uffff]/;

/** Start offsets of the lines of `text`. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The length of `text` up to its last line break (its complete lines). */
export function completeLength(text: string): number {
  return text.lastIndexOf('\n') + 1;
}

/** Block tokens of `text`; `env.references` learns the definitions it makes. */
export function parseBlocks(text: string, env: MarkdownIt.Env = {}): Token[] {
  const tokens: Token[] = [];
  blocks.block.parse(text, blocks, env, tokens);
  return tokens;
}

/**
 * Where `text` can be cut last: the start of a top-level block that begins on a complete line
 * (or begins a paragraph), right after a blank line or where the block before it ended.
 * Markdown decides blocks line by line, so the text before such a cut parses the same whatever
 * follows. 0: nowhere.
 */
export function lastCut(text: string): number {
  const complete = completeLength(text);
  const parsed = PARAGRAPH_START.test(text.slice(complete)) ? text : text.slice(0, complete);
  const starts = lineStarts(parsed);
  let cut = 0;
  let previousEnd = -1;
  for (const token of parseBlocks(parsed)) {
    if (token.level !== 0 || token.nesting === -1 || token.map === null) continue;
    const [line, end] = token.map;
    if (line >= 1 && line < starts.length) {
      const afterBlank = BLANK.test(parsed.slice(starts[line - 1], starts[line] - 1));
      const whole = starts[line + 1] !== undefined && starts[line + 1] <= complete;
      if ((whole && (afterBlank || previousEnd === line)) || (!whole && afterBlank && token.type === 'paragraph_open')) cut = starts[line];
    }
    previousEnd = end;
  }
  return cut;
}

/** The columns of a line's leading spaces and tabs (a tab goes on to the next multiple of four). */
export function indentation(line: string): number {
  let column = 0;
  for (let at = 0; at < line.length; at++) {
    const code = line.charCodeAt(at);
    if (code === 32) column++;
    else if (code === 9) column += 4 - (column % 4);
    else break;
  }
  return column;
}

/** Whether `line` closes a fence of `length` or more `marker`s (indented less than four columns, nothing after but spaces and tabs). */
export function closesFence(line: string, marker: string, length: number): boolean {
  if (indentation(line) >= 4) return false;
  const at = /^[ \t]*/.exec(line)![0].length;
  let run = 0;
  while (line[at + run] === marker) run++;
  return run >= length && BLANK.test(line.slice(at + run));
}
