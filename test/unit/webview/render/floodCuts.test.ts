import * as assert from 'node:assert/strict';
import { createMarkdown } from '../../../../src/shared/answer/blocks';
import { lastFoldCut } from '../../../../src/webview/render/floodCuts';
import { TRICKY } from '../../../browser/corpus';

const md = createMarkdown();

/** Answers where a blank line is inside something that stays open, or looks like it is. */
const TEXTS = [
  '```\ncode\n\n# not a heading\n```\n\nafter the fence\n',
  '~~~~\n```\n\nstill code\n~~~~\n\nout of it\n',
  '````\n```\n\ninside\n````\n\nafter\n',
  '```js `x`\n\nthe line above is a paragraph, not a fence\n',
  '- item\n\n  ```\n  code\n\n  more code\n  ```\n\npara\n',
  '- ```\n  code\n\nends the list and its fence\n\n```\nreal fence\n\nstill fence\n```\n\nend\n',
  '10. item\n\n    ```\n    code\n\n    more\n    ```\nfoo\n\nbar\n',
  '1. a\n\n2. b\n\nafter the list\n',
  '- a\n\n- b\n\n+ c\n\n* d\n\nout\n',
  '> quoted\n\n> quoted again\n\nplain\n',
  'para\n\n    indented code\n\n    more code\n\nend\n',
  'para\n\n\tcode after a tab\n\nend\n',
  '# Heading\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\nafter the table\n',
  'para\n\nTitle\n=====\n\n---\n\nend\n',
  '  ```\n  indented top-level fence\n\n  ```\n\nafter\n',
];

describe('where text that floods in can be folded without parsing it (webview/render/floodCuts.ts)', () => {
  it('every cut found in any prefix leaves the text before and after it rendered as in the whole answer', () => {
    let cuts = 0;
    for (const text of [...TEXTS, ...Object.values(TRICKY).filter((text) => !text.includes(']:'))]) {
      const whole = md.render(text);
      for (let length = 1; length <= text.length; length++) {
        const cut = lastFoldCut(text.slice(0, length));
        if (cut === 0) continue;
        cuts++;
        assert.equal(md.render(text.slice(0, cut)) + md.render(text.slice(cut)), whole, `${JSON.stringify(text)} received up to ${length}, cut at ${cut}`);
      }
    }
    assert.ok(cuts > 100, `cuts were found to check (${cuts})`);
  });

  it('cuts after a closed fence, never inside one, and never at a list item or indented line', () => {
    assert.equal(lastFoldCut(TEXTS[0]), TEXTS[0].indexOf('after'));
    assert.equal(lastFoldCut('```\ncode\n\ninside\n'), 0);
    assert.equal(lastFoldCut(TEXTS[7]), TEXTS[7].indexOf('after'));
    assert.equal(lastFoldCut('para\n\n- item\n\n    code\n'), 0);
  });

  it('stops where it cannot tell a fence\'s container (an indented fence), keeping the cuts before it', () => {
    assert.equal(lastFoldCut(TEXTS[4]), 0);
    const text = 'intro\n\nplain\n\n' + TEXTS[4];
    assert.equal(lastFoldCut(text), text.indexOf('plain'));
  });
});
