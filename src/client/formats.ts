import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StreamFormatError } from './errors';

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

/**
 * The answer text carried by one parsed event. With `field` (a dotted path such as
 * `choices.0.delta.content`) only that field is read; otherwise the common shapes are recognized:
 * OpenAI chat completions and Responses API (`response.output_text.delta`), AI SDK, Anthropic
 * Messages (`content_block_delta` text deltas), LangChain/LangServe (`on_chat_model_stream` events
 * and `/stream` message chunks, content as a string or text parts), Dify, Flowise, Ollama, and
 * `{text|content|token|delta|response}`. `undefined` when the event carries no text (start,
 * finish, ping, usage, tool calls, reasoning…).
 */
export function extractText(value: unknown, field?: string): string | undefined {
  if (field !== undefined && field !== '') {
    const found = readPath(value, field);
    return typeof found === 'string' ? found : undefined;
  }
  if (typeof value === 'string') {
    return value;
  }
  if (!isRecord(value)) {
    return undefined;
  }
  const type = value['type'];
  if (typeof type === 'string') {
    switch (type) {
      case 'text-delta':
        return stringOf(value['delta']) ?? stringOf(value['textDelta']);
      case 'content_block_delta': {
        const delta = value['delta'];
        return isRecord(delta) && delta['type'] === 'text_delta' ? stringOf(delta['text']) : undefined;
      }
      case 'response.output_text.delta':
        return stringOf(value['delta']);
      case 'AIMessageChunk':
        // LangServe `/stream` of a chat model: the chunk itself.
        return contentText(value['content']);
      case 'constructor':
        // A LangChain message chunk serialized on its own (`{lc, type, id, kwargs}`).
        return value['lc'] !== undefined ? messageChunkText(value) : undefined;
      default:
        // The rest of the OpenAI Responses events repeat the text (`…done`) or carry tool arguments.
        if (type.startsWith('response.')) {
          return undefined;
        }
        // Reasoning, tool calls and "thinking" carry text that is not the answer.
        if (/reason|tool|think|error/i.test(type)) {
          return undefined;
        }
    }
  }
  const choices = value['choices'];
  if (Array.isArray(choices)) {
    const first: unknown = choices[0];
    if (!isRecord(first)) {
      return undefined;
    }
    const delta = first['delta'];
    const message = first['message'];
    return (
      (isRecord(delta) ? stringOf(delta['content']) : undefined) ??
      stringOf(first['text']) ??
      (isRecord(message) ? stringOf(message['content']) : undefined)
    );
  }
  const event = value['event'];
  if (typeof event === 'string') {
    if (event === 'token') {
      return stringOf(value['data']);
    }
    if (event === 'message' || event === 'agent_message') {
      return stringOf(value['answer']) ?? stringOf(value['text']);
    }
    if (event === 'text_chunk') {
      const data = value['data'];
      return isRecord(data) ? stringOf(data['text']) : undefined;
    }
    if (event === 'on_chat_model_stream' || event === 'on_llm_stream') {
      // LangChain/LangServe stream events; other `on_*` events repeat the text or are bookkeeping.
      const data = value['data'];
      return messageChunkText(isRecord(data) ? data['chunk'] : undefined);
    }
    if (event !== 'text' && event !== 'delta' && event !== 'content') {
      return undefined;
    }
  }
  const message = value['message'];
  if (isRecord(message)) {
    const content = stringOf(message['content']);
    if (content !== undefined) {
      return content;
    }
  }
  const token = value['token'];
  if (isRecord(token)) {
    return token['special'] === true ? undefined : stringOf(token['text']);
  }
  return (
    stringOf(value['response']) ??
    stringOf(value['answer']) ??
    stringOf(value['text']) ??
    stringOf(value['content']) ??
    stringOf(token) ??
    stringOf(value['delta'])
  );
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

/** What people call each {@link StreamShape}. */
export const STREAM_SHAPE_LABELS: Readonly<Record<StreamShape, string>> = {
  'openai-chat': 'OpenAI chat completions',
  'openai-responses': 'OpenAI Responses API',
  anthropic: 'Anthropic Messages',
  'langserve-events': 'LangChain stream events',
  langserve: 'LangServe stream',
  'ai-sdk': 'AI SDK',
  dify: 'Dify',
  flowise: 'Flowise',
  ollama: 'Ollama',
  tgi: 'Text Generation Inference',
};

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

/** A {@link WireFormat} for people, with the shape when known: `SSE (Anthropic Messages)`. */
export function describeWireFormat(format: WireFormat, shape?: StreamShape): string {
  const name = { text: 'plain text', sse: 'SSE', ndjson: 'NDJSON', 'vercel-data': 'AI SDK data stream' }[format];
  return shape === undefined || format === 'vercel-data' ? name : `${name} (${STREAM_SHAPE_LABELS[shape]})`;
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

/**
 * Turns the decoded text of an answer stream into answer text pieces, in order.
 * - `text`: passed through.
 * - `sse`: each event's data is read as JSON ({@link extractText}) or, when it is not JSON, taken as
 *   text; `[DONE]` and the Responses API's `response.completed`/`response.incomplete` end the
 *   answer; an `error` event (also Anthropic's and the Responses API's `error`/`response.failed`)
 *   throws {@link StreamFormatError}; events with no text are skipped; an unterminated last event
 *   is still delivered.
 * - `ndjson`: one JSON value per line (CRLF and blank lines allowed, a line may span chunks); a bad
 *   line throws {@link StreamFormatError} naming its number, after what came before was yielded. A
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

const CONTROL_EVENTS = /^(ping|heartbeat|keep-?alive|start|end|done|close|open|metadata|meta|finish|stop|usage|status)$/i;

async function* parseSse(text: AsyncIterable<string>, field: string | undefined): AsyncGenerator<string> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  let first = true;
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
  for await (let chunk of text) {
    if (first && chunk !== '') {
      first = false;
      // eventsource-parser looks for the BOM as bytes; in decoded text it is one U+FEFF.
      if (chunk.charCodeAt(0) === 0xfeff) {
        chunk = chunk.slice(1);
      }
    }
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

async function* parseNdjson(text: AsyncIterable<string>, field: string | undefined): AsyncGenerator<string> {
  const lines = new LineSplitter();
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
  let first = true;
  for await (let chunk of text) {
    if (first && chunk !== '') {
      first = false;
      if (chunk.charCodeAt(0) === 0xfeff) {
        chunk = chunk.slice(1);
      }
    }
    for (const line of lines.push(chunk)) {
      const piece = handle(line);
      if (piece !== undefined && piece !== '') {
        yield piece;
      }
    }
  }
  const last = lines.end();
  if (last !== undefined) {
    const piece = handle(last);
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

async function* parseVercelData(text: AsyncIterable<string>): AsyncGenerator<string> {
  const lines = new LineSplitter();
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
  for await (const chunk of text) {
    for (const line of lines.push(chunk)) {
      const piece = handle(line);
      if (piece !== undefined && piece !== '') {
        yield piece;
      }
    }
  }
  const last = lines.end();
  if (last !== undefined) {
    const piece = handle(last);
    if (piece !== undefined && piece !== '') {
      yield piece;
    }
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

/**
 * The error a parsed event reports, if it is one: `{type:'error'}`, `{event:'error'}`, or an
 * `{error: "…" | {message}}` that carries no text. With `isError` the value is known to be an error.
 */
function streamErrorMessage(value: unknown, isError: boolean): string | undefined {
  if (typeof value === 'string') {
    return isError ? value : undefined;
  }
  if (!isRecord(value)) {
    return isError ? JSON.stringify(value) : undefined;
  }
  // OpenAI Responses API: a failed response carries its error inside the response object.
  if (value['type'] === 'response.failed') {
    const response = value['response'];
    const failure = isRecord(response) ? response['error'] : undefined;
    return (isRecord(failure) ? errorObjectMessage(failure) : undefined) ?? 'the response failed (no details given)';
  }
  const flagged = isError || value['type'] === 'error' || value['event'] === 'error';
  const error = value['error'];
  const fromError = typeof error === 'string' ? error : isRecord(error) ? errorObjectMessage(error) : undefined;
  if (flagged) {
    return (
      stringOf(value['errorText']) ??
      stringOf(value['message']) ??
      fromError ??
      stringOf(value['data']) ??
      (isRecord(error) ? JSON.stringify(error) : undefined) ??
      'no details given'
    );
  }
  if (fromError !== undefined && fromError !== '' && extractText(value) === undefined) {
    return fromError;
  }
  return undefined;
}

/**
 * A LangChain message content: a string, or an array of parts whose `text` parts are joined
 * (tool calls, images and thinking parts are not answer text).
 */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') {
    return content;
  }
  if (!Array.isArray(content)) {
    return undefined;
  }
  let text: string | undefined;
  for (const part of content) {
    if (typeof part === 'string') {
      text = (text ?? '') + part;
    } else if (isRecord(part) && (part['type'] === undefined || part['type'] === 'text' || part['type'] === 'text_delta')) {
      const piece = stringOf(part['text']);
      if (piece !== undefined) {
        text = (text ?? '') + piece;
      }
    }
  }
  return text;
}

