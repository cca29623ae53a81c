// Stored History as JSON text, read without parsing it whole: a file storage hands over at most the
// bytes asked for, and the exchanges are taken from its start one element at a time.

/**
 * Stored History as JSON text, as a file storage reads it: at most the bytes asked for, so a huge
 * or hostile file is never read or parsed whole (`complete` is false when the file was longer).
 */
export class StoredHistoryText {
  constructor(
    readonly text: string,
    readonly complete: boolean,
    readonly totalBytes: number,
  ) {}
}

/**
 * The elements of the JSON array that starts at `start` in `text`, parsed one at a time, until the
 * array or the text ends (an element cut off at the end of the text is left out). Stops at the
 * first element that is not valid JSON.
 */
export function* jsonArrayElements(text: string, start: number): Generator<unknown> {
  let i = start;
  const length = text.length;
  for (;;) {
    while (i < length && /[\s,]/.test(text[i])) {
      i++;
    }
    if (i >= length || text[i] === ']') {
      return;
    }
    const begin = i;
    let depth = 0;
    let inString = false;
    for (; i < length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) {
          i++;
        } else if (c === 0x22) {
          inString = false;
        }
      } else if (c === 0x22) {
        inString = true;
      } else if (c === 0x7b || c === 0x5b) {
        depth++;
      } else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      } else if (depth === 0 && c === 0x2c) {
        break;
      }
    }
    if (depth !== 0 || inString) {
      return;
    }
    try {
      yield JSON.parse(text.slice(begin, i)) as unknown;
    } catch {
      return;
    }
  }
}
