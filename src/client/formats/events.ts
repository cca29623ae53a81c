// What one parsed event of an SSE or NDJSON answer says, whoever's shape it has: its answer text
// (OpenAI, Anthropic, the Responses API, AI SDK, LangChain/LangServe, Dify, Flowise, Ollama, TGI),
// or the error it reports.
import { isRecord, readPath, stringOf } from './json';

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

/**
 * The error a parsed event reports, if it is one: `{type:'error'}`, `{event:'error'}`, or an
 * `{error: "…" | {message}}` that carries no text. With `isError` the value is known to be an error.
 */
export function streamErrorMessage(value: unknown, isError: boolean): string | undefined {
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
