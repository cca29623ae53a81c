/** The warning given when the stream ends in the middle of a multibyte character. */
export const CUT_CHARACTER_WARNING =
  'The answer ended in the middle of a character (the last bytes were not complete UTF-8); it is shown as �.';

/**
 * Incremental UTF-8 decoding: a character split across chunks is held back until it is complete.
 * Shared by {@link decodeUtf8} and the query client, so both decode exactly alike.
 */
export class Utf8StreamDecoder {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });

  /** Decodes one chunk; may return '' when the chunk only starts a character. */
  push(bytes: Uint8Array): string {
    return this.decoder.decode(bytes, { stream: true });
  }

  /** Flushes what is held back; `cut` when that was an incomplete character (it becomes U+FFFD). */
  end(): { text: string; cut: boolean } {
    const text = this.decoder.decode();
    return { text, cut: text.includes('\uFFFD') };
  }
}

/**
 * Decodes a stream of UTF-8 chunks into text pieces, in order, never splitting a character.
 * Yields only non-empty strings. If the stream ends inside a character, the final piece holds one
 * U+FFFD and `onWarning` is called.
 */
export async function* decodeUtf8(
  chunks: AsyncIterable<Uint8Array>,
  onWarning?: (message: string) => void,
): AsyncGenerator<string> {
  const decoder = new Utf8StreamDecoder();
  for await (const chunk of chunks) {
    const text = decoder.push(chunk);
    if (text !== '') {
      yield text;
    }
  }
  const { text, cut } = decoder.end();
  if (cut) {
    onWarning?.(CUT_CHARACTER_WARNING);
  }
  if (text !== '') {
    yield text;
  }
}
