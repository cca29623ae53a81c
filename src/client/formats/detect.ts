// Which wire format an answer uses (from its headers, else sniffed from its first text), and whose
// event shape it carries (for History and the inspector; parsing does not need it).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { isRecord, parsesAsJson } from './json';

/** How an answer stream is framed on the wire. */
export type WireFormat = 'text' | 'sse' | 'ndjson' | 'vercel-data';

/** The least a headers object must offer (a fetch `Headers` does). */
export interface HeaderLookup {
  get(name: string): string | null;
}

const NDJSON_TYPES: ReadonlySet<string> = new Set([
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonl',
  'application/jsonlines',
  'application/x-jsonlines',
  'application/json-seq',
  'application/stream+json',
]);

const TEXT_TYPES: ReadonlySet<string> = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);

/** The media type of a Content-Type value, lower case, without parameters ('' when absent). */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}

/**
 * The wire format the response headers announce, or `undefined` when they do not settle it and
 * the first bytes must be looked at ({@link sniffFormat}).
 */
export function detectFormatFromHeaders(contentType: string | null, headers: HeaderLookup): WireFormat | undefined {
  // The AI SDK sends its data stream as text/plain, so its marker header must win over the type.
  if (headers.get('x-vercel-ai-data-stream') !== null) {
    return 'vercel-data';
  }
  if (headers.get('x-vercel-ai-ui-message-stream') !== null) {
    return 'sse';
  }
  const type = mediaType(contentType);
  if (type === 'text/event-stream') {
    return 'sse';
  }
  if (NDJSON_TYPES.has(type)) {
    return 'ndjson';
  }
  if (TEXT_TYPES.has(type)) {
    return 'text';
  }
  return undefined;
}

/** The JSON text sequence record separator (RFC 7464). */
const RS = String.fromCharCode(0x1e);
const SSE_FIELDS = ['data:', 'event:', 'id:', 'retry:'];
/** How much text sniffing may wait for before it settles on plain text. */
const SNIFF_LIMIT = 4096;

/**
 * Guesses the wire format from the first text of the body. Returns `undefined` when more text is
 * needed to tell (only while `final` is false); with `final` it always decides.
 */
export function sniffFormat(firstText: string, final: boolean): WireFormat | undefined {
  const text = firstText.replace(/^[\uFEFF\s]+/, '');
  const undecided = final || firstText.length >= SNIFF_LIMIT ? 'text' : undefined;
  if (text === '') {
    return undecided;
  }
  if (text.startsWith(':') || SSE_FIELDS.some((field) => text.startsWith(field))) {
    return 'sse';
  }
  if (SSE_FIELDS.some((field) => field.startsWith(text))) {
    return undecided;
  }
  const newline = text.indexOf('\n');
  const firstLine = (newline === -1 ? text : text.slice(0, newline)).replace(/\r$/, '');
  const complete = newline !== -1 || final;
  if (/^[0-9a-z]:/.test(firstLine)) {
    if (!complete) {
      return undecided;
    }
    return parsesAsJson(firstLine.slice(2)) ? 'vercel-data' : 'text';
  }
  if (/^[0-9a-z]$/.test(firstLine) && !complete) {
    return undecided;
  }
  if (firstLine.startsWith('{') || firstLine.startsWith(`${RS}{`)) {
    if (!complete) {
      return undecided;
    }
    const line = (firstLine.charCodeAt(0) === 0x1e ? firstLine.slice(1) : firstLine).trim();
    // A lone "{" opens a pretty-printed JSON document, which the NDJSON reader also accepts.
    return line === '{' || parsesAsJson(line) ? 'ndjson' : 'text';
  }
  return 'text';
}

/**
 * The wire format of an answer: from the Content-Type and marker headers when they settle it,
 * otherwise sniffed from the first text (`data:`/`event:`/`:` → SSE, `0:"…"` → AI SDK data stream,
 * JSON object lines → NDJSON, anything else → plain text).
 */
export function detectFormat(contentType: string | null, headers: HeaderLookup, firstText: string): WireFormat {
  return detectFormatFromHeaders(contentType, headers) ?? sniffFormat(firstText, true) ?? 'text';
}

/** Whose event shape an SSE or NDJSON answer uses, as far as its first events tell. */
export type StreamShape =
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'langserve-events'
  | 'langserve'
  | 'ai-sdk'
  | 'dify'
  | 'flowise'
  | 'ollama'
  | 'tgi';

const ANTHROPIC_TYPES: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
]);

/**
 * Names the event shape of an answer from the start of its wire text (for History and the
 * inspector; parsing does not need it). `undefined` for plain text or when no event tells.
 */
export function detectStreamShape(format: WireFormat, firstText: string): StreamShape | undefined {
  if (format === 'vercel-data') {
    return 'ai-sdk';
  }
  if (format === 'ndjson') {
    for (const line of firstText.split('\n')) {
      const shape = shapeOfData(line.charCodeAt(0) === 0x1e ? line.slice(1) : line, undefined);
      if (shape !== undefined) {
        return shape;
      }
    }
    return undefined;
  }
  if (format !== 'sse') {
    return undefined;
  }
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(firstText.replace(/^\uFEFF/, ''));
  let langserve = false;
  for (const event of events) {
    const shape = shapeOfData(event.data, event.event);
    if (shape !== undefined) {
      return shape;
    }
    // LangServe opens with `event: metadata` carrying the run id, then `event: data` frames.
    langserve ||= event.event === 'metadata' && /"run_id"/.test(event.data);
  }
  return langserve ? 'langserve' : undefined;
}

function shapeOfData(data: string, eventName: string | undefined): StreamShape | undefined {
  const trimmed = data.trim();
  if (!trimmed.startsWith('{')) {
    return eventName === 'data' && trimmed.startsWith('"') ? 'langserve' : undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) {
    return undefined;
  }
  const type = value['type'];
  if (typeof type === 'string') {
    if (type.startsWith('response.')) {
      return 'openai-responses';
    }
    if (ANTHROPIC_TYPES.has(type)) {
      return 'anthropic';
    }
    if (type === 'AIMessageChunk') {
      return 'langserve';
    }
    if (type === 'text-delta' || type === 'text-start' || type === 'start-step') {
      return 'ai-sdk';
    }
  }
  if (Array.isArray(value['choices'])) {
    return 'openai-chat';
  }
  const event = value['event'];
  if (typeof event === 'string') {
    if (event.startsWith('on_')) {
      return 'langserve-events';
    }
    if (event === 'message' || event === 'agent_message' || event === 'message_end' || event === 'workflow_started') {
      return 'dify';
    }
    if (event === 'token') {
      return 'flowise';
    }
  }
  if (typeof value['model'] === 'string' && typeof value['done'] === 'boolean') {
    return 'ollama';
  }
  if (isRecord(value['token']) && typeof value['token']['text'] === 'string') {
    return 'tgi';
  }
  return undefined;
}
