/*
 * Runs anywhere: no `vscode`, no Node, no DOM (unit-tested in plain Node).
 *
 * VS Code's Chat renders a participant's Markdown images, and before 1.10x it fetched remote ones
 * (a request to any host the answer names, on sight). An answer is outside text, so its images are
 * shown as what they are: `![alt](url)` and `![alt][ref]` become the link `!`[alt](url), `<img`
 * becomes the text `<img`. Code is left exactly as it is: an image inside a code span or a fenced
 * code block is text already.
 */

/** The longest partial construct held back at the end of a piece outside code (`<im`). */
const IMG_TAG = '<img';

/** One open code span: its backtick run's length, and the text held since its first `!` or `<`. */
interface OpenSpan {
  readonly length: number;
  held: string | undefined;
}

/** One open fenced code block. */
interface OpenFence {
  readonly char: string;
  readonly length: number;
}

/**
 * Rewrites images in streamed Markdown so they render as links or text, never as images.
 * `push` takes the answer's pieces in order and returns what can be shown so far; `end` returns the
 * rest. Outside code only a trailing `!`, `<i…`, backtick run or line that may open a fence is held
 * back; inside a code span that might never close, the text from its first `!` or `<` is held until
 * the span closes (then it is code, unchanged) or the paragraph ends (then it is text, rewritten).
 */
export class ImageRewriter {
  private pending = '';
  private lineStart = true;
  private lineBlank = true;
  private backslashes = 0;
  private span: OpenSpan | undefined;
  private fence: OpenFence | undefined;
  private fenceLine = '';
  private out = '';

  /** The next piece of the answer; returns the Markdown that is safe to show now. */
  push(text: string): string {
    return this.run(this.pending + text, false);
  }

  /** The end of the answer; returns whatever was held back, rewritten. */
  end(): string {
    return this.run(this.pending, true);
  }

  private emit(text: string): void {
    if (this.span?.held !== undefined) this.span.held += text;
    else this.out += text;
  }

  private run(text: string, final: boolean): string {
    let input = text;
    let i = 0;
    this.pending = '';
    const hold = (): string => {
      this.pending = input.slice(i);
      return this.take();
    };
    while (i < input.length) {
      if (this.fence !== undefined) {
        i = this.inFence(input, i);
        continue;
      }
      const c = input[i];
      if (this.lineStart && (c === '`' || c === '~')) {
        const run = runLength(input, i, c);
        if (i + run === input.length && !final) return hold();
        const newline = input.indexOf('\n', i);
        if (run >= 3 && newline === -1 && !final) return hold();
        const lineEnd = newline === -1 ? input.length : newline;
        if (run >= 3 && !(c === '`' && input.slice(i + run, lineEnd).includes('`'))) {
          if (this.span !== undefined) {
            // A fence interrupts the paragraph: the open code span never closes.
            input = this.unclosed() + input.slice(i);
            i = 0;
            continue;
          }
          this.fence = { char: c, length: run };
          this.out += input.slice(i, lineEnd + 1);
          this.fenceLine = '';
          i = lineEnd + 1;
          continue;
        }
      }
      this.lineStart = false;
      if (c === '\n') {
        if (this.lineBlank && this.span !== undefined) {
          input = this.unclosed() + input.slice(i);
          i = 0;
          continue;
        }
        this.emit(c);
        this.lineStart = true;
        this.lineBlank = true;
        this.backslashes = 0;
        i++;
        continue;
      }
      if (c !== ' ' && c !== '\t' && c !== '\r') this.lineBlank = false;
      if (this.span !== undefined) {
        if (c === '`') {
          const run = runLength(input, i, c);
          if (i + run === input.length && !final) return hold();
          this.emit(input.slice(i, i + run));
          if (run === this.span.length) {
            this.out += this.span.held ?? '';
            this.span = undefined;
          }
          i += run;
          continue;
        }
        if (c === '!' || c === '<') this.span.held ??= '';
        this.emit(c);
        i++;
        continue;
      }
      const escaped = this.backslashes % 2 === 1;
      this.backslashes = c === '\\' ? this.backslashes + 1 : 0;
      if (c === '!' && !escaped) {
        if (i + 1 === input.length && !final) return hold();
        this.out += input[i + 1] === '[' ? '\\!' : '!';
        i++;
        continue;
      }
      if (c === '<' && !escaped) {
        const next = input.slice(i, i + IMG_TAG.length).toLowerCase();
        if (next.length < IMG_TAG.length && IMG_TAG.startsWith(next) && !final) return hold();
        this.out += next === IMG_TAG ? '&lt;' : '<';
        i++;
        continue;
      }
      if (c === '`') {
        const run = runLength(input, i, c);
        if (i + run === input.length && !final) return hold();
        // An escaped backtick is text; the rest of its run may still open a span.
        const opener = escaped ? 1 : run;
        this.out += input.slice(i, i + opener);
        if (!escaped) this.span = { length: run, held: undefined };
        i += opener;
        continue;
      }
      this.out += c;
      i++;
    }
    if (final && this.span !== undefined) {
      const rest = this.unclosed();
      return rest === '' ? this.take() : this.run(rest, true);
    }
    return this.take();
  }

  /** Inside a fence everything is code, shown as it came; a closing fence line ends it. */
  private inFence(input: string, i: number): number {
    const newline = input.indexOf('\n', i);
    const end = newline === -1 ? input.length : newline + 1;
    const piece = input.slice(i, end);
    this.out += piece;
    this.fenceLine += piece;
    if (newline !== -1) {
      const fence = this.fence;
      const line = this.fenceLine.replace(/\r?\n$/, '');
      const closing = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
      if (fence !== undefined && closing !== null && closing[1][0] === fence.char && closing[1].length >= fence.length) this.fence = undefined;
      this.fenceLine = '';
      this.lineStart = true;
      this.lineBlank = true;
    }
    return end;
  }

  /** The open code span turned out to be no span: its held text is read again, as text. */
  private unclosed(): string {
    const held = this.span?.held ?? '';
    this.span = undefined;
    this.backslashes = 0;
    return held;
  }

  private take(): string {
    const out = this.out;
    this.out = '';
    return out;
  }
}

function runLength(text: string, start: number, char: string): number {
  let end = start;
  while (end < text.length && text[end] === char) end++;
  return end - start;
}

/** Rewrites the images in a whole Markdown text (see {@link ImageRewriter}). */
export function rewriteImages(markdown: string): string {
  const rewriter = new ImageRewriter();
  return rewriter.push(markdown) + rewriter.end();
}
