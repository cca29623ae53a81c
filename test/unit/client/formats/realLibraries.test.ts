import * as assert from 'node:assert/strict';
import type * as http from 'node:http';
import { AIMessageChunk } from '@langchain/core/messages';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { FakeListChatModel, FakeStreamingChatModel, FakeStreamingLLM } from '@langchain/core/utils/testing';
import { streamText } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { WireFormat } from '../../../../src/client/formats';
import { sendQuery } from '../../../../src/client/queryClient';
import { collect, startServer, writeChunk, type TestServer } from '../../../support/loopback';

/** The answer every producer streams: multibyte characters, quotes, a line break, JSON-looking text. */
const ANSWER = 'Héllo "wörld" 😀\n{"not":"json"} 日本 ';
/** The answer cut into the pieces a model streams. */
const PIECES = ['Hél', 'lo "wö', 'rld" 😀', '\n{"not":', '"json"} ', '日本 '];

/** Serves whatever `produce` returns for every request, and reads it with the project's client. */
async function readWithClient(produce: (res: http.ServerResponse) => Promise<void>): Promise<{ text: string; format: WireFormat; textless: boolean }> {
  const server: TestServer = await startServer(async (_req, res) => produce(res));
  try {
    const response = await sendQuery({ baseUrl: server.url, applicationId: 'app', apiKey: 'test-key-0123456789', body: { query: 'q' } });
    const { text, error } = await collect(response.text);
    assert.equal(error, undefined);
    return { text, format: response.format, textless: response.noTextExtracted() };
  } finally {
    await server.close();
  }
}

/** Copies a web `ReadableStream` of bytes to a Node response, chunk by chunk. */
async function pipeWebStream(stream: ReadableStream<Uint8Array>, res: http.ServerResponse): Promise<void> {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    await writeChunk(res, value);
  }
  res.end();
}

/** A web `Response` (as route handlers return it) served through a Node response. */
async function serveResponse(response: Response, res: http.ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeWebStream(response.body, res);
}

describe('stream formats from the real producing libraries', function () {
  this.timeout(20_000);

  describe('@langchain/core streamEvents v2 as text/event-stream', () => {
    const serveEvents = (stream: ReadableStream<Uint8Array>) => async (res: http.ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      await pipeWebStream(stream, res);
    };

    it('a prompt piped into a fake chat model: exactly the answer, once', async () => {
      const model = new FakeListChatModel({ responses: [ANSWER] });
      const chain = ChatPromptTemplate.fromMessages([['human', '{question}']]).pipe(model);
      const result = await readWithClient(serveEvents(chain.streamEvents({ question: 'q' }, { version: 'v2', encoding: 'text/event-stream' })));
      assert.equal(result.format, 'sse');
      assert.equal(result.text, ANSWER);
      assert.equal(result.textless, false);
    });

    it('message chunks whose content is an array of parts: only the text parts', async () => {
      const chunks = PIECES.map((piece, i) =>
        i % 2 === 0 ? new AIMessageChunk({ content: [{ type: 'text', text: piece }, { type: 'tool_use', id: `t${i}`, name: 'n', input: '{"x":1}' }] }) : new AIMessageChunk({ content: piece }),
      );
      const model = new FakeStreamingChatModel({ chunks });
      const result = await readWithClient(serveEvents(model.streamEvents('q', { version: 'v2', encoding: 'text/event-stream' })));
      assert.equal(result.text, ANSWER);
    });

    it('a fake streaming LLM (on_llm_stream generation chunks)', async () => {
      const model = new FakeStreamingLLM({ responses: [ANSWER], sleep: 0 });
      const result = await readWithClient(serveEvents(model.streamEvents('q', { version: 'v2', encoding: 'text/event-stream' })));
      assert.equal(result.text, ANSWER);
    });
  });

  describe('ai (AI SDK) streamText with a mock model', () => {
    const mockStream = (): ReturnType<typeof streamText> =>
      streamText({
        model: new MockLanguageModelV3({
          doStream: {
            stream: simulateReadableStream({
              chunks: [
                { type: 'stream-start', warnings: [] },
                { type: 'reasoning-start', id: 'r' },
                { type: 'reasoning-delta', id: 'r', delta: 'NOT THE ANSWER' },
                { type: 'reasoning-end', id: 'r' },
                { type: 'text-start', id: 't' },
                ...PIECES.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
                { type: 'text-end', id: 't' },
                {
                  type: 'finish',
                  finishReason: { unified: 'stop', raw: 'stop' },
                  usage: {
                    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
                    outputTokens: { total: 6, text: 6, reasoning: undefined },
                  },
                },
              ],
            }),
          },
        }),
        prompt: 'q',
      });

    it('toUIMessageStreamResponse (UI message stream, SSE)', async () => {
      const result = await readWithClient((res) => serveResponse(mockStream().toUIMessageStreamResponse(), res));
      assert.equal(result.format, 'sse');
      assert.equal(result.text, ANSWER);
    });

    it('toTextStreamResponse (plain text)', async () => {
      const result = await readWithClient((res) => serveResponse(mockStream().toTextStreamResponse(), res));
      assert.equal(result.format, 'text');
      assert.equal(result.text, ANSWER);
    });
  });

  describe('hono streamSSE', () => {
    const serveHono = (write: (stream: Parameters<Parameters<typeof streamSSE>[1]>[0]) => Promise<void>) => async (res: http.ServerResponse) => {
      const app = new Hono();
      app.post('*', (c) => streamSSE(c, write));
      await serveResponse(await app.request('/api/applications/app/query', { method: 'POST' }), res);
    };

    it('plain text data events, multi-line data included', async () => {
      const result = await readWithClient(
        serveHono(async (stream) => {
          for (const piece of PIECES) await stream.writeSSE({ data: piece });
        }),
      );
      assert.equal(result.format, 'sse');
      assert.equal(result.text, ANSWER);
    });

    it('OpenAI-style chat completion chunks ending with [DONE]', async () => {
      const result = await readWithClient(
        serveHono(async (stream) => {
          for (const piece of PIECES) await stream.writeSSE({ data: JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }) });
          await stream.writeSSE({ data: '[DONE]' });
          await stream.writeSSE({ data: JSON.stringify({ choices: [{ delta: { content: 'AFTER DONE' } }] }) });
        }),
      );
      assert.equal(result.text, ANSWER);
    });
  });
});
