/**
 * The wire framings the reference service wraps its answer in: SSE in the shapes of several hosted
 * LLM platforms, NDJSON, and the AI SDK data stream. Pure functions: text pieces in, frames out.
 */
import { NDJSON_BAD_GOOD_LINES, SSE_ERROR_DELTAS, SSE_ERROR_MESSAGE } from './apps';

/** The application ids whose answer is framed (everything else streams plain text or fails). */
export type FramedApplicationId =
  | 'sse-openai' | 'sse-vercel' | 'sse-dify' | 'sse-flowise' | 'sse-error' | 'ndjson' | 'ndjson-bad' | 'vercel-data';

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
  return ['sse-openai', 'sse-vercel', 'sse-dify', 'sse-flowise', 'sse-error', 'ndjson', 'ndjson-bad', 'vercel-data'].includes(id);
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
