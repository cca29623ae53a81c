import * as assert from 'node:assert/strict';
import { answerPieces, demoAnswer } from '../../../../service/apps';
import { frameAnswer, type FramedApplicationId } from '../../../../service/framing';
import { startService, type ReferenceService } from '../../../../service/server';
import { decodeUtf8 } from '../../../../src/client/decode';
import { StreamFormatError } from '../../../../src/client/errors';
import {
  detectFormat,
  detectFormatFromHeaders,
  detectStreamShape,
  extractText,
  parseFormat,
  sniffFormat,
  type StreamShape,
  type WireFormat,
} from '../../../../src/client/formats';
import { sendQuery } from '../../../../src/client/queryClient';
import { collect, fromArray } from '../../../support/loopback';

function headers(values: Record<string, string> = {}): { get(name: string): string | null } {
  const lower = new Map(Object.entries(values).map(([key, value]) => [key.toLowerCase(), value]));
  return { get: (name) => lower.get(name.toLowerCase()) ?? null };
}

async function parse(format: WireFormat, chunks: string[], field?: string): Promise<{ text: string; pieces: string[]; error: unknown }> {
  return collect(parseFormat(format, fromArray(chunks), field));
}

/** Every way of cutting `text` in two. */
function everySplit(text: string): string[][] {
  const splits: string[][] = [];
  for (let i = 0; i <= text.length; i++) {
    splits.push([text.slice(0, i), text.slice(i)]);
  }
  return splits;
}

