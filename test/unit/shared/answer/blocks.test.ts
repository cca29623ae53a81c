import * as assert from 'node:assert/strict';
import { createMarkdown, findBoundary, lineStarts, mayHoldCut, parseBlockLines } from '../../../../src/shared/answer/blocks';
import { TRICKY } from '../../../browser/corpus';
import { longShapes } from '../../../support/shapes';

const md = createMarkdown();

/** Where a stream that has received `prefix` may cut it (see findBoundary), if anywhere. */
function cutOf(prefix: string): number | undefined {
  const tokens: ReturnType<typeof md.parse> = [];
  md.block.parse(prefix, md, {}, tokens);
  return findBoundary(tokens, prefix, lineStarts(prefix))?.offset;
}

/** Answers whose blocks a later character could still join or change, each after a block that ends. */
const TEXTS = [
  'Intro.\n\nA paragraph of one long line, still being written, with *emphasis* and `code`.\n',
  '1. one\n\n2. two\n\nafter the list\n',
  '- item\n\n  continued in the item\n\nout of it\n',
  '- item\n\n    code in the item\n',
  '```\ncode\n```\nright after the fence\n',
  '> quoted\n\nnot quoted\n',
  'para\n\n| a | b |\n| - | - |\n| 1 | 2 |\n',
  'para\n\nTitle\n=====\n\nend\n',
  'para\n\n---\n\nend\n',
  'para\n\n    indented code\n\nend\n',
  '[ref]: https://example.com\n\nuses [ref]\n',
  'para\n\n数据 and emoji 🚀 start a paragraph\n',
  'para\n\n   three spaces, then a letter\n',
  'para\n\n**Bold** starts it\n\n*em* and _em_ and `code` too\n',
  'para\n\n* item\n\n***\n\n``` fence\n```\n',
];

describe('where streamed markdown can be cut (shared/answer/blocks.ts)', () => {
  it('every cut found in any prefix of an answer leaves the text before it rendered as in the whole answer', () => {
    for (const text of TEXTS) {
      const whole = md.render(text);
      for (let length = 1; length <= text.length; length++) {
        const cut = cutOf(text.slice(0, length));
        if (cut === undefined) continue;
        // The definitions made before the cut are known after it, as the renderer carries them.
        const env = {};
        assert.equal(md.render(text.slice(0, cut), env) + md.render(text.slice(cut), env), whole, `${JSON.stringify(text)} received up to ${length}, cut at ${cut}`);
      }
    }
  });

  it('a paragraph whose one line has begun with a letter after a blank line is a cut, so a long line can stream alone', () => {
    assert.equal(cutOf('Intro.\n\nA long line, still'), 'Intro.\n\n'.length);
    assert.equal(cutOf('para\n\n数据 still'), 'para\n\n'.length);
    assert.equal(cutOf('para\n\n**Bold** still'), 'para\n\n'.length);
  });

  it('text the quick check says holds no cut holds none: every prefix with a cut passes it', () => {
    let cuts = 0;
    for (const text of [...TEXTS, ...TEXTS.map((text) => text.replaceAll('\n\n', '\n  \t\n'))]) {
      for (let length = 1; length <= text.length; length++) {
        const prefix = text.slice(0, length);
        if (cutOf(prefix) !== undefined) {
          cuts++;
          assert.ok(mayHoldCut(prefix), JSON.stringify(prefix));
        }
      }
    }
    assert.ok(cuts > 100, `prefixes with a cut (${cuts})`);
    // The answer's first words, and an open block growing, need no parse.
    for (const text of ['Hello', 'A paragraph\nwrapped on lines', '- a list\n- of items\n', '```ts\ncode\n', '> quoted\n> more']) {
      assert.equal(mayHoldCut(text), false, JSON.stringify(text));
    }
  });

  it('one block parse gives the tokens of a block parse and the line starts of a search for line breaks, whatever the text ends with', () => {
    const pieces = ['a', ' ', '\t', '\n', '  \n', '- x', '> q', '```', '|a|b|', '---', '# h', '    code', '1. y', '[r]: /u', 'text'];
    const texts = ['', 'a', 'a\n', '\n', '  ', 'a\n  ', 'a\n\t \t', 'a\nb', '\n\n\n', ...TEXTS];
    // Every text of up to three pieces, so every ending (a line break, a line of spaces and tabs, text) follows every kind of block.
    for (const x of pieces) for (const y of pieces) for (const z of pieces) texts.push(x + y + z);
    for (const text of texts) {
      const expected: ReturnType<typeof md.parse> = [];
      md.block.parse(text, md, {}, expected);
      const tokens: ReturnType<typeof md.parse> = [];
      const starts = parseBlockLines(md, text, {}, tokens);
      assert.deepEqual(starts, lineStarts(text), JSON.stringify(text));
      assert.deepEqual(tokens, expected, JSON.stringify(text));
    }
  });

  it('a line that could still become a list item, a quote, a fence or code is not a cut until it is complete', () => {
    for (const prefix of ['1. one\n\n2', '- a\n\n-', 'para\n\n>', 'para\n\n`', 'para\n\n**', 'para\n\n* ', 'para\n\n    code', 'para\n\n[ref']) {
      assert.equal(cutOf(prefix), undefined, JSON.stringify(prefix));
    }
  });
});

describe('the block structure host and webview share', () => {
  it("parses blocks into tokens exactly like markdown-it's own, with the faster token maker", () => {
    const text = Object.values(TRICKY).join('\n\n') + '\n\n' + longShapes(64 * 1024, 2).blocks;
    const fast = createMarkdown();
    const tokens: ReturnType<typeof fast.parse> = [];
    fast.block.parse(text, fast, {}, tokens);
    const Token = new fast.core.State('', fast, {}).Token;
    assert.ok(tokens.length > 1000);
    for (const token of tokens) {
      // The same class, the same fields in the same order as a token markdown-it makes.
      assert.equal(Object.getPrototypeOf(token), Token.prototype);
      const stock = new Token(token.type, token.tag, token.nesting);
      assert.deepEqual(Object.keys(token), Object.keys(stock));
    }
    // And the same tokens as a parse whose tokens markdown-it makes itself.
    const State = fast.block.State.prototype as unknown as { push: (this: { tokens: unknown[]; level: number }, type: string, tag: string, nesting: 1 | 0 | -1) => unknown };
    const fastPush = State.push;
    State.push = function (type, tag, nesting) {
      const token = new Token(type, tag, nesting);
      token.block = true;
      if (nesting < 0) this.level--;
      token.level = this.level;
      if (nesting > 0) this.level++;
      this.tokens.push(token);
      return token;
    };
    const stockTokens: typeof tokens = [];
    try {
      fast.block.parse(text, fast, {}, stockTokens);
    } finally {
      State.push = fastPush;
    }
    assert.deepEqual(tokens.map((token) => ({ ...token })), stockTokens.map((token) => ({ ...token })));
  });
});
