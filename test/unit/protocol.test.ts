import * as assert from 'node:assert/strict';
import { createMarkdown } from '../../src/shared/answer/blocks';
import { MAX_WEBVIEW_TEXT, oversizedMessage, parseWebviewMessage } from '../../src/shared/protocol';
import { TRICKY } from '../browser/corpus';
import { longShapes } from '../support/shapes';

describe('the webview protocol', () => {
  it('accepts copyAnswer by turn id: a whole answer never crosses over as text', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'copyAnswer', turnId: 't1' }), { type: 'copyAnswer', turnId: 't1' });
    assert.equal(parseWebviewMessage({ type: 'copyAnswer', turnId: 7 }), undefined);
  });

  it('drops a message whose text is over the cap, and can say which one it was', () => {
    const big = 'x'.repeat(MAX_WEBVIEW_TEXT + 1);
    for (const raw of [{ type: 'send', text: big }, { type: 'copy', text: big }, { type: 'insertCode', code: big }, { type: 'openCode', code: big }]) {
      assert.equal(parseWebviewMessage(raw), undefined, raw.type);
      assert.deepEqual(oversizedMessage(raw), { type: raw.type, length: MAX_WEBVIEW_TEXT + 1 });
    }
  });

  it('does not call a malformed or small message oversized', () => {
    assert.equal(oversizedMessage({ type: 'send', text: 'short' }), undefined);
    assert.equal(oversizedMessage({ type: 'nonsense', text: 'x'.repeat(MAX_WEBVIEW_TEXT + 1) }), undefined);
    assert.equal(oversizedMessage(null), undefined);
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
