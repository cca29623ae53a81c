import * as assert from 'node:assert/strict';
import { MOST_PER_TASK, Outgoing } from '../../../../../src/host/platform/webview/outgoing';
import type { HostToWebview, SurfaceState, Turn } from '../../../../../src/shared/protocol';

/** An Outgoing whose deliveries settle when the test says (a webview that takes its messages slowly). */
function slowWebview(): { out: Outgoing; sent: HostToWebview[]; settleAll: () => void } {
  const sent: HostToWebview[] = [];
  let waiting: Array<() => void> = [];
  const out = new Outgoing((message) => {
    sent.push(message);
    return new Promise<void>((resolve) => waiting.push(resolve));
  });
  return {
    out,
    sent,
    settleAll: () => {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
    },
  };
}

/** Half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function answerTurn(id: string, text: string, status: Turn['status']): Turn {
  return { id, role: 'assistant', applicationId: 'app', text, status, startedAt: 0 };
}

function appended(sent: readonly HostToWebview[], turnId: string): string {
  return sent.map((message) => (message.type === 'append' && message.turnId === turnId ? message.text : '')).join('');
}

describe('Outgoing (what the extension host sends a webview, in order)', () => {
  it('sends the first text at once, then coalesces what comes while a batch is on its way into the next one', async () => {
    const { out, sent, settleAll } = slowWebview();
    out.append('t1', 'first');
    assert.deepEqual(sent, [{ type: 'append', turnId: 't1', text: 'first' }], 'the first text after a quiet frame goes at once');
    for (let i = 0; i < 100; i++) out.append('t1', `.${i}`);
    await tick(40);
    assert.equal(sent.length, 1, 'nothing more while the first batch has not been taken');
    settleAll();
    await tick(40);
    assert.equal(sent.length, 2, 'one batch with all the text that came meanwhile');
    assert.equal(appended(sent, 't1'), 'first' + Array.from({ length: 100 }, (_, i) => `.${i}`).join(''));
  });

  it('keeps the order of what is posted: a turn\'s text goes before its end, and a new turn before its text', async () => {
    const { out, sent, settleAll } = slowWebview();
    out.post({ type: 'turnStart', turn: answerTurn('t1', '', 'streaming') });
    out.append('t1', 'a');
    settleAll();
    out.append('t1', 'b');
    out.append('t1', 'c');
    out.post({ type: 'turnEnd', turnId: 't1', status: 'done' });
    await tick(40);
    settleAll();
    await tick(40);
    assert.deepEqual(
      sent.map((message) => (message.type === 'append' ? `append ${message.text}` : message.type)),
      ['turnStart', 'append a', 'append bc', 'turnEnd'],
    );
  });

  it('sends each turn\'s text in a batch of its own, so two Compare columns that flood in show together', async () => {
    const { out, sent, settleAll } = slowWebview();
    out.append('a', 'x'.repeat(10));
    out.append('b', 'y'.repeat(10));
    settleAll();
    await tick(40);
    out.append('a', 'x'.repeat(10));
    out.append('b', 'y'.repeat(10));
    await tick(40);
    settleAll();
    await tick(40);
    assert.equal(appended(sent, 'a'), 'x'.repeat(20));
    assert.equal(appended(sent, 'b'), 'y'.repeat(20));
  });

  it('drops the text still to go when a state replaces everything (the state carries each turn\'s whole text)', async () => {
    const { out, sent, settleAll } = slowWebview();
    out.append('t1', 'sent');
    out.append('t1', 'still to go');
    const state: SurfaceState = { surface: 'panel', title: 't', applications: [], currentApplicationId: undefined, turns: [answerTurn('t1', 'sentstill to go', 'streaming')], attachments: [] };
    out.post({ type: 'state', state });
    settleAll();
    await tick(40);
    assert.deepEqual(sent.map((message) => message.type), ['append', 'state']);
    assert.equal(appended(sent, 't1'), 'sent');
  });

  it('sends a backlog whole in the next batch, without waiting for each append to be taken, at most 256 KiB of it in one task of the host', async () => {
    const { out, sent, settleAll } = slowWebview();
    out.append('t1', 'first');
    for (let i = 0; i < 5; i++) out.append('t1', 'z'.repeat(150 * 1024));
    await tick(40);
    assert.equal(sent.length, 1, 'the backlog waits while the first batch is on its way');
    settleAll();
    const perTask: number[] = [];
    for (let before = sent.length; perTask.length < 10; before = sent.length) {
      await new Promise((resolve) => setImmediate(resolve));
      perTask.push(appended(sent.slice(before), 't1').length);
    }
    assert.equal(MOST_PER_TASK, 256 * 1024);
    assert.deepEqual(perTask.filter((size) => size > 0), [256 * 1024, 256 * 1024, 238 * 1024], 'one batch, a task per 256 KiB, not waiting for the webview');
    assert.equal(appended(sent, 't1').length, 5 + 5 * 150 * 1024);
  });

  it('sends all the text appended before a message ahead of it, however much is waiting (an answer\'s end never overtakes its text)', async () => {
    const { out, sent } = slowWebview();
    out.append('t1', 'first');
    for (let i = 0; i < 40; i++) out.append('t1', 'z'.repeat(64 * 1024));
    out.post({ type: 'turnEnd', turnId: 't1', status: 'done' });
    assert.ok(appended(sent, 't1').length <= 5 + MOST_PER_TASK, 'no more than 256 KiB posted before the host\'s next task');
    await tick(40);
    const end = sent.findIndex((message) => message.type === 'turnEnd');
    assert.equal(end, sent.length - 1, 'the end is the last message');
    assert.equal(appended(sent.slice(0, end), 't1').length, 5 + 40 * 64 * 1024, 'all the text before it');
  });

  it('tells the page with each append how much more of that answer it holds, so a page far behind knows a flood is still coming', async () => {
    const sent: HostToWebview[] = [];
    const waiting: Array<() => void> = [];
    let late = false;
    const out: Outgoing = new Outgoing((message) => {
      sent.push(message);
      // Text that comes while the batch goes out (a task at a time) counts from then on.
      if (message.type === 'append' && message.text.length === MOST_PER_TASK && !late) {
        late = true;
        out.append('t1', 'late');
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    });
    const settleAll = (): void => {
      for (const resolve of waiting.splice(0)) resolve();
    };
    out.append('t1', 'first');
    out.append('t2', 'other');
    for (let i = 0; i < 3; i++) out.append('t1', 'z'.repeat(200 * 1024));
    await tick(40);
    const queued = (message: HostToWebview): number | undefined => (message.type === 'append' ? message.queued : undefined);
    assert.equal(queued(sent[0]), undefined, 'the first text went alone: nothing else was held then');
    for (let i = 0; i < 3; i++) {
      settleAll();
      await tick(40);
    }
    const t1 = sent.filter((message) => message.type === 'append' && message.turnId === 't1');
    assert.deepEqual(t1.map((message) => (message.type === 'append' ? message.text.length : 0)), [5, MOST_PER_TASK, MOST_PER_TASK, 88 * 1024, 4], 'the first text, 600 KiB in appends of at most 256 KiB, then the late text');
    assert.deepEqual(t1.map(queued), [undefined, 344 * 1024, 88 * 1024 + 4, 4, undefined], 'each append: the text of its answer still held after it');
    assert.equal(queued(sent.find((message) => message.type === 'append' && message.turnId === 't2') ?? sent[0]), undefined, 'another answer\'s text does not count');
  });

  it('never parts a surrogate pair between two appends', async () => {
    const { out, sent, settleAll } = slowWebview();
    out.append('t1', 'first');
    const text = 'a' + '\u{1F600}'.repeat(MOST_PER_TASK);
    out.append('t1', text);
    settleAll();
    await tick(300);
    const texts = sent.slice(1).map((message) => (message.type === 'append' ? message.text : ''));
    assert.ok(texts.length >= 3, `${texts.length} appends`);
    for (const piece of texts) assert.ok(piece.length <= MOST_PER_TASK && !LONE_SURROGATE.test(piece), 'each append is whole characters');
    assert.equal(texts.join(''), text);
  });

  it('a webview that refuses messages (closed meanwhile) leaves no unhandled rejection, and text that comes after still goes', async () => {
    const unhandled: unknown[] = [];
    const note = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', note);
    try {
      const sent: HostToWebview[] = [];
      const out = new Outgoing((message) => {
        sent.push(message);
        return Promise.reject(new Error('Webview is disposed'));
      });
      out.post({ type: 'turnStart', turn: answerTurn('t1', '', 'streaming') });
      out.append('t1', 'a');
      await tick(40);
      out.append('t1', 'b');
      out.post({ type: 'turnEnd', turnId: 't1', status: 'done' });
      await tick(40);
      assert.deepEqual(unhandled, []);
      assert.deepEqual(sent.map((message) => (message.type === 'append' ? `append ${message.text}` : message.type)), ['turnStart', 'append a', 'append b', 'turnEnd']);
    } finally {
      process.off('unhandledRejection', note);
    }
  });
});
