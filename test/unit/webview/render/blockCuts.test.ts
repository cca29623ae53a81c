import * as assert from 'node:assert/strict';
import { createMarkdown, TextNormalizer } from '../../../../src/shared/answer/blocks';
import { lastCut } from '../../../../src/webview/render/blockCuts';
import { TRICKY } from '../../../browser/corpus';

const md = createMarkdown();

/** Answers whose blocks a later character could still join or change, each after a block that ends. */
const TEXTS = [
  'Intro.\n\nA paragraph of one long line, still being written, with *emphasis* and `code`.\n',
  '1. one\n\n2. two\n\nafter the list\n',
  '- item\n\n  continued in the item\n\nout of it\n',
  '- item\n\n    code in the item\n',
  '```\ncode\n```\nright after the fence\n',
  '> quoted\n\nnot quoted\n',
  '> quoted\nlazy line\n# Heading\n',
  'para\n\n| a | b |\n| - | - |\n| 1 | 2 |\n',
  'para\n| a | b |\n| - | - |\n| 1 | 2 |\nmore row\n# H\n',
  'para\n\nTitle\n=====\n\nend\n',
  'para\nstill para\n---\nafter\n',
  'para\n\n---\n\nend\n',
  'para\n\n    indented code\n\nend\n',
  '[ref]: https://example.com\n\nuses [ref]\n',
  '[ref]: https://example.com\n"title on its own line"\nuses [ref]\n',
  'para\n\n数据 and emoji 🚀 start a paragraph\n',
  'para\n\n   three spaces, then a letter\n',
  'para\n\n**Bold** starts it\n\n*em* and _em_ and `code` too\n',
  'para\n\n* item\n\n***\n\n``` fence\n```\n',
  '- a\n- b\n# After the list\ntext\n2. not a list\n1. a list\n',
  '# One\n## Two\ntext right after\n```\nfence\n```\n> quote\n',
];

describe('where streamed markdown can be cut (webview/render/blockCuts.ts)', () => {
  it('every cut found in any prefix of an answer leaves the text before it rendered as in the whole answer', () => {
    // (Definitions that come after a cut are the renderer's to apply: it renders the text that uses them again.)
    for (const text of [...TEXTS, ...Object.values(TRICKY).filter((text) => !text.includes(']:'))]) {
      const whole = md.render(text);
      for (let length = 1; length <= text.length; length++) {
        const cut = lastCut(text.slice(0, length));
        if (cut === 0) continue;
        // The definitions made before the cut are known after it, as the renderer carries them.
        const env = {};
        assert.equal(md.render(text.slice(0, cut), env) + md.render(text.slice(cut), env), whole, `${JSON.stringify(text)} received up to ${length}, cut at ${cut}`);
      }
    }
  });

  it('cuts where a block begins right after the one before it ended, without a blank line', () => {
    assert.equal(lastCut('- a\n- b\n# After\n'), '- a\n- b\n'.length);
    assert.equal(lastCut('para\n- x\n- y\n'), 'para\n'.length);
    assert.equal(lastCut('```\ncode\n```\nafter\n'), '```\ncode\n```\n'.length);
  });

  it('a paragraph whose one line has begun with a letter after a blank line is a cut, so a long line can stream alone', () => {
    assert.equal(lastCut('Intro.\n\nA long line, still'), 'Intro.\n\n'.length);
    assert.equal(lastCut('para\n\n数据 still'), 'para\n\n'.length);
    assert.equal(lastCut('para\n\n**Bold** still'), 'para\n\n'.length);
  });

  it('a line that could still become a list item, a quote, a fence, code or a table is no cut until it is complete', () => {
    for (const partial of ['-', '>', '``', '    x', '1', '|', '#']) {
      assert.equal(lastCut(`para\n\n${partial}`), 0, partial);
    }
    // A table may interrupt a paragraph: its header is no cut until the delimiter row is there.
    assert.equal(lastCut('para\n| a | b |\n'), 0);
  });
});

describe('streamed text is normalized the way a whole text is (shared/answer/blocks.ts)', () => {
  it('CR LF split across pieces is one line break; a lone CR is one; NUL becomes U+FFFD', () => {
    const normalizer = new TextNormalizer();
    const out = ['a\r', '\nb\r', 'c\0', '\r\n', 'd'].map((piece) => normalizer.normalize(piece)).join('');
    assert.equal(out, 'a\nb\nc\uFFFD\nd');
  });
});
