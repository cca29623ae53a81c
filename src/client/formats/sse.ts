// Server-sent events: each event's data read as JSON (any family's shape, see events.ts) or taken
// as text, until `[DONE]` or the end of an OpenAI Responses answer.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StreamFormatError } from '../errors';
import { extractText, streamErrorMessage } from './events';
import { isRecord } from './json';
import { withoutBom } from './lines';

const CONTROL_EVENTS = /^(ping|heartbeat|keep-?alive|start|end|done|close|open|metadata|meta|finish|stop|usage|status)$/i;

/** The answer text pieces of an SSE body (the rules are on `parseFormat`, index.ts). */
export async function* parseSse(text: AsyncIterable<string>, field: string | undefined): AsyncGenerator<string> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  let ended = false;
  const drain = function* (): Generator<string> {
    for (let i = 0; i < events.length; i++) {
      const piece = sseEventText(events[i], field);
      if (piece === DONE) {
        ended = true;
        events.length = 0;
        return;
      }
      if (piece !== undefined && piece !== '') {
        yield piece;
      }
    }
    events.length = 0;
  };
  for await (const chunk of withoutBom(text)) {
    parser.feed(chunk);
    yield* drain();
    if (ended) {
      return;
    }
  }
  // Deliver an event the stream did not terminate with a blank line (browsers drop it; we keep it).
  parser.feed('\n\n');
  yield* drain();
}

const DONE = Symbol('done');

function sseEventText(event: EventSourceMessage, field: string | undefined): string | typeof DONE | undefined {
  const data = event.data;
  if (data.trim() === '[DONE]') {
    return DONE;
  }
  const name = event.event;
  const first = data.trimStart().charAt(0);
  let parsed: { value: unknown } | undefined;
  if (first === '{' || first === '[' || first === '"') {
    try {
      parsed = { value: JSON.parse(data) as unknown };
    } catch {
      parsed = undefined;
    }
  }
  if (name === 'error') {
    const message = parsed === undefined ? data.trim() : (streamErrorMessage(parsed.value, true) ?? data.trim());
    throw new StreamFormatError(`The service reported an error in the answer stream: ${message || 'no details given'}`);
  }
  if (parsed === undefined) {
    if (data === '' || (name !== undefined && CONTROL_EVENTS.test(name))) {
      return undefined;
    }
    return data;
  }
  const error = streamErrorMessage(parsed.value, false);
  if (error !== undefined) {
    throw new StreamFormatError(`The service reported an error in the answer stream: ${error}`);
  }
  if (isRecord(parsed.value) && isResponsesEnd(parsed.value)) {
    return DONE;
  }
  return extractText(parsed.value, field);
}

/** OpenAI Responses API: `response.completed` (or `incomplete`) is the last event of an answer. */
function isResponsesEnd(value: Record<string, unknown>): boolean {
  return value['type'] === 'response.completed' || value['type'] === 'response.incomplete';
}
