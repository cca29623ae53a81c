import * as assert from 'node:assert/strict';
import { isHostMessage, MAX_WEBVIEW_TEXT, oversizedMessage, parseWebviewMessage, type ViewKind } from '../../../src/shared/protocol';

const SURFACES: readonly ViewKind[] = ['chat', 'panel', 'compare'];

/** One well-formed message of every type some surface sends, by the surfaces that send it. */
const OWN: ReadonlyArray<{ readonly message: { readonly type: string } & Record<string, unknown>; readonly surfaces: readonly ViewKind[] }> = [
  { message: { type: 'ready' }, surfaces: SURFACES },
  { message: { type: 'stop' }, surfaces: SURFACES },
  { message: { type: 'stop', turnId: 't1' }, surfaces: SURFACES },
  { message: { type: 'retry', turnId: 't1' }, surfaces: SURFACES },
  { message: { type: 'copy', text: 'const x = 1;' }, surfaces: SURFACES },
  { message: { type: 'copyAnswer', turnId: 't1' }, surfaces: SURFACES },
  { message: { type: 'openAnswer', turnId: 't1' }, surfaces: SURFACES },
  { message: { type: 'insertCode', code: 'x()' }, surfaces: SURFACES },
  { message: { type: 'openCode', code: 'x()', language: 'ts' }, surfaces: SURFACES },
  { message: { type: 'openLink', href: 'https://example.com/' }, surfaces: SURFACES },
  { message: { type: 'setApiKey' }, surfaces: SURFACES },
  { message: { type: 'setApiKey', turnId: 't1' }, surfaces: SURFACES },
  { message: { type: 'send', text: 'Why?' }, surfaces: ['chat'] },
  { message: { type: 'selectApplication', applicationId: 'docs' }, surfaces: ['chat'] },
  { message: { type: 'attach', kind: 'selection' }, surfaces: ['chat'] },
  { message: { type: 'removeAttachment', id: 'att1' }, surfaces: ['chat'] },
  { message: { type: 'clear' }, surfaces: ['chat'] },
  { message: { type: 'exportMarkdown' }, surfaces: ['chat', 'panel'] },
  { message: { type: 'diff', turnId: 't1' }, surfaces: ['compare'] },
];

describe('the webview protocol', () => {
  it("takes from each surface exactly its own messages, and refuses another surface's", () => {
    for (const { message, surfaces } of OWN) {
      for (const surface of SURFACES) {
        const parsed = parseWebviewMessage(surface, message);
        if (surfaces.includes(surface)) assert.deepEqual(parsed, message, `${surface} sends ${message.type}`);
        else assert.equal(parsed, undefined, `${surface} does not send ${message.type}`);
      }
    }
  });

  it('refuses unknown, malformed and inherited message types on every surface', () => {
    for (const surface of SURFACES) {
      for (const raw of [null, 'ready', { type: 'nonsense' }, { type: 'toString' }, { type: 'constructor' }, { type: 'send' }, { type: 'attach', kind: 'folder' }, { type: 'openLink' }]) {
        assert.equal(parseWebviewMessage(surface, raw), undefined, `${surface}: ${JSON.stringify(raw)}`);
      }
    }
  });

  it('has no flow-control messages: the host paces what it sends by its own deliveries', () => {
    for (const surface of SURFACES) {
      assert.equal(parseWebviewMessage(surface, { type: 'received', length: 12 }), undefined);
      assert.equal(parseWebviewMessage(surface, { type: 'wantHeld', turnId: 't1', ids: [0] }), undefined);
      assert.equal(isHostMessage(surface, { type: 'heldText', turnId: 't1', id: 0, text: 'x' }), false, surface);
    }
  });

  it('accepts copyAnswer by turn id: a whole answer never crosses over as text', () => {
    for (const surface of SURFACES) {
      assert.deepEqual(parseWebviewMessage(surface, { type: 'copyAnswer', turnId: 't1' }), { type: 'copyAnswer', turnId: 't1' });
      assert.equal(parseWebviewMessage(surface, { type: 'copyAnswer', turnId: 7 }), undefined);
    }
  });

  it('drops a message whose text is over the cap, and can say which one it was', () => {
    const big = 'x'.repeat(MAX_WEBVIEW_TEXT + 1);
    for (const raw of [{ type: 'send', text: big }, { type: 'copy', text: big }, { type: 'insertCode', code: big }, { type: 'openCode', code: big }]) {
      assert.equal(parseWebviewMessage('chat', raw), undefined, raw.type);
      assert.deepEqual(oversizedMessage('chat', raw), { type: raw.type, length: MAX_WEBVIEW_TEXT + 1 });
    }
    for (const raw of [{ type: 'copy', text: big }, { type: 'insertCode', code: big }, { type: 'openCode', code: big }]) {
      assert.deepEqual(oversizedMessage('panel', raw), { type: raw.type, length: MAX_WEBVIEW_TEXT + 1 });
      assert.deepEqual(oversizedMessage('compare', raw), { type: raw.type, length: MAX_WEBVIEW_TEXT + 1 });
    }
  });

  it("does not call a malformed, small or another surface's message oversized", () => {
    const big = 'x'.repeat(MAX_WEBVIEW_TEXT + 1);
    assert.equal(oversizedMessage('chat', { type: 'send', text: 'short' }), undefined);
    assert.equal(oversizedMessage('chat', { type: 'nonsense', text: big }), undefined);
    assert.equal(oversizedMessage('chat', null), undefined);
    // Only the Chat view has a composer: a question from another surface is refused, not reported.
    assert.equal(oversizedMessage('panel', { type: 'send', text: big }), undefined);
    assert.equal(oversizedMessage('compare', { type: 'send', text: big }), undefined);
  });

  it("has each page take only its own surface's messages from the host", () => {
    const applications = { type: 'applications', applications: [], currentApplicationId: undefined };
    const attachments = { type: 'attachments', attachments: [] };
    for (const surface of SURFACES) {
      assert.equal(isHostMessage(surface, { type: 'turnEnd', turnId: 't1', status: 'done' }), true, surface);
      assert.equal(isHostMessage(surface, { type: 'append', turnId: 't1', text: 'x' }), true, surface);
      assert.equal(isHostMessage(surface, { type: 'ready' }), false, surface);
      assert.equal(isHostMessage(surface, { type: 'hasOwnProperty' }), false, surface);
      assert.equal(isHostMessage(surface, applications), surface === 'chat', surface);
      assert.equal(isHostMessage(surface, attachments), surface === 'chat', surface);
    }
  });
});