/**
 * The text of a LangChain stream chunk: a string, a generation chunk (`{text}`), a message chunk
 * (`{content}`), or a message chunk as `streamEvents(…, { encoding: 'text/event-stream' })`
 * serializes it (`{lc, type: 'constructor', id, kwargs: {content}}`).
 */
function messageChunkText(chunk: unknown): string | undefined {
  if (typeof chunk === 'string') {
    return chunk;
  }
  if (!isRecord(chunk)) {
    return undefined;
  }
  const kwargs = chunk['kwargs'];
  const fields = chunk['lc'] !== undefined && isRecord(kwargs) ? kwargs : chunk;
  return contentText(fields['content']) ?? stringOf(fields['text']);
}

/** `{message, type|code}` as "message (code)", the way Anthropic and OpenAI describe errors. */
function errorObjectMessage(error: Record<string, unknown>): string | undefined {
  const message = stringOf(error['message']);
  const code = stringOf(error['type']) ?? stringOf(error['code']);
  if (message === undefined) {
    return undefined;
  }
  return code === undefined || code === '' ? message : `${message} (${code})`;
}

function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(key)) {
        return undefined;
      }
      current = current[Number(key)];
    } else if (isRecord(current)) {
      current = Object.prototype.hasOwnProperty.call(current, key) ? current[key] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
