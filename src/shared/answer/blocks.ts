/**
 * The Markdown options every parse of an answer uses (the webview's renderer, and the query files'
 * parser, which reads the same Markdown), and how streamed text is normalized the way a whole text is.
 */
import MarkdownIt from 'markdown-it';

/** A markdown-it instance. */
export type Markdown = InstanceType<typeof MarkdownIt>;

/** A markdown-it instance with the options of every parse (raw HTML off, bare links linked). */
export function createMarkdown(): Markdown {
  return new MarkdownIt({ html: false, linkify: true, typographer: false });
}

const LINE_BREAKS = /\r\n?/g;
const NUL = /\0/g;

/**
 * Normalizes streamed text the way markdown-it normalizes a whole text (line breaks become `\n`,
 * NUL becomes U+FFFD), across pieces: a CR at the end of one piece and a LF at the start of the
 * next are one line break.
 */
export class TextNormalizer {
  private pendingCr = false;

  /** The normalized form of the next piece. */
  normalize(text: string): string {
    if (text === '') return '';
    const skipLf = this.pendingCr && text.charCodeAt(0) === 10;
    this.pendingCr = text.charCodeAt(text.length - 1) === 13;
    return (skipLf ? text.slice(1) : text).replace(LINE_BREAKS, '\n').replace(NUL, '\uFFFD');
  }
}
