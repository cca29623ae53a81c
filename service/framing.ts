/**
 * The wire framings the reference service wraps its answer in: SSE in the shapes of several hosted
 * LLM platforms, NDJSON, and the AI SDK data stream. Pure functions: text pieces in, frames out.
 */
import { NDJSON_BAD_GOOD_LINES, SSE_ERROR_DELTAS, SSE_ERROR_MESSAGE } from './apps';

/** The application ids whose answer is framed (everything else streams plain text or fails). */
export type FramedApplicationId =
  | 'sse-openai' | 'sse-vercel' | 'sse-dify' | 'sse-flowise' | 'sse-anthropic' | 'sse-openai-responses' | 'sse-langserve'
  | 'sse-langserve-stream' | 'sse-custom-field' | 'sse-error' | 'ndjson' | 'ndjson-bad' | 'vercel-data';

const FRAMED_IDS: readonly FramedApplicationId[] = [
  'sse-openai', 'sse-vercel', 'sse-dify', 'sse-flowise', 'sse-anthropic', 'sse-openai-responses', 'sse-langserve',
  'sse-langserve-stream', 'sse-custom-field', 'sse-error', 'ndjson', 'ndjson-bad', 'vercel-data',
];

/** Response headers plus the frames to write, in order. */
export interface FramedStream {
  headers: Record<string, string>;
  frames: string[];
}

