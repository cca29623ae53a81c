import * as assert from 'node:assert/strict';
import { StreamFormatError } from '../../../src/core/errors';
import { detectFormat, detectFormatFromHeaders, extractText, parseFormat, sniffFormat, type WireFormat } from '../../../src/core/formats';
import { collect, fromArray } from '../helpers/loopback';

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
});
