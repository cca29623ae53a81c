import * as assert from 'node:assert/strict';
import { HeldText, HOLD_AT, HOLD_KEEP, PIECE_MAX, type HeldPiece } from '../../../../src/shared/answer/heldText';
import { createMarkdown, GROUP_SIZE } from '../../../../src/shared/answer/blocks';
import { longShapes } from '../../../support/shapes';

const md = createMarkdown();

/** The top-level blocks of `text` as a one-shot parse sees them (every one is an element of the answer). */
function topLevelBlocks(text: string): number {
  return md.parse(text, {}).filter((token) => token.level === 0 && token.nesting !== -1).length;
}

/** Puts the pieces back together: text as sent, held groups as the host gives them out. */
function reassemble(held: HeldText, pieces: readonly HeldPiece[]): { text: string; groups: number } {
  let text = '';
  let groups = 0;
  for (const piece of pieces) {
    if ('text' in piece) {
      text += piece.text;
    } else {
      for (const group of piece.groups) {
        const source = held.text(group.id);
        assert.ok(source !== undefined, `held group ${group.id} has its text`);
        assert.equal(group.length, source.length);
        assert.equal(group.bytes, Buffer.byteLength(source));
        text += source;
        groups++;
      }
    }
  }
  return { text, groups };
}

describe('HeldText (the text a webview is passed of a fast answer)', () => {
  it('passes an answer that streams at a readable pace on as text, all of it, holding nothing', () => {
    const answer = longShapes(600 * 1024, 3).blocks;
    const held = new HeldText();
    const pieces: HeldPiece[] = [];
    for (let at = 0; at < answer.length; at += 16 * 1024) {
      pieces.push(...held.pass(answer.slice(at, at + 16 * 1024)));
    }
    assert.ok(pieces.every((piece) => 'text' in piece));
    assert.equal(held.heldCount, 0);
    assert.equal(reassemble(held, pieces).text, answer);
  });

  it('holds whole groups of top-level blocks of a backlog, cut where a one-shot render starts a group, and passes the newest text on', () => {
    // Headings, paragraphs, lists, code, tables and quotes, and now and then a link reference
    // definition (it renders nothing); two megabytes at once after a first part.
    const answer = longShapes(2 * 1024 * 1024, 5)
      .blocks.split('\n\n')
      .map((block, i) => (i % 97 === 50 ? `${block}\n\n[label ${i}]: https://example.com/${i}` : block))
      .join('\n\n');
    const held = new HeldText();
    const pieces = [...held.pass(answer.slice(0, 40_000)), ...held.pass(answer.slice(40_000))];
    const { text, groups } = reassemble(held, pieces);
    assert.equal(text, answer, 'nothing is lost or reordered');
    assert.ok(groups > 100, `most of the backlog is held: ${groups} groups`);
    // Some groups, each against a whole parse of all the text before it.
    const checked = new Set([0, 1, Math.floor(groups / 3), Math.floor(groups / 2), groups - 1]);
    let before = '';
    for (const piece of pieces) {
      if ('text' in piece) {
        before += piece.text;
        continue;
      }
      for (const group of piece.groups) {
        const source = held.text(group.id) ?? '';
        if (checked.has(group.id)) {
          const index = topLevelBlocks(before);
          assert.ok(index >= GROUP_SIZE && (index - GROUP_SIZE) % GROUP_SIZE === 0, `group ${group.id} starts where a group starts (block ${index})`);
          assert.equal(topLevelBlocks(before + source), index + GROUP_SIZE, `group ${group.id} is ${GROUP_SIZE} blocks`);
        }
        before += source;
      }
    }
    const lastPiece = pieces[pieces.length - 1];
    assert.ok('text' in lastPiece && lastPiece.text.length >= HOLD_KEEP, 'the newest text goes over as text');
  });

  it('tells the definitions a held group makes, and normalizes line breaks across pieces', () => {
    const blocks = Array.from({ length: 4000 }, (_, i) => (i === 2500 ? '[spec]: https://example.com/spec "Spec"' : `Paragraph ${i} with some words in it, more than a few.`));
    const answer = blocks.join('\r\n\r\n') + '\r\n';
    const held = new HeldText();
    // The first piece ends between CR and LF.
    const cut = answer.indexOf('\n', 1000);
    const pieces = [...held.pass(answer.slice(0, cut)), ...held.pass(answer.slice(cut))];
    const { text } = reassemble(held, pieces);
    assert.equal(text, answer.replace(/\r\n/g, '\n'));
    const groups = pieces.flatMap((piece) => ('groups' in piece ? piece.groups : []));
    const defining = groups.filter((group) => Object.keys(group.references).length > 0);
    assert.equal(defining.length, 1);
    assert.deepEqual(defining[0].references, { SPEC: { href: 'https://example.com/spec', title: 'Spec' } });
    assert.ok((held.text(defining[0].id) ?? '').includes('[spec]: https://example.com/spec'));
  });

  it('counts the text a whole state already carried: held groups after it still start where groups start', () => {
    const answer = longShapes(1024 * 1024, 7).blocks;
    const sent = answer.slice(0, answer.indexOf('\n\n', 100_000) + 2);
    const held = new HeldText(sent);
    const pieces = held.pass(answer.slice(sent.length));
    const { text, groups } = reassemble(held, pieces);
    assert.equal(sent + text, answer);
    assert.ok(groups > 10);
    const first = pieces.findIndex((piece) => 'groups' in piece);
    const before = sent + pieces.slice(0, first).map((piece) => ('text' in piece ? piece.text : '')).join('');
    const index = topLevelBlocks(before);
    assert.ok(index >= GROUP_SIZE && (index - GROUP_SIZE) % GROUP_SIZE === 0, `block ${index}`);
  });

  it('holds nothing of one block longer than the backlog (a single code block): there is no group to cut', () => {
    const code = '```ts\n' + 'const value = compute(1, 2, 3);\n'.repeat(30_000) + '```\n';
    const held = new HeldText();
    const pieces = held.pass(code);
    assert.ok(code.length > HOLD_AT);
    assert.equal(held.heldCount, 0);
    assert.equal(reassemble(held, pieces).text, code);
  });

  it('a long code block streamed in batches of more than HOLD_AT goes over as text, all of it, and the answer after it is held again', () => {
    // About 640 KiB of code, then 1 MiB of headings, paragraphs, lists, tables and quotes; 48 KiB a
    // batch throughout (a busy extension host's flushes), so that each batch is more than HOLD_AT.
    const code = '```ts\n' + 'const value = compute(1, 2, 3);\n'.repeat(20_000) + '```\n\n';
    const answer = code + longShapes(1024 * 1024, 4).blocks;
    const batch = 48 * 1024;
    assert.ok(batch > HOLD_AT);
    const held = new HeldText();
    const pieces: HeldPiece[] = [];
    let at = 0;
    for (; at + batch <= code.length; at += batch) pieces.push(...held.pass(answer.slice(at, at + batch)));
    assert.equal(held.heldCount, 0, 'nothing of the open block is held');
    assert.equal(reassemble(held, pieces).text, answer.slice(0, at), 'the block so far went over as text');
    for (; at < answer.length; at += batch) pieces.push(...held.pass(answer.slice(at, at + batch)));
    assert.equal(reassemble(held, pieces).text, answer, 'nothing is lost or reordered');
    const text = pieces.reduce((sum, piece) => sum + ('text' in piece ? piece.text.length : 0), 0);
    assert.ok(held.heldCount > 20, `the answer after the block is held again: ${held.heldCount} groups`);
    assert.ok(text < code.length + 512 * 1024, `most of what follows the block is held: ${text - code.length} characters after it went over as text`);
  });

  it('holds a backlog passed in slices with more to follow as one pass would: every whole group, none of it as text, the newest text at the end', () => {
    const answer = longShapes(2 * 1024 * 1024, 9).blocks;
    const start = 40_000;
    const slice = 256 * 1024;
    // The whole backlog at once.
    const whole = new HeldText();
    const wholePieces = [...whole.pass(answer.slice(0, start)), ...whole.pass(answer.slice(start))];
    // The same backlog a slice at a time, each with more to follow but the last.
    const sliced = new HeldText();
    const first = sliced.pass(answer.slice(0, start));
    const middle: HeldPiece[] = [];
    let at = start;
    for (; answer.length - at > slice; at += slice) middle.push(...sliced.pass(answer.slice(at, at + slice), true));
    const last = sliced.pass(answer.slice(at));
    const pieces = [...first, ...middle, ...last];
    assert.equal(reassemble(sliced, pieces).text, answer, 'nothing is lost or reordered');
    const texts = (held: HeldText): string[] => Array.from({ length: held.heldCount }, (_, id) => held.text(id) ?? '');
    assert.ok(sliced.heldCount > 100, `${sliced.heldCount} groups held`);
    assert.deepEqual(texts(sliced), texts(whole), 'the same groups are held as in one pass');
    // A group that runs on past a slice's end is held whole by the next: once groups are held, no
    // text goes over until the last slice.
    const firstHeld = middle.findIndex((piece) => 'groups' in piece);
    const textAfter = middle.slice(firstHeld).filter((piece) => 'text' in piece);
    assert.deepEqual(textAfter, [], 'no text between the held groups of the slices');
    assert.ok(wholePieces.length > 0 && 'text' in last[last.length - 1] && (last[last.length - 1] as { text: string }).text.length >= HOLD_KEEP, 'the newest text goes over as text');
  });

  it('passes long text on in pieces of at most PIECE_MAX, never cutting a surrogate pair', () => {
    // An emoji straddles the first cut: its two halves would land in two messages.
    const text = 'a'.repeat(PIECE_MAX - 1) + '🚀' + 'b'.repeat(100_000) + '\n';
    const pieces = new HeldText().pass(text);
    const texts = pieces.map((piece) => ('text' in piece ? piece.text : ''));
    assert.ok(texts.length >= 3, `${texts.length} pieces`);
    assert.ok(texts.every((piece) => piece.length > 0 && piece.length <= PIECE_MAX));
    assert.ok(texts.every((piece) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(piece)), 'no piece starts or ends inside a pair');
    assert.equal(texts.join(''), text);
    // Held answers pass their text in such pieces too.
    const answer = longShapes(1024 * 1024, 4).blocks;
    const held = new HeldText();
    const all = [...held.pass(answer.slice(0, 1000)), ...held.pass(answer.slice(1000))];
    assert.ok(held.heldCount > 0);
    assert.ok(all.every((piece) => !('text' in piece) || piece.text.length <= PIECE_MAX));
    assert.equal(reassemble(held, all).text, answer);
  });
});
