import * as assert from 'node:assert/strict';
import { MAX_WEBVIEW_TEXT, oversizedMessage, parseWebviewMessage } from '../../src/protocol/messages';

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
