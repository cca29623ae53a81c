import { TextDecoder } from 'node:util';
/** The warning given when the stream ends in the middle of a multibyte character. */
export const CUT_CHARACTER_WARNING =
  'The answer ended in the middle of a character (the last bytes were not complete UTF-8); it is shown as �.';

/**
 * Incremental decoding in the charset a response declared (UTF-8 unless it says otherwise): a
 * character split across chunks is held back until it is complete.
 */
export class TextStreamDecoder {
  private readonly decoder: TextDecoder;

  constructor(label = 'utf-8') {
    this.decoder = new TextDecoder(label, { fatal: false });
  }

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

/** Incremental UTF-8 decoding, shared by {@link decodeUtf8} and the query client so both decode alike. */
export class Utf8StreamDecoder extends TextStreamDecoder {
  constructor() {
    super('utf-8');
  }
}

/**
 * The decoder for a response's `Content-Type`: its `charset` when it names one this runtime can
 * decode, else UTF-8 (with a warning when a charset was named but cannot be decoded).
 */
export function decoderForContentType(contentType: string | null | undefined): { decoder: TextStreamDecoder; charset: string; warning?: string } {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  const declared = match?.[1]?.toLowerCase();
  if (declared === undefined || declared === 'utf-8' || declared === 'utf8') return { decoder: new Utf8StreamDecoder(), charset: 'utf-8' };
  try {
    return { decoder: new TextStreamDecoder(declared), charset: declared };
  } catch {
    return {
      decoder: new Utf8StreamDecoder(),
      charset: 'utf-8',
      warning: `The service declared charset=${declared.slice(0, 40)}, which cannot be decoded here; the answer was read as UTF-8, so some characters may be wrong.`,
    };
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
