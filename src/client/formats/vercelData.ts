// The AI SDK data stream (`x-vercel-ai-data-stream`): lines of `code:JSON`, `0:` text and `3:` an
// error; the other codes (tool calls, data, finish…) carry no answer text.
import { StreamFormatError } from '../errors';
import { streamErrorMessage } from './events';
import { splitLines } from './lines';

/** The answer text pieces of an AI SDK data stream (the rules are on `parseFormat`, index.ts). */
export async function* parseVercelData(text: AsyncIterable<string>): AsyncGenerator<string> {
  let lineNumber = 0;
  const handle = (line: string): string | undefined => {
    lineNumber++;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      return undefined;
    }
    const code = line.slice(0, colon);
    if (code !== '0' && code !== '3') {
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.slice(colon + 1));
    } catch {
      throw new StreamFormatError(`The answer stream is not a valid AI SDK data stream: line ${lineNumber} is not valid JSON.`, lineNumber);
    }
    if (code === '3') {
      const message = typeof value === 'string' ? value : (streamErrorMessage(value, true) ?? JSON.stringify(value));
      throw new StreamFormatError(`The service reported an error in the answer stream: ${message}`, lineNumber);
    }
    return typeof value === 'string' ? value : undefined;
  };
  for await (const line of splitLines(text)) {
    const piece = handle(line);
    if (piece !== undefined && piece !== '') {
      yield piece;
    }
  }
}
