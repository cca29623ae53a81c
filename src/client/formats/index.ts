// The wire formats of an answer stream, one file per family: detect.ts tells them apart, sse.ts,
// ndjson.ts and vercelData.ts read them (events.ts reads one event of any family's shape). The
// one entry point the rest of the client and the host import.
import type { WireFormat } from './detect';
import { parseNdjson } from './ndjson';
import { parseSse } from './sse';
import { parseVercelData } from './vercelData';

export { detectFormat, detectFormatFromHeaders, detectStreamShape, mediaType, sniffFormat } from './detect';
export type { HeaderLookup, StreamShape, WireFormat } from './detect';
export { extractText } from './events';

/**
 * Turns the decoded text of an answer stream into answer text pieces, in order.
 * - `text`: passed through.
 * - `sse`: each event's data is read as JSON ({@link extractText}) or, when it is not JSON, taken as
 *   text; `[DONE]` and the Responses API's `response.completed`/`response.incomplete` end the
 *   answer; an `error` event (also Anthropic's and the Responses API's `error`/`response.failed`)
 *   throws a `StreamFormatError`; events with no text are skipped; an unterminated last event
 *   is still delivered.
 * - `ndjson`: one JSON value per line (CRLF and blank lines allowed, a line may span chunks); a bad
 *   line throws a `StreamFormatError` naming its number, after what came before was yielded. A
 *   single pretty-printed JSON document is accepted too.
 * - `vercel-data`: AI SDK data stream lines; `0:"…"` is text, `3:"…"` an error, others are skipped.
 */
export async function* parseFormat(format: WireFormat, text: AsyncIterable<string>, field?: string): AsyncGenerator<string> {
  switch (format) {
    case 'text':
      yield* text;
      return;
    case 'sse':
      yield* parseSse(text, field);
      return;
    case 'ndjson':
      yield* parseNdjson(text, field);
      return;
    case 'vercel-data':
      yield* parseVercelData(text);
      return;
  }
}
