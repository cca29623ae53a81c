// Decoded answer text arriving in chunks, cut the ways the formats read it: without a leading byte
// order mark (SSE, NDJSON), and into lines (NDJSON, the AI SDK data stream).

/**
 * The text without the byte order mark that may open it. Parsers such as eventsource-parser look for
 * the BOM as bytes; in decoded text it is one U+FEFF at the start of the first non-empty chunk.
 */
export async function* withoutBom(text: AsyncIterable<string>): AsyncGenerator<string> {
  let first = true;
  for await (let chunk of text) {
    if (first && chunk !== '') {
      first = false;
      if (chunk.charCodeAt(0) === 0xfeff) {
        chunk = chunk.slice(1);
      }
    }
    yield chunk;
  }
}

/** The lines (LF or CRLF) of text arriving in chunks, a line split across chunks joined, an unterminated last line included. */
export async function* splitLines(text: AsyncIterable<string>): AsyncGenerator<string> {
  const lines = new LineSplitter();
  for await (const chunk of text) {
    yield* lines.push(chunk);
  }
  const last = lines.end();
  if (last !== undefined) {
    yield last;
  }
}

/** Splits text arriving in chunks into lines (LF or CRLF), holding back an incomplete last line. */
class LineSplitter {
  private pending = '';

  push(chunk: string): string[] {
    const out: string[] = [];
    let start = 0;
    let text = chunk;
    let newline = text.indexOf('\n');
    if (newline === -1) {
      this.pending += chunk;
      return out;
    }
    if (this.pending !== '') {
      newline += this.pending.length;
      text = this.pending + chunk;
      this.pending = '';
    }
    while (newline !== -1) {
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      out.push(text.slice(start, end));
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    this.pending = text.slice(start);
    return out;
  }

  /** The unterminated last line, if any. */
  end(): string | undefined {
    const last = this.pending.replace(/\r$/, '');
    this.pending = '';
    return last === '' ? undefined : last;
  }
}
