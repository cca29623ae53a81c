import * as assert from 'node:assert/strict';
import { CUT_CHARACTER_WARNING, decodeUtf8, Utf8StreamDecoder } from '../../../src/client/decode';
import { collect, fromArray } from '../../support/loopback';

const encoder = new TextEncoder();
// 1-, 2-, 3- and 4-byte characters, including a surrogate pair and a combining mark.
const SAMPLE = 'a é € 𝄞 😀 e\u0301 中文 — end';

async function decodeAll(chunks: Uint8Array[]): Promise<{ text: string; pieces: string[]; warnings: string[] }> {
  const warnings: string[] = [];
  const { text, pieces, error } = await collect(decodeUtf8(fromArray(chunks), (message) => warnings.push(message)));
  assert.equal(error, undefined);
  return { text, pieces, warnings };
}

describe('decodeUtf8', () => {
  it('decodes a split at every byte position exactly', async () => {
    const bytes = encoder.encode(SAMPLE);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const { text, warnings } = await decodeAll([bytes.slice(0, cut), bytes.slice(cut)]);
      assert.equal(text, SAMPLE, `split at byte ${cut}`);
      assert.deepEqual(warnings, []);
    }
  });

  it('decodes every pair of split positions (three chunks) exactly', async () => {
    const bytes = encoder.encode('€😀é');
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) {
        const { text } = await decodeAll([bytes.slice(0, a), bytes.slice(a, b), bytes.slice(b)]);
        assert.equal(text, '€😀é', `splits at ${a} and ${b}`);
      }
    }
  });

  it('decodes one-byte chunks of multibyte text, yielding no empty or broken pieces', async () => {
    const bytes = encoder.encode(SAMPLE);
    const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
    const { text, pieces, warnings } = await decodeAll(chunks);
    assert.equal(text, SAMPLE);
    assert.deepEqual(warnings, []);
    for (const piece of pieces) {
      assert.notEqual(piece, '');
      assert.ok(!piece.includes('\uFFFD'), `piece ${JSON.stringify(piece)} holds a replacement character`);
      // No piece may end in a lone high surrogate (half of an emoji).
      const last = piece.charCodeAt(piece.length - 1);
      assert.ok(!(last >= 0xd800 && last <= 0xdbff), 'a piece ends with half a surrogate pair');
    }
  });

  it('keeps a 4-byte emoji whole when its bytes arrive one by one', async () => {
    const bytes = encoder.encode('😀');
    assert.equal(bytes.length, 4);
    const { pieces } = await decodeAll(Array.from(bytes, (byte) => Uint8Array.of(byte)));
    assert.deepEqual(pieces, ['😀']);
  });

  it('flushes at the end without a warning when the last character is complete', async () => {
    const { text, warnings } = await decodeAll([encoder.encode('abc€')]);
    assert.equal(text, 'abc€');
    assert.deepEqual(warnings, []);
  });

  it('turns a character cut at the end into one U+FFFD and warns', async () => {
    const bytes = encoder.encode('ok 😀');
    const { text, warnings } = await decodeAll([bytes.slice(0, bytes.length - 2)]);
    assert.equal(text, 'ok \uFFFD');
    assert.deepEqual(warnings, [CUT_CHARACTER_WARNING]);
    assert.match(warnings[0], /^The answer ended in the middle of a character/);
  });

  it('does not warn for a U+FFFD the text really contains', async () => {
    const { text, warnings } = await decodeAll([encoder.encode('a\uFFFDb')]);
    assert.equal(text, 'a\uFFFDb');
    assert.deepEqual(warnings, []);
  });

  it('replaces invalid bytes in the middle instead of failing', async () => {
    const { text } = await decodeAll([Uint8Array.of(0x61, 0xff, 0x62)]);
    assert.equal(text, 'a\uFFFDb');
  });

  it('skips empty chunks and yields nothing for an empty stream', async () => {
    assert.deepEqual((await decodeAll([])).pieces, []);
    assert.deepEqual((await decodeAll([new Uint8Array(0), encoder.encode('x'), new Uint8Array(0)])).pieces, ['x']);
  });

  it('Utf8StreamDecoder reports a cut only for an incomplete tail', () => {
    const decoder = new Utf8StreamDecoder();
    assert.equal(decoder.push(Uint8Array.of(0xe2, 0x82)), '');
    assert.deepEqual(decoder.end(), { text: '\uFFFD', cut: true });
    const clean = new Utf8StreamDecoder();
    assert.equal(clean.push(encoder.encode('x')), 'x');
    assert.deepEqual(clean.end(), { text: '', cut: false });
  });
});
