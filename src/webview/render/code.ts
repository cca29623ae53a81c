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
 * Pieces that start before this many UTF-16 code units of a block's code are highlighted; the
 * rest is plain text (highlight.js is far slower than the rest of rendering).
 */
export const HIGHLIGHT_LIMIT = 128 * 1024;
/**
 * highlight.js sees at most PIECE_BASE << PIECE_STEPS code units at once. A piece ends at the first
 * line end after 2, 4 or 8 KiB where the grammar is back at its top level (nothing open that spans
 * lines), or at 16 KiB whatever the state. Plain code is cut at the first line end after 8 KiB, or
 * at 16 KiB. The rule reads the code from the piece's start only, so a streamed block and a
 * one-shot render cut the same pieces.
 */
const PIECE_BASE = 2048;
const PIECE_STEPS = 3;
const PLAIN_STEP = PIECE_STEPS - 1;
/**
 * Pieces up to one that ends a line make a chunk: a block of its own (see `.aq-code-chunk` in
 * webview.css), so that the browser lays out new code without laying out the whole block again.
 */
const CHUNK_OPEN = '<span class="aq-code-chunk">';
const CHUNK_CLOSE = '</span>';
const LANGUAGE_NAME = /^[\w#+.-]{1,40}$/;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Where the piece at the start of `code` ends at `step`: after the first line end past
 * PIECE_BASE << step, if there is one before twice that, else at twice that. Undefined while more
 * code could change it, unless `complete` (then the code's end).
 */
function pieceEnd(code: string, step: number, complete: boolean): number | undefined {
  const low = PIECE_BASE << step;
  const high = PIECE_BASE << (step + 1);
  const lineEnd = low < code.length ? code.indexOf('\n', low) : -1;
  if (lineEnd >= 0 && lineEnd < high) return lineEnd + 1;
  if (high > code.length) return complete ? code.length : undefined;
  return isHighSurrogate(code.charCodeAt(high - 1)) ? high - 1 : high;
}

/** The piece at the start of `code`, highlighted as `language` (plain if ''); undefined until the code decides its end. */
function piece(code: string, language: string, complete: boolean): { end: number; html: string } | undefined {
  if (language === '') {
    const end = pieceEnd(code, PLAIN_STEP, complete);
    return end === undefined ? undefined : { end, html: escapeHtml(code.slice(0, end)) };
  }
  const top = hljs.getLanguage(language);
  for (let step = 0; step < PIECE_STEPS; step++) {
    const end = pieceEnd(code, step, complete);
    if (end === undefined) return undefined;
    const result = hljs.highlight(code.slice(0, end), { language, ignoreIllegals: true });
    // `_top` is the mode the highlighter ended in (not in the typings): back at the top, nothing spans the cut.
    if (step === PIECE_STEPS - 1 || end === code.length || (result as { _top?: unknown })._top === top) {
      return { end, html: result.value };
    }
  }
  return undefined;
}

/**
 * A code block's markup, made as its code comes: the chunks the code so far finishes, each once.
 * A one-shot render feeds it the whole code at once, so both cut the same pieces and chunks.
 */
export class CodeChunks {
  /** Code not made into pieces yet. */
  private rest = '';
  /** Code units made into pieces. */
  private done = 0;
  /** The pieces of a chunk not ended yet (a line longer than a piece), as markup and as text. */
  private openHtml = '';
  private openText = '';

  constructor(private readonly language: string) {}

  push(code: string): void {
    this.rest += code;
  }

  /** The code not in a finished chunk yet (shown as plain text until it is). */
  get pending(): string {
    return this.openText + this.rest;
  }

  /**
   * The markup of the chunks the code so far finishes (all of it when `complete`), working until
   * `deadline` (a `performance.now()` time) and at most `most` chunks; what is left waits for the
   * next call.
   */
  take(complete: boolean, deadline = Number.POSITIVE_INFINITY, most = Number.POSITIVE_INFINITY): string {
    let html = '';
    let chunks = 0;
    while (this.rest !== '' && chunks < most && performance.now() < deadline) {
      const next = piece(this.rest, this.done < HIGHLIGHT_LIMIT ? this.language : '', complete);
      if (next === undefined) break;
      const text = this.rest.slice(0, next.end);
      this.rest = this.rest.slice(next.end);
      this.done += next.end;
      this.openHtml += next.html;
      this.openText += text;
      if (text.endsWith('\n') || (complete && this.rest === '')) {
        html += CHUNK_OPEN + this.openHtml + CHUNK_CLOSE;
        chunks++;
        this.openHtml = '';
        this.openText = '';
      }
    }
    return html;
  }
}

/** The markup of a whole code block's code. */
export function highlightCode(code: string, language: string): string {
  const chunks = new CodeChunks(language);
  chunks.push(code);
  return chunks.take(true);
}
