import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = { bash, c, cpp, csharp, css, diff, go, java, javascript, json, markdown, plaintext, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, definition] of Object.entries(languages)) {
  hljs.registerLanguage(name, definition);
}

/**
 * A block's code is highlighted up to the end of the line that holds this many UTF-16 code units;
 * the rest is plain text (highlighting is slow: ~1 MB/s). See {@link highlightEnd}.
 */
export const HIGHLIGHT_LIMIT = 128 * 1024;
/**
 * highlight.js sees at most PIECE_BASE << PIECE_STEPS code units at once. A piece ends at the first
 * line end after 2, 4 or 8 KiB where the grammar is back at its top level (nothing open that spans
 * lines), or at 16 KiB whatever the state. Plain code (no language, or past the limit) is cut at the
 * first line end after 8 KiB, or at 16 KiB. The rule depends on the code alone, so a streamed block
 * and a one-shot render cut the same pieces.
 */
const PIECE_BASE = 2048;
const PIECE_STEPS = 3;
const PLAIN_STEP = PIECE_STEPS - 1;
/**
 * The pieces that end a line end a chunk: a block of its own (see `.aq-code-chunk` in webview.css),
 * so that the browser lays out new code without laying out the whole block again.
 */
const CHUNK_OPEN = '<span class="aq-code-chunk">';
const CHUNK_CLOSE = '</span>';
const LANGUAGE_NAME = /^[\w#+.-]{1,40}$/;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** The languages highlighting knows (each compiles its grammar on first use). */
export function highlightLanguages(): string[] {
  return Object.keys(languages);
}

/** Escapes text for HTML, the way markdown-it does. */
export function escapeHtml(text: string): string {
  return /[&<>"]/.test(text) ? text.replace(/[&<>"]/g, (ch) => HTML_ESCAPES[ch]) : text;
}

/** The language named by a fence's info string, and whether highlight.js knows it ('' if none). */
export function codeLanguage(info: string): { name: string; highlight: string } {
  const candidate = info.split(/\s+/)[0] ?? '';
  const name = LANGUAGE_NAME.test(candidate) ? candidate : '';
  return { name, highlight: name !== '' && hljs.getLanguage(name) !== undefined ? name : '' };
}

/** One highlighted piece of a code block: `[start, end)` of the code, and its markup. */
export interface CodePiece {
  readonly end: number;
  readonly html: string;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Where highlighting ends in a block's code: after the line that holds its HIGHLIGHT_LIMIT-th code
 * unit (or at the end): an offset into `code`, which starts `offset` into the block. Undefined
 * while no line end says it yet.
 */
export function highlightEnd(code: string, offset: number): number | undefined {
  const lineEnd = code.indexOf('\n', Math.max(0, HIGHLIGHT_LIMIT - 1 - offset));
  return lineEnd < 0 ? undefined : lineEnd + 1;
}

/**
 * The next piece of `code` from `start`: highlighted as `language`, or plain if that is ''.
 * Returns undefined when the piece's end is not decided by the text there is, unless `complete`
 * (then the rest of the code is the last piece).
 */
export function codePiece(code: string, start: number, language: string, complete: boolean): CodePiece | undefined {
  if (language === '') {
    const end = pieceEnd(code, start, PLAIN_STEP, complete);
    return end === undefined ? undefined : { end, html: escapeHtml(code.slice(start, end)) };
  }
  const top = hljs.getLanguage(language);
  for (let step = 0; step < PIECE_STEPS; step++) {
    const end = pieceEnd(code, start, step, complete);
    if (end === undefined) {
      return undefined;
    }
    const result = highlightPiece(code.slice(start, end), language);
    if (step === PIECE_STEPS - 1 || end === code.length || result.top === top) {
      return { end, html: result.value };
    }
  }
  return undefined;
}

/** Whether a piece ending at `end` ends a chunk (it ends a line, or the code). */
function endsChunk(code: string, end: number): boolean {
  return end === code.length || code.charCodeAt(end - 1) === 10;
}

/**
 * Where a piece from `start` ends at `step`: after the first line end past PIECE_BASE << step, if
 * there is one before twice that, else at twice that. Undefined while more code could change it,
 * unless `complete` (then the code's end).
 */
function pieceEnd(code: string, start: number, step: number, complete: boolean): number | undefined {
  const low = start + (PIECE_BASE << step);
  const high = start + (PIECE_BASE << (step + 1));
  const lineEnd = low < code.length ? code.indexOf('\n', low) : -1;
  if (lineEnd >= 0 && lineEnd < high) {
    return lineEnd + 1;
  }
  if (high > code.length) {
    // Not decided yet: more code could still bring a line end (or this is the end).
    return complete ? code.length : undefined;
  }
  return isHighSurrogate(code.charCodeAt(high - 1)) ? high - 1 : high;
}

function highlightPiece(code: string, language: string): { value: string; top: unknown } {
  const result = hljs.highlight(code, { language, ignoreIllegals: true });
  // `_top` is the mode the highlighter ended in (not in the typings).
  return { value: result.value, top: (result as { _top?: unknown })._top };
}

/** The markup of a whole code block: highlighted pieces up to {@link highlightEnd}, plain text after, in chunks. */
export function highlightCode(code: string, language: string): string {
  const end = language === '' ? 0 : (highlightEnd(code, 0) ?? code.length);
  return codeChunks(code.slice(0, end), language) + codeChunks(code.slice(end), '');
}

function codeChunks(code: string, language: string): string {
  let html = '';
  for (let start = 0; start < code.length; ) {
    const piece = codePiece(code, start, language, true);
    if (piece === undefined) {
      break;
    }
    html += (chunkOpen(code, start) ? '' : CHUNK_OPEN) + piece.html + (endsChunk(code, piece.end) ? CHUNK_CLOSE : '');
    start = piece.end;
  }
  return html;
}

/** Whether a piece starting at `start` continues the chunk before it (that one did not end a line). */
function chunkOpen(code: string, start: number): boolean {
  return start > 0 && code.charCodeAt(start - 1) !== 10;
}