const SSE_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' };
const NDJSON_HEADERS = { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-cache' };
const j = (v: unknown): string => JSON.stringify(v);

/** Whether an application id is one of the framed ones. */
export function isFramedApplication(id: string): id is FramedApplicationId {
  return (FRAMED_IDS as readonly string[]).includes(id);
}

function openAiChunk(delta: Record<string, string>, finishReason: string | null): string {
  return j({
    id: 'chatcmpl-reference', object: 'chat.completion.chunk', created: 1700000000, model: 'reference-1',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

function openAi(pieces: readonly string[]): string[] {
  const frames = [': connected\n\n', `data: ${openAiChunk({ role: 'assistant', content: '' }, null)}\n\n`];
  pieces.forEach((p, i) => {
    // Some events end with CRLF, and a comment arrives mid-stream: both are legal SSE.
    const eol = i % 3 === 2 ? '\r\n' : '\n';
    frames.push(`data: ${openAiChunk({ content: p }, null)}${eol}${eol}`);
    if (i === 7) {
      frames.push(': keep-alive\r\n\r\n');
    }
  });
  frames.push(`data: ${openAiChunk({}, 'stop')}\n\n`, 'data: [DONE]\n\n');
  return frames;
}

function vercelUi(pieces: readonly string[]): string[] {
  const ev = (v: unknown): string => `data: ${j(v)}\n\n`;
  return [
    ev({ type: 'start', messageId: 'msg-reference' }),
    ev({ type: 'start-step' }),
    ev({ type: 'text-start', id: 't1' }),
    ...pieces.map((delta) => ev({ type: 'text-delta', id: 't1', delta })),
    ev({ type: 'text-end', id: 't1' }),
    ev({ type: 'finish-step' }),
    ev({ type: 'finish' }),
    'data: [DONE]\n\n',
  ];
}

function dify(pieces: readonly string[]): string[] {
  const ids = { task_id: 'task-reference', message_id: 'msg-reference', conversation_id: 'conv-reference' };
  return [
    // Dify keeps connections alive with bare ping events; they carry no data.
    'event: ping\n\n',
    ...pieces.map((answer) => `data: ${j({ event: 'message', ...ids, answer, created_at: 1705398420 })}\n\n`),
    `data: ${j({ event: 'message_end', ...ids, metadata: { usage: { completion_tokens: pieces.length } } })}\n\n`,
  ];
}

function flowise(pieces: readonly string[]): string[] {
  // Flowise writes an empty `message:` field before each data line, and no space after `data:`.
  const ev = (v: unknown): string => `message:\ndata:${j(v)}\n\n`;
  return [
    ev({ event: 'start', data: '' }),
    ...pieces.map((data) => ev({ event: 'token', data })),
    ev({ event: 'metadata', data: { chatId: 'chat-reference', messageId: 'msg-reference' } }),
    ev({ event: 'end', data: '[DONE]' }),
  ];
}

/** An SSE frame with an event name, as Anthropic, OpenAI Responses and LangServe write them. */
const named = (event: string, data: unknown): string => `event: ${event}\ndata: ${j(data)}\n\n`;

function anthropic(pieces: readonly string[]): string[] {
  const usage = { input_tokens: 12, output_tokens: pieces.length };
  return [
    named('message_start', {
      type: 'message_start',
      message: { id: 'msg_reference', type: 'message', role: 'assistant', content: [], model: 'reference-1', stop_reason: null, stop_sequence: null, usage },
    }),
    named('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    named('ping', { type: 'ping' }),
    ...pieces.flatMap((text, i) => [
      named('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      ...(i === 5 ? [named('ping', { type: 'ping' })] : []),
    ]),
    named('content_block_stop', { type: 'content_block_stop', index: 0 }),
    named('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: pieces.length } }),
    named('message_stop', { type: 'message_stop' }),
  ];
}

function openAiResponses(pieces: readonly string[]): string[] {
  // The …done events and response.completed repeat the whole text: a client must not show it twice.
  const full = pieces.join('');
  const ids = { item_id: 'msg_reference', output_index: 0, content_index: 0 };
  const message = (status: string, text: string | undefined): unknown => ({
    id: 'msg_reference', type: 'message', status, role: 'assistant',
    content: text === undefined ? [] : [{ type: 'output_text', text, annotations: [] }],
  });
  const response = (status: string, output: unknown[]): unknown => ({ id: 'resp_reference', object: 'response', created_at: 1700000000, status, model: 'reference-1', output });
  let n = 0;
  const ev = (type: string, fields: Record<string, unknown>): string => named(type, { type, sequence_number: n++, ...fields });
  return [
    ev('response.created', { response: response('in_progress', []) }),
    ev('response.in_progress', { response: response('in_progress', []) }),
    ev('response.output_item.added', { output_index: 0, item: message('in_progress', undefined) }),
    ev('response.content_part.added', { ...ids, part: { type: 'output_text', text: '', annotations: [] } }),
    ...pieces.map((delta) => ev('response.output_text.delta', { ...ids, delta })),
    ev('response.output_text.done', { ...ids, text: full }),
    ev('response.content_part.done', { ...ids, part: { type: 'output_text', text: full, annotations: [] } }),
    ev('response.output_item.done', { output_index: 0, item: message('completed', full) }),
    ev('response.completed', { response: response('completed', [message('completed', full)]) }),
  ];
}

/** A LangChain AIMessageChunk as LangServe serializes it. */
function messageChunk(content: unknown): Record<string, unknown> {
  return {
    content, additional_kwargs: {}, response_metadata: {}, type: 'AIMessageChunk', name: null, id: 'run-reference-model',
    example: false, tool_calls: [], invalid_tool_calls: [], usage_metadata: null, tool_call_chunks: [],
  };
}

function langserveEvents(pieces: readonly string[]): string[] {
  const full = pieces.join('');
  const run = (name: string, tags: string[]): Record<string, unknown> => ({ name, run_id: `run-reference-${name.toLowerCase()}`, tags, metadata: {}, parent_ids: [] });
  const chain = run('RunnableSequence', []);
  const model = run('ChatModel', ['seq:step:2']);
  const parser = run('StrOutputParser', ['seq:step:3']);
  const data = (value: unknown): string => named('data', value);
  return [
    data({ event: 'on_chain_start', data: { input: { question: '…' } }, ...chain }),
    data({ event: 'on_chat_model_start', data: { input: { messages: [[{ type: 'human', content: '…' }]] } }, ...model }),
    ...pieces.flatMap((p, i) => [
      // Every other chunk carries its content as text parts, as Anthropic-backed models do.
      data({ event: 'on_chat_model_stream', data: { chunk: messageChunk(i % 2 === 0 ? p : [{ type: 'text', text: p, index: 0 }]) }, ...model }),
      data({ event: 'on_parser_stream', data: { chunk: p }, ...parser }),
      data({ event: 'on_chain_stream', data: { chunk: p }, ...chain }),
    ]),
    data({ event: 'on_chat_model_end', data: { output: messageChunk(full) }, ...model }),
    data({ event: 'on_chain_end', data: { output: full }, ...chain }),
    'event: end\n\n',
  ];
}

function langserveStream(pieces: readonly string[]): string[] {
  return [
    named('metadata', { run_id: 'run-reference' }),
    ...pieces.map((p) => named('data', messageChunk(p))),
    'event: end\n\n',
  ];
}

function customField(pieces: readonly string[]): string[] {
  return [...pieces.map((value) => `data: ${j({ output: { value } })}\n\n`), `data: ${j({ output: { finished: true } })}\n\n`];
}

function sseError(pieces: readonly string[]): string[] {
  return [
    ...pieces.slice(0, SSE_ERROR_DELTAS).map((p) => `data: ${j({ choices: [{ index: 0, delta: { content: p } }] })}\n\n`),
    `event: error\ndata: ${j({ message: SSE_ERROR_MESSAGE })}\n\n`,
  ];
}

function ndjson(pieces: readonly string[]): string[] {
  const frames: string[] = [];
  pieces.forEach((p, i) => {
    const line = i % 2 === 0 ? j({ text: p }) : j({ model: 'reference-1', response: p, done: false });
    const eol = i % 4 === 3 ? '\r\n' : '\n';
    frames.push(line + eol + (i % 7 === 6 ? (i % 2 === 0 ? '\n' : '\r\n') : ''));
  });
  frames.push(`${j({ model: 'reference-1', response: '', done: true })}\n`);
  return frames;
}

function ndjsonBad(pieces: readonly string[]): string[] {
  const good = pieces.map((text) => `${j({ text })}\n`);
  return [
    ...good.slice(0, NDJSON_BAD_GOOD_LINES),
    '{"text": "this line is not valid JSON\n',
    ...good.slice(NDJSON_BAD_GOOD_LINES),
  ];
}

function vercelData(pieces: readonly string[]): string[] {
  const usage = { promptTokens: 12, completionTokens: pieces.length };
  return [
    `f:${j({ messageId: 'msg-reference' })}\n`,
    ...pieces.map((p) => `0:${j(p)}\n`),
    `e:${j({ finishReason: 'stop', usage, isContinued: false })}\n`,
    `d:${j({ finishReason: 'stop', usage })}\n`,
  ];
}

/** Frames `pieces` (the answer's text deltas) the way application `id` sends them. */
export function frameAnswer(id: FramedApplicationId, pieces: readonly string[]): FramedStream {
  switch (id) {
    case 'sse-openai': return { headers: SSE_HEADERS, frames: openAi(pieces) };
    case 'sse-vercel': return { headers: { ...SSE_HEADERS, 'x-vercel-ai-ui-message-stream': 'v1' }, frames: vercelUi(pieces) };
    case 'sse-dify': return { headers: SSE_HEADERS, frames: dify(pieces) };
    case 'sse-flowise': return { headers: SSE_HEADERS, frames: flowise(pieces) };
    case 'sse-anthropic': return { headers: SSE_HEADERS, frames: anthropic(pieces) };
    case 'sse-openai-responses': return { headers: SSE_HEADERS, frames: openAiResponses(pieces) };
    case 'sse-langserve': return { headers: SSE_HEADERS, frames: langserveEvents(pieces) };
    case 'sse-langserve-stream': return { headers: SSE_HEADERS, frames: langserveStream(pieces) };
    case 'sse-custom-field': return { headers: SSE_HEADERS, frames: customField(pieces) };
    case 'sse-error': return { headers: SSE_HEADERS, frames: sseError(pieces) };
    case 'ndjson': return { headers: NDJSON_HEADERS, frames: ndjson(pieces) };
    case 'ndjson-bad': return { headers: NDJSON_HEADERS, frames: ndjsonBad(pieces) };
    case 'vercel-data':
      return {
        headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache', 'x-vercel-ai-data-stream': 'v1' },
        frames: vercelData(pieces),
      };
    default: {
      const never: never = id;
      throw new Error(`not a framed application: ${String(never)}`);
    }
  }
}