describe('formats', () => {
  describe('SSE', () => {
    const openAi = (content: string): string => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;

    it('reads OpenAI-style events and stops at [DONE]', async () => {
      const stream = `${openAi('Hel')}${openAi('lo')}data: [DONE]\n\n${openAi('IGNORED')}`;
      const { text, error } = await parse('sse', [stream]);
      assert.equal(error, undefined);
      assert.equal(text, 'Hello');
    });

    it('gives the same text for every split of the stream into two chunks', async () => {
      const stream = `: comment\n\nevent: message\ndata: {"text":"a\\nb"}\n\ndata: plain é\n\n${openAi('😀')}`;
      for (const chunks of everySplit(stream)) {
        const { text, error } = await parse('sse', chunks);
        assert.equal(error, undefined);
        assert.equal(text, 'a\nbplain é😀', `split at ${chunks[0].length}`);
      }
    });

    for (const [name, eol] of [
      ['LF', '\n'],
      ['CR', '\r'],
      ['CRLF', '\r\n'],
    ] as const) {
      it(`accepts ${name} line endings, also split between CR and LF`, async () => {
        const stream = `data: one${eol}${eol}: note${eol}data: two${eol}${eol}`;
        for (const chunks of everySplit(stream)) {
          const { text, error } = await parse('sse', chunks);
          assert.equal(error, undefined);
          assert.equal(text, 'onetwo', `split at ${chunks[0].length}`);
        }
      });
    }

    it('joins multi-line data with \\n and strips one space after the colon', async () => {
      const { text } = await parse('sse', ['data: line 1\ndata:line 2\ndata:  indented\n\n']);
      assert.equal(text, 'line 1\nline 2\n indented');
    });

    it('ignores comments, id and retry fields', async () => {
      const { text } = await parse('sse', [': keep-alive\nid: 7\nretry: 1000\ndata: x\n\n:\n\n']);
      assert.equal(text, 'x');
    });

    it('strips a leading byte order mark', async () => {
      const { text } = await parse('sse', ['\uFEFFdata: first\n\n']);
      assert.equal(text, 'first');
    });

    it('delivers an unterminated last event', async () => {
      assert.equal((await parse('sse', ['data: a\n\ndata: tail'])).text, 'atail');
      assert.equal((await parse('sse', ['data: a\n\ndata: tail\n'])).text, 'atail');
      assert.equal((await parse('sse', ['data: a\r\n\r\ndata: tail\r'])).text, 'atail');
    });

    it('takes non-JSON data as text and JSON strings as their value', async () => {
      const { pieces } = await parse('sse', ['data: {not json\n\ndata: "quoted \\u00e9"\n\ndata: 42\n\n']);
      assert.deepEqual(pieces, ['{not json', 'quoted é', '42']);
    });

    it('skips events that carry no text', async () => {
      const stream = [
        'event: ping\ndata: keepalive\n\n',
        'data: {"type":"start","messageId":"m1"}\n\n',
        'data: {"type":"text-start","id":"t"}\n\n',
        'data: {"type":"text-delta","id":"t","delta":"Hi"}\n\n',
        'data: {"type":"reasoning-delta","id":"r","delta":"thinking…"}\n\n',
        'data: {"type":"finish"}\n\n',
        'data: {"choices":[{"delta":{"role":"assistant","content":null}}]}\n\n',
        'data:\n\n',
      ];
      const { text, error } = await parse('sse', stream);
      assert.equal(error, undefined);
      assert.equal(text, 'Hi');
    });

    it('throws the message of an `event: error`, after the text before it', async () => {
      const { text, error } = await parse('sse', ['data: partial\n\n', 'event: error\ndata: {"message":"model overloaded"}\n\n', 'data: never\n\n']);
      assert.equal(text, 'partial');
      assert.ok(error instanceof StreamFormatError);
      assert.equal(error.kind, 'format');
      assert.match(error.message, /model overloaded/);
    });

    it('throws for an `event: error` with plain text data', async () => {
      const { error } = await parse('sse', ['event: error\ndata: quota exceeded\n\n']);
      assert.ok(error instanceof StreamFormatError);
      assert.match(error.message, /quota exceeded/);
    });

    it('throws for a {type:"error"} event (AI SDK)', async () => {
      const { text, error } = await parse('sse', ['data: {"type":"text-delta","delta":"a"}\n\ndata: {"type":"error","errorText":"boom"}\n\n']);
      assert.equal(text, 'a');
      assert.ok(error instanceof StreamFormatError);
      assert.match(error.message, /boom/);
    });

    it('reads the field given by a dotted path', async () => {
      const { text } = await parse('sse', ['data: {"out":{"parts":[{"t":"x"},{"t":"y"}]},"text":"no"}\n\n'], 'out.parts.1.t');
      assert.equal(text, 'y');
    });
  });

  describe('extractText', () => {
    const cases: Array<[string, unknown, string | undefined]> = [
      ['OpenAI chat delta', { choices: [{ delta: { content: 'a' } }] }, 'a'],
      ['OpenAI completion text', { choices: [{ text: 'b' }] }, 'b'],
      ['OpenAI full message', { choices: [{ message: { content: 'c' } }] }, 'c'],
      ['OpenAI role-only delta', { choices: [{ delta: { role: 'assistant' } }] }, undefined],
      ['AI SDK v5 text-delta', { type: 'text-delta', id: '1', delta: 'd' }, 'd'],
      ['AI SDK v4 text-delta', { type: 'text-delta', textDelta: 'e' }, 'e'],
      ['AI SDK reasoning', { type: 'reasoning-delta', delta: 'hmm' }, undefined],
      ['AI SDK finish', { type: 'finish' }, undefined],
      ['Anthropic text delta', { type: 'content_block_delta', delta: { type: 'text_delta', text: 'f' } }, 'f'],
      ['Anthropic thinking delta', { type: 'content_block_delta', delta: { type: 'thinking_delta', thinking: 'x' } }, undefined],
      ['Dify message', { event: 'message', answer: 'g', conversation_id: 'c' }, 'g'],
      ['Dify message_end', { event: 'message_end', metadata: {} }, undefined],
      ['Flowise token', { event: 'token', data: 'h' }, 'h'],
      ['Flowise end', { event: 'end', data: '[DONE]' }, undefined],
      ['Flowise metadata', { event: 'metadata', data: { chatId: 'x' } }, undefined],
      ['Ollama generate', { model: 'm', response: 'i', done: false }, 'i'],
      ['Ollama chat', { model: 'm', message: { role: 'assistant', content: 'j' } }, 'j'],
      ['{text}', { text: 'k' }, 'k'],
      ['{content}', { content: 'l' }, 'l'],
      ['{token} string', { token: 'm' }, 'm'],
      ['{token:{text}} (TGI)', { token: { id: 1, text: 'n', special: false } }, 'n'],
      ['TGI special token', { token: { id: 2, text: '</s>', special: true } }, undefined],
      ['{delta} string', { delta: 'o' }, 'o'],
      ['plain string', 'p', 'p'],
      ['number', 42, undefined],
      ['null', null, undefined],
      ['object without text', { usage: { tokens: 3 } }, undefined],
    ];
    for (const [name, value, expected] of cases) {
      it(name, () => {
        assert.equal(extractText(value), expected);
      });
    }

    it('with a field, reads only that path', () => {
      assert.equal(extractText({ choices: [{ delta: { content: 'x' } }] }, 'choices.0.delta.content'), 'x');
      assert.equal(extractText({ a: { b: 'y' }, text: 'no' }, 'a.b'), 'y');
      assert.equal(extractText({ text: 'no' }, 'a.b'), undefined);
      assert.equal(extractText({ a: { b: 3 } }, 'a.b'), undefined);
      assert.equal(extractText({ list: ['z'] }, 'list.0'), 'z');
      assert.equal(extractText({}, 'constructor'), undefined);
    });
  });

  describe('NDJSON', () => {
    it('reads lines with CRLF and blank lines', async () => {
      const { text, error } = await parse('ndjson', ['{"response":"a"}\r\n\r\n{"response":"b"}\n\n\n{"response":"c","done":true}\r\n']);
      assert.equal(error, undefined);
      assert.equal(text, 'abc');
    });

    it('gives the same text for every split of the stream into two chunks', async () => {
      const stream = '{"message":{"content":"é"}}\r\n{"message":{"content":"😀"}}\n{"done":true}\n';
      for (const chunks of everySplit(stream)) {
        const { text, error } = await parse('ndjson', chunks);
        assert.equal(error, undefined);
        assert.equal(text, 'é😀', `split at ${chunks[0].length}`);
      }
    });

    it('reads a line spread over many chunks', async () => {
      const line = '{"text":"a long line of text"}\n';
      const { text } = await parse('ndjson', Array.from(line));
      assert.equal(text, 'a long line of text');
    });

    it('parses a final unterminated line', async () => {
      assert.equal((await parse('ndjson', ['{"text":"a"}\n{"text":"b"}'])).text, 'ab');
    });

    it('names the bad line and keeps the text before it', async () => {
      const { text, error } = await parse('ndjson', ['{"text":"one"}\n\n', '{"text":"two"}\n{"text": bad}\n{"text":"after"}\n']);
      assert.equal(text, 'onetwo');
      assert.ok(error instanceof StreamFormatError);
      assert.equal(error.line, 4);
      assert.match(error.message, /line 4 is not valid JSON/);
    });

    it('reports a bad first line as line 1', async () => {
      const { error } = await parse('ndjson', ['not json\n{"text":"x"}\n']);
      assert.ok(error instanceof StreamFormatError);
      assert.equal(error.line, 1);
    });

    it('accepts one pretty-printed JSON document', async () => {
      const { text, error } = await parse('ndjson', ['{\n  "answer": "whole ', 'answer"\n}\n']);
      assert.equal(error, undefined);
      assert.equal(text, 'whole answer');
    });

    it('accepts JSON text sequences (RFC 7464 record separators)', async () => {
      assert.equal((await parse('ndjson', ['\u001e{"text":"a"}\n\u001e{"text":"b"}\n'])).text, 'ab');
    });

    it('throws an error object in the stream', async () => {
      const { text, error } = await parse('ndjson', ['{"response":"a"}\n{"error":"model not found"}\n']);
      assert.equal(text, 'a');
      assert.ok(error instanceof StreamFormatError);
      assert.match(error.message, /model not found/);
    });
  });

  describe('AI SDK data stream', () => {
    it('reads 0: text parts and skips the others', async () => {
      const stream = 'f:{"messageId":"m"}\n0:"Hel"\n0:"lo \\"q\\"\\n"\n8:[{"a":1}]\ne:{"finishReason":"stop"}\nd:{"finishReason":"stop"}\n';
      for (const chunks of everySplit(stream)) {
        const { text, error } = await parse('vercel-data', chunks);
        assert.equal(error, undefined);
        assert.equal(text, 'Hello "q"\n');
      }
    });

    it('throws a 3: error part after the text before it', async () => {
      const { text, error } = await parse('vercel-data', ['0:"partial"\n3:"rate limited"\n0:"never"\n']);
      assert.equal(text, 'partial');
      assert.ok(error instanceof StreamFormatError);
      assert.match(error.message, /rate limited/);
    });
  });

  it('passes text through unchanged', async () => {
    const { pieces } = await parse('text', ['data: not parsed\n', '{"text":"x"}']);
    assert.deepEqual(pieces, ['data: not parsed\n', '{"text":"x"}']);
  });

  describe('detection', () => {
    it('follows the content type', () => {
      assert.equal(detectFormat('text/event-stream; charset=utf-8', headers(), 'whatever'), 'sse');
      assert.equal(detectFormat('application/x-ndjson', headers(), 'x'), 'ndjson');
      assert.equal(detectFormat('application/jsonl', headers(), 'x'), 'ndjson');
      assert.equal(detectFormat('application/json-seq', headers(), 'x'), 'ndjson');
      assert.equal(detectFormat('Text/Plain; charset=UTF-8', headers(), 'data: looks like sse'), 'text');
    });

    it('follows the AI SDK marker headers over the content type', () => {
      assert.equal(detectFormat('text/plain; charset=utf-8', headers({ 'X-Vercel-AI-Data-Stream': 'v1' }), '0:"a"'), 'vercel-data');
      assert.equal(detectFormat('text/event-stream', headers({ 'x-vercel-ai-ui-message-stream': 'v1' }), ''), 'sse');
    });

    it('sniffs the first text when the content type does not say', () => {
      assert.equal(detectFormat(null, headers(), 'data: {"a":1}\n\n'), 'sse');
      assert.equal(detectFormat('application/octet-stream', headers(), 'event: token\n'), 'sse');
      assert.equal(detectFormat('', headers(), ': comment\n'), 'sse');
      assert.equal(detectFormat(null, headers(), '0:"Hello"\n'), 'vercel-data');
      assert.equal(detectFormat(null, headers(), 'f:{"messageId":"x"}\n0:"a"'), 'vercel-data');
      assert.equal(detectFormat('application/json', headers(), '{"response":"a"}\n{"response":"b"}\n'), 'ndjson');
      assert.equal(detectFormat('application/json', headers(), '{\n  "answer": "a"\n}'), 'ndjson');
      assert.equal(detectFormat(null, headers(), 'Hello, world'), 'text');
      assert.equal(detectFormat(null, headers(), '1: First point\n2: second'), 'text');
      assert.equal(detectFormat(null, headers(), '{curly} text\n'), 'text');
      assert.equal(detectFormat(null, headers(), ''), 'text');
    });

    it('asks for more text while the first text is ambiguous', () => {
      assert.equal(sniffFormat('da', false), undefined);
      assert.equal(sniffFormat('da', true), 'text');
      assert.equal(sniffFormat('{"text":"a', false), undefined);
      assert.equal(sniffFormat('0', false), undefined);
      assert.equal(sniffFormat('H', false), 'text');
      assert.equal(sniffFormat('   ', false), undefined);
    });

    it('leaves the decision to sniffing for unknown types', () => {
      assert.equal(detectFormatFromHeaders('application/json', headers()), undefined);
      assert.equal(detectFormatFromHeaders(null, headers()), undefined);
    });
  });

  describe('the shapes of hosted LLM platforms', () => {
    const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const anthropicDelta = (text: string): string =>
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    const anthropic = [
      sse('message_start', { type: 'message_start', message: { id: 'm', role: 'assistant', content: [], usage: { input_tokens: 1 } } }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse('ping', { type: 'ping' }),
      anthropicDelta('Grüße '),
      anthropicDelta('日本 '),
      sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } }),
      anthropicDelta('🚀'),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }),
      sse('message_stop', { type: 'message_stop' }),
    ].join('');

    /** Parses `stream` from its UTF-8 bytes cut in two at every byte (so also inside characters). */
    async function everyByteSplit(stream: string, expected: string): Promise<void> {
      const bytes = Buffer.from(stream, 'utf8');
      for (let i = 0; i <= bytes.length; i++) {
        const text = decodeUtf8(fromArray([bytes.subarray(0, i), bytes.subarray(i)]));
        const { text: got, error } = await collect(parseFormat('sse', text));
        assert.equal(error, undefined, `split at byte ${i}`);
        assert.equal(got, expected, `split at byte ${i}`);
      }
    }

    it('Anthropic Messages: only text deltas, for every split of the bytes (mid-line, mid-character)', async () => {
      await everyByteSplit(anthropic, 'Grüße 日本 🚀');
    });

    it('Anthropic Messages: an error event ends the answer with its message and type', async () => {
      const stream = anthropicDelta('partial') + sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) + anthropicDelta('never');
      const { text, error } = await parse('sse', [stream]);
      assert.equal(text, 'partial');
      assert.ok(error instanceof StreamFormatError);
      assert.match(error.message, /Overloaded \(overloaded_error\)/);
    });

    const responsesEvent = (type: string, fields: Record<string, unknown> = {}): string => sse(type, { type, ...fields });
    const responses = [
      responsesEvent('response.created', { response: { id: 'r', status: 'in_progress', output: [] } }),
      responsesEvent('response.output_item.added', { item: { type: 'message', content: [] } }),
      responsesEvent('response.content_part.added', { part: { type: 'output_text', text: '' } }),
      responsesEvent('response.output_text.delta', { delta: 'ça ' }),
      responsesEvent('response.function_call_arguments.delta', { delta: '{"city":' }),
      responsesEvent('response.reasoning_summary_text.delta', { delta: 'thinking' }),
      responsesEvent('response.output_text.delta', { delta: 'marche ✓' }),
      responsesEvent('response.output_text.done', { text: 'ça marche ✓' }),
      responsesEvent('response.content_part.done', { part: { type: 'output_text', text: 'ça marche ✓' } }),
      responsesEvent('response.output_item.done', { item: { type: 'message', content: [{ type: 'output_text', text: 'ça marche ✓' }] } }),
      responsesEvent('response.completed', { response: { id: 'r', status: 'completed', output: [] } }),
    ].join('');

    it('OpenAI Responses: output_text deltas only (never the repeated …done text), for every split of the bytes', async () => {
      await everyByteSplit(responses, 'ça marche ✓');
    });

    it('OpenAI Responses: response.completed ends the answer', async () => {
      const { text, error } = await parse('sse', [responses, 'data: after the end\n\n']);
      assert.equal(error, undefined);
      assert.equal(text, 'ça marche ✓');
    });

    it('OpenAI Responses: response.failed and error events end with their message', async () => {
      const failed = await parse('sse', [
        responsesEvent('response.output_text.delta', { delta: 'half' }),
        responsesEvent('response.failed', { response: { status: 'failed', error: { code: 'server_error', message: 'The model crashed' } } }),
      ]);
      assert.equal(failed.text, 'half');
      assert.ok(failed.error instanceof StreamFormatError);
      assert.match(failed.error.message, /The model crashed \(server_error\)/);
      const bare = await parse('sse', [responsesEvent('response.failed', { response: { status: 'failed' } })]);
      assert.ok(bare.error instanceof StreamFormatError);
      assert.match(bare.error.message, /response failed/);
      const error = await parse('sse', [responsesEvent('error', { code: 'rate_limit_exceeded', message: 'Slow down', param: null })]);
      assert.ok(error.error instanceof StreamFormatError);
      assert.match(error.error.message, /Slow down/);
    });

    const langEvent = (event: string, data: unknown): string => sse('data', { event, data, name: 'x', run_id: 'r', tags: [], metadata: {} });
    const langserve = [
      'event: metadata\ndata: {"run_id":"r"}\n\n',
      langEvent('on_chain_start', { input: { q: 'x' } }),
      langEvent('on_chat_model_stream', { chunk: { content: 'Hola ', type: 'AIMessageChunk', tool_call_chunks: [] } }),
      langEvent('on_parser_stream', { chunk: 'Hola ' }),
      langEvent('on_chain_stream', { chunk: 'Hola ' }),
      langEvent('on_chat_model_stream', {
        chunk: { content: [{ type: 'text', text: 'ñandú ', index: 0 }, { type: 'tool_use', id: 't', name: 'f', input: {} }, { type: 'text', text: '🦤' }] },
      }),
      langEvent('on_chat_model_stream', { chunk: { content: [{ type: 'input_json_delta', partial_json: '{' }] } }),
      langEvent('on_chat_model_stream', { chunk: { content: '' } }),
      langEvent('on_chat_model_end', { output: { content: 'Hola ñandú 🦤' } }),
      langEvent('on_chain_end', { output: 'Hola ñandú 🦤' }),
      'event: end\n\n',
    ].join('');

    it('LangChain stream events: on_chat_model_stream content as a string or text parts, for every split of the bytes', async () => {
      await everyByteSplit(langserve, 'Hola ñandú 🦤');
    });

    it('LangServe /stream: message chunks and plain string outputs', async () => {
      const chunks = 'event: metadata\ndata: {"run_id":"r"}\n\n' +
        sse('data', { content: 'a', type: 'AIMessageChunk', tool_calls: [], additional_kwargs: {} }) +
        sse('data', { content: [{ type: 'text', text: 'b' }], type: 'AIMessageChunk' }) +
        sse('data', 'c') +
        'event: end\n\n';
      const { text, error } = await parse('sse', [chunks]);
      assert.equal(error, undefined);
      assert.equal(text, 'abc');
    });

    it('LangServe: an error event ends the answer with its message', async () => {
      const { error } = await parse('sse', ['event: error\ndata: {"status_code":500,"message":"Internal Server Error"}\n\n']);
      assert.ok(error instanceof StreamFormatError);
      assert.match(error.message, /Internal Server Error/);
    });

    it('extractText on single events of these shapes', () => {
      assert.equal(extractText({ type: 'response.output_text.done', text: 'all' }), undefined);
      assert.equal(extractText({ type: 'response.function_call_arguments.delta', delta: '{' }), undefined);
      assert.equal(extractText({ type: 'AIMessageChunk', content: 'x', tool_calls: [] }), 'x');
      assert.equal(extractText({ event: 'on_llm_stream', data: { chunk: { text: 'y' } } }), 'y');
      assert.equal(extractText({ event: 'on_llm_stream', data: { chunk: 'z' } }), 'z');
      assert.equal(extractText({ event: 'on_chain_stream', data: { chunk: 'dup' } }), undefined);
      assert.equal(extractText({ event: 'on_chat_model_stream', data: { chunk: { content: [{ type: 'thinking', thinking: 'hm' }] } } }), undefined);
    });

    it('detects the shape from the first events', () => {
      const cases: Array<[WireFormat, string, StreamShape | undefined]> = [
        ['sse', anthropic, 'anthropic'],
        ['sse', responses, 'openai-responses'],
        ['sse', langserve, 'langserve-events'],
        ['sse', 'event: metadata\ndata: {"run_id":"r"}\n\nevent: data\ndata: "a"\n\n', 'langserve'],
        ['sse', 'event: metadata\ndata: {"run_id":"r"}\n\n', 'langserve'],
        ['sse', '\uFEFFdata: {"choices":[{"delta":{"content":"a"}}]}\n\n', 'openai-chat'],
        ['sse', 'data: {"type":"start"}\n\ndata: {"type":"text-delta","delta":"a"}\n\n', 'ai-sdk'],
        ['sse', 'event: ping\n\ndata: {"event":"message","answer":"a"}\n\n', 'dify'],
        ['sse', 'message:\ndata:{"event":"start","data":""}\n\nmessage:\ndata:{"event":"token","data":"a"}\n\n', 'flowise'],
        ['sse', 'data: {"output":{"value":"a"}}\n\n', undefined],
        ['sse', 'data: {"choices":[{"delta":{"content":"a"', undefined],
        ['ndjson', '{"model":"m","response":"a","done":false}\n', 'ollama'],
        ['ndjson', '{"token":{"id":1,"text":"a","special":false}}\n', 'tgi'],
        ['vercel-data', '0:"a"\n', 'ai-sdk'],
        ['text', 'data: {"choices":[]}\n\n', undefined],
      ];
      for (const [format, first, shape] of cases) {
        assert.equal(detectStreamShape(format, first), shape, first);
      }
    });
  });

  describe('through the query client, from the reference service', function () {
    this.timeout(30_000);
    const SEED = 'formats-seed';
    const body = { query: 'Explain: const s = "ü → 日本 🚀";' };
    let service: ReferenceService;

    before(async () => {
      service = await startService({ quiet: true, paceMs: 0, seed: SEED });
    });
    after(async () => {
      await service?.close();
    });

    async function run(applicationId: string, responseField?: string): Promise<{ text: string; raw: string; format: WireFormat; textless: boolean; warnings: string[] }> {
      let raw = '';
      const response = await sendQuery({
        baseUrl: service.url,
        applicationId,
        apiKey: service.keyFor(applicationId),
        body,
        responseField,
        onRaw: (piece) => (raw += piece),
      });
      const { text, error } = await collect(response.text);
      assert.equal(error, undefined);
      return { text, raw, format: response.format, textless: response.noTextExtracted(), warnings: response.warnings };
    }

    const shapes: Array<[FramedApplicationId, StreamShape]> = [
      ['sse-anthropic', 'anthropic'],
      ['sse-openai-responses', 'openai-responses'],
      ['sse-langserve', 'langserve-events'],
      ['sse-langserve-stream', 'langserve'],
    ];
    for (const [id, shape] of shapes) {
      it(`${id}: the whole demo answer, once, detected as ${shape}`, async () => {
        const result = await run(id);
        assert.equal(result.format, 'sse');
        assert.equal(result.text, demoAnswer(body));
        assert.equal(result.textless, false);
        assert.deepEqual(result.warnings, []);
        assert.equal(detectStreamShape(result.format, result.raw), shape);
        // The service's frames, joined, are exactly what came over the wire.
        assert.equal(result.raw, frameAnswer(id, answerPieces(body, SEED)).frames.join(''));
      });
    }

    it('sse-custom-field: bytes but no text is flagged, and responseField reads it', async () => {
      const blind = await run('sse-custom-field');
      assert.equal(blind.text, '');
      assert.ok(blind.raw.length > 0);
      assert.equal(blind.textless, true);
      assert.match(blind.warnings.join(' '), /no answer text was found/);
      const fixed = await run('sse-custom-field', 'output.value');
      assert.equal(fixed.text, demoAnswer(body));
      assert.equal(fixed.textless, false);
    });

    it('plain text is never flagged as textless', async () => {
      const result = await run('demo-assistant');
      assert.equal(result.format, 'text');
      assert.equal(result.textless, false);
    });
  });
});
