import * as assert from 'node:assert/strict';
import { parseMarkdown, renderTokens } from '../../../../src/webview/render/parse';
import { longShapes } from '../../../support/shapes';

/** A long paragraph's chunks as a one-shot render cuts them: each chunk's text. */
function chunksOf(answer: string): string[] {
  const tokens = parseMarkdown(answer, {});
  return tokens.flatMap((token, i) => (token.type === 'inline' && tokens[i - 1]?.type === 'aq_text_chunk_open' ? [token.content] : []));
}

/** 120 KiB of one paragraph that uses a reference now and then, and cites sources as `[n]` that nothing defines. */
function citing(seed: number): string {
  return longShapes(120 * 1024, seed)
    .paragraph.split('\n\n')[0]
    .split(' ')
    .map((word, i) => (i % 97 === 40 ? `${word} [the docs][ref] [${i % 7}]` : word))
    .join(' ');
}

const DEFINITION = '[ref]: https://example.com/docs';

describe('long paragraphs in chunks (webview/render/parse.ts)', () => {
  it('cuts the same chunks whether a reference is defined before the paragraph, after it, or not at all', () => {
    for (const seed of [3, 4]) {
      const paragraph = citing(seed);
      const before = chunksOf(`${DEFINITION}\n\n${paragraph}\n`);
      const after = chunksOf(`${paragraph}\n\n${DEFINITION}\n`);
      const never = chunksOf(`${paragraph}\n`);
      // Uses of a reference and bracketed citations are every ~600 characters: chunks still end every ~8 KiB.
      assert.ok(before.length >= 12, `the paragraph is in chunks (${before.length})`);
      assert.deepEqual(after, before);
      assert.deepEqual(never, before);
    }
  });

  it('ends chunks where a sentence starts, so that a link or an emphasis across words is not what decides the cut', () => {
    const paragraph = longShapes(256 * 1024, 7).paragraph.split('\n\n')[0].trim();
    const chunks = chunksOf(`${paragraph}\n`);
    assert.ok(chunks.length >= 28, `the paragraph is in chunks (${chunks.length})`);
    for (const [i, chunk] of chunks.slice(0, -1).entries()) {
      // A chunk that something left open at its first try would have doubled to 16 KiB.
      assert.ok(chunk.length >= 8192 && chunk.length < 8192 + 1024, `chunk ${i} is ${chunk.length} long`);
      assert.match(chunk, /[.!?] $/, `chunk ${i} ends a sentence: …${JSON.stringify(chunk.slice(-40))}`);
    }
    assert.ok(chunks.join('') === paragraph, 'the chunks hold the whole paragraph');
  });

  it('ends chunks at a word when no sentence starts near the chunk length', () => {
    const words = Array.from({ length: 6000 }, (_, i) => (i % 9 === 4 ? `[some words ${i}](https://example.com/${i})` : `word${i}`)).join(' ');
    const chunks = chunksOf(`${words}\n`);
    assert.ok(chunks.length >= 5, `the paragraph is in chunks (${chunks.length})`);
    for (const [i, chunk] of chunks.slice(0, -1).entries()) {
      assert.ok(chunk.length >= 8192 && chunk.length < 3 * 8192, `chunk ${i} is ${chunk.length} long`);
      assert.ok(chunk.endsWith(' ') && !chunks[i + 1].startsWith(' '), `chunk ${i} ends before a word`);
    }
    assert.ok(chunks.join('') === words, 'the chunks hold the whole paragraph');
  });

  it('each chunk renders alone as it does in the whole paragraph, with the definition after it', () => {
    const paragraph = citing(5);
    const env = {};
    const chunked = renderTokens(parseMarkdown(`${paragraph}\n\n${DEFINITION}\n`, env), env);
    // Quoted, the paragraph is not top-level: it is rendered in one piece.
    const quotedEnv = {};
    const whole = renderTokens(parseMarkdown(`> ${paragraph}\n\n${DEFINITION}\n`, quotedEnv), quotedEnv);
    const inner = (html: string): string => /<p>([\s\S]*)<\/p>/.exec(html)?.[1] ?? '';
    assert.ok(chunked.includes('<span class="aq-text-chunk">'), 'the paragraph is in chunks');
    assert.equal(inner(chunked).replaceAll('<span class="aq-text-chunk">', '').replaceAll('</span>', ''), inner(whole));
    const links = inner(whole).split('href="https://example.com/docs"').length - 1;
    assert.ok(links > 20, `the uses of the reference are links (${links})`);
  });
});
