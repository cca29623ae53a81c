// NDJSON (and JSON Lines, JSON text sequences): one JSON value per line, or one pretty-printed
// JSON document, each read as any family's event (events.ts).
import { StreamFormatError } from '../errors';
import { extractText, streamErrorMessage } from './events';
import { splitLines, withoutBom } from './lines';

/** The answer text pieces of an NDJSON body (the rules are on `parseFormat`, index.ts). */
export async function* parseNdjson(text: AsyncIterable<string>, field: string | undefined): AsyncGenerator<string> {
  let lineNumber = 0;
  let firstContentLine: number | undefined;
  // Set when the first line is a lone "{" or "[": the body is one pretty-printed JSON document.
  let documentParts: string[] | undefined;
  let documentLength = 0;
  const handle = (line: string): string | undefined => {
    lineNumber++;
    if (documentParts !== undefined) {
      documentParts.push(line);
      documentLength += line.length;
      if (documentLength > MAX_DOCUMENT) {
        throw notJson(firstContentLine ?? 1);
      }
      return undefined;
    }
    const trimmed = line.charCodeAt(0) === 0x1e ? line.slice(1).trim() : line.trim();
    if (trimmed === '') {
      return undefined;
    }
    firstContentLine ??= lineNumber;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      if (lineNumber === firstContentLine && (trimmed === '{' || trimmed === '[')) {
        documentParts = [line];
        documentLength = line.length;
        return undefined;
      }
      throw notJson(lineNumber);
    }
    return textOfValue(value, field);
  };
  for await (const line of splitLines(withoutBom(text))) {
    const piece = handle(line);
    if (piece !== undefined && piece !== '') {
      yield piece;
    }
  }
  if (documentParts !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(documentParts.join('\n'));
    } catch {
      throw notJson(firstContentLine ?? 1);
    }
    const piece = textOfValue(value, field);
    if (piece !== undefined && piece !== '') {
      yield piece;
    }
  }
}

const MAX_DOCUMENT = 32 * 1024 * 1024;

function notJson(line: number): StreamFormatError {
  return new StreamFormatError(`The answer stream is not valid NDJSON: line ${line} is not valid JSON.`, line);
}

function textOfValue(value: unknown, field: string | undefined): string | undefined {
  const error = streamErrorMessage(value, false);
  if (error !== undefined) {
    throw new StreamFormatError(`The service reported an error in the answer stream: ${error}`);
  }
  return extractText(value, field);
}
