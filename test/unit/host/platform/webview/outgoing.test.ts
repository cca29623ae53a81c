import * as assert from 'node:assert/strict';
import { CUT_SLICE, Outgoing } from '../../../../../src/host/platform/webview/outgoing';
import type { HostToWebview, SurfaceState, Turn } from '../../../../../src/shared/protocol';
import { longShapes } from '../../../../support/shapes';

/** What a webview was sent, with a mark wherever another task of the extension host ran in between. */
type Log = Array<HostToWebview | 'other task'>;

/** An Outgoing whose messages go into a log, and a task that notes itself in the log until stopped. */
function outgoing(): { out: Outgoing; log: Log; stop: () => void } {
  const log: Log = [];
  const out = new Outgoing((message) => log.push(message));
  let running = true;
  // Another extension's work, or a message taken in: it runs only between the bridge's tasks.
  const other = (): void => {
    if (!running) return;
    log.push('other task');
    setTimeout(other, 1);
  };
  setTimeout(other, 1);
  return { out, log, stop: () => (running = false) };
}

function messages(log: Log): HostToWebview[] {
  return log.filter((entry): entry is HostToWebview => entry !== 'other task');
}

/** Puts a turn's text back together from what was sent: appended text, and held groups' text asked for. */
function reassemble(out: Outgoing, log: Log, turnId: string): string {
  const sent = messages(log).filter((message) => 'turnId' in message && message.turnId === turnId);
  const ids = sent.flatMap((message) => (message.type === 'held' ? message.groups.map((group) => group.id) : []));
  const before = log.length;
  out.sendHeld(turnId, ids);
  const heldText = new Map(log.slice(before).flatMap((message) => (message !== 'other task' && message.type === 'heldText' ? [[message.id, message.text] as const] : [])));
  log.length = before;
  return sent.map((message) => (message.type === 'append' ? message.text : message.type === 'held' ? message.groups.map((group) => heldText.get(group.id) ?? '?').join('') : '')).join('');
}

function answerTurn(id: string, text: string, status: Turn['status']): Turn {
  return { id, role: 'assistant', applicationId: 'app', text, status, startedAt: 0 };
}

async function settled(log: Log, done: (log: Log) => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !done(log); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(done(log), 'the webview got everything');
}

describe('Outgoing (what the extension host sends a webview, in order)', () => {
  it('cuts a backlog of megabytes a slice at a time, with other tasks between the slices, and sends the end after all of it', async () => {
    const answer = longShapes(4 * 1024 * 1024, 3).blocks;
    const { out, log, stop } = outgoing();
    out.append('a', answer.slice(0, 10_000));
    // The rest arrives at once, far faster than a webview takes it in, and the answer ends.
    out.append('a', answer.slice(10_000));
    await new Promise((resolve) => setTimeout(resolve, 20));
    out.post({ type: 'turnEnd', turnId: 'a', status: 'done' });
    await settled(log, (entries) => messages(entries).some((message) => message.type === 'turnEnd'));
    stop();
    const sent = messages(log);
    assert.equal(sent[sent.length - 1].type, 'turnEnd', 'the end comes after all of the text');
    const held = log.flatMap((entry, i) => (entry !== 'other task' && entry.type === 'held' ? [i] : []));
    assert.ok(held.length >= Math.floor(answer.length / CUT_SLICE) - 1, `one held message a slice at least: ${held.length}`);
    const between = log.slice(held[0], held[held.length - 1]).filter((entry) => entry === 'other task').length;
    assert.ok(between >= 3, `other tasks ran while the backlog was cut: ${between}`);
    assert.equal(reassemble(out, log, 'a'), answer, 'nothing is lost or reordered');
  });

  it('keeps the order of what is posted while a backlog is cut: a new turn before its text, the first turn’s text before its end', async () => {
    const first = longShapes(2 * 1024 * 1024, 5).blocks;
    const { out, log, stop } = outgoing();
    out.append('a', first);
    out.post({ type: 'turnStart', turn: answerTurn('b', '', 'streaming') });
    out.append('b', 'The second answer.');
    out.post({ type: 'turnEnd', turnId: 'a', status: 'done' });
    out.append('b', ' More of it.');
    out.post({ type: 'turnEnd', turnId: 'b', status: 'done' });
    await settled(log, (entries) => messages(entries).filter((message) => message.type === 'turnEnd').length === 2);
    stop();
    const sent = messages(log);
    const index = (test: (message: HostToWebview) => boolean): number[] => sent.flatMap((message, i) => (test(message) ? [i] : []));
    const aText = index((message) => (message.type === 'append' || message.type === 'held') && message.turnId === 'a');
    const bText = index((message) => message.type === 'append' && message.turnId === 'b');
    const [aEnd] = index((message) => message.type === 'turnEnd' && message.turnId === 'a');
    const [bStart] = index((message) => message.type === 'turnStart');
    const [bEnd] = index((message) => message.type === 'turnEnd' && message.turnId === 'b');
    assert.ok(bStart < Math.min(...bText), 'the new turn comes before its text');
    assert.ok(Math.max(...aText) < aEnd, 'the first answer’s end comes after all its text');
    assert.ok(Math.max(...bText) < bEnd, 'the second answer’s end comes after all its text');
    assert.equal(reassemble(out, log, 'a'), first);
    assert.equal(reassemble(out, log, 'b'), 'The second answer. More of it.');
  });

  it('lets other turns go past a turn whose backlog is being cut (a Compare column that floods in holds up no other), each turn in its order', async () => {
    const flood = longShapes(3 * 1024 * 1024, 11).blocks;
    const { out, log, stop } = outgoing();
    out.append('a', flood);
    out.post({ type: 'turnEnd', turnId: 'a', status: 'done' });
    out.post({ type: 'turnStart', turn: answerTurn('b', '', 'streaming') });
    out.append('b', 'The other column.');
    out.post({ type: 'turnEnd', turnId: 'b', status: 'done' });
    out.post({ type: 'applications', applications: [], currentApplicationId: undefined });
    await settled(log, (entries) => messages(entries).filter((message) => message.type === 'turnEnd').length === 2);
    stop();
    const sent = messages(log);
    const index = (test: (message: HostToWebview) => boolean): number[] => sent.flatMap((message, i) => (test(message) ? [i] : []));
    const aText = index((message) => (message.type === 'append' || message.type === 'held') && message.turnId === 'a');
    const [aEnd] = index((message) => message.type === 'turnEnd' && message.turnId === 'a');
    const [bStart] = index((message) => message.type === 'turnStart');
    const bText = index((message) => message.type === 'append' && message.turnId === 'b');
    const [bEnd] = index((message) => message.type === 'turnEnd' && message.turnId === 'b');
    const [applications] = index((message) => message.type === 'applications');
    assert.ok(bStart < Math.min(...bText) && Math.max(...bText) < bEnd, 'the other column in its order');
    assert.ok(bEnd < Math.max(...aText), `the other column is all there before the flood is cut: end ${bEnd}, the flood's last ${Math.max(...aText)}`);
    assert.ok(applications < Math.max(...aText), 'a message about no turn waits for no turn');
    assert.ok(Math.max(...aText) < aEnd, 'the flood’s end comes after all of it');
    assert.equal(reassemble(out, log, 'a'), flood);
    assert.equal(reassemble(out, log, 'b'), 'The other column.');
  });

  it('cuts two backlogs at once by turns, a slice of each in turn (two Compare columns that flood in show together), each turn in its order', async () => {
    const first = longShapes(2 * 1024 * 1024, 12).blocks;
    const second = longShapes(2 * 1024 * 1024, 13).blocks;
    const { out, log, stop } = outgoing();
    out.append('a', first);
    out.append('b', second);
    out.post({ type: 'turnEnd', turnId: 'a', status: 'done' });
    out.post({ type: 'turnEnd', turnId: 'b', status: 'done' });
    await settled(log, (entries) => messages(entries).filter((message) => message.type === 'turnEnd').length === 2);
    stop();
    const sent = messages(log);
    const held = (turnId: string): number[] => sent.flatMap((message, i) => (message.type === 'held' && message.turnId === turnId ? [i] : []));
    const [aHeld, bHeld] = [held('a'), held('b')];
    assert.ok(aHeld.length > 4 && bHeld.length > 4, `both were held: ${aHeld.length} and ${bHeld.length} messages`);
    // Cut one after the other, the second's first group came only after the first's last.
    assert.ok(bHeld[0] < aHeld[2] && aHeld[aHeld.length - 1] > bHeld[2], `their slices alternate: the first's at ${aHeld.join(' ')}, the second's at ${bHeld.join(' ')}`);
    const end = (turnId: string): number => sent.findIndex((message) => message.type === 'turnEnd' && message.turnId === turnId);
    assert.ok(Math.max(...aHeld) < end('a') && Math.max(...bHeld) < end('b'), 'each end after all of its own text');
    assert.equal(reassemble(out, log, 'a'), first);
    assert.equal(reassemble(out, log, 'b'), second);
  });

  it('sends whole characters only, though a slice may end inside a surrogate pair: its end waits for the rest', async () => {
    // Paragraphs of emoji: slices end between the halves of pairs.
    const paragraph = (i: number): string => `${'🚀'.repeat(200 + (i % 7))} ${i}`;
    const answer = Array.from({ length: 3000 }, (_, i) => paragraph(i)).join('\n\n') + '\n';
    assert.ok(answer.length > 3 * CUT_SLICE);
    const { out, log, stop } = outgoing();
    // Pieces of odd sizes, each of whole characters (as a decoder gives them).
    for (let at = 0; at < answer.length; ) {
      let end = Math.min(answer.length, at + 70_001);
      if (/[\udc00-\udfff]/.test(answer[end] ?? '')) end++;
      out.append('a', answer.slice(at, end));
      at = end;
    }
    out.post({ type: 'turnEnd', turnId: 'a', status: 'done' });
    await settled(log, (entries) => messages(entries).some((message) => message.type === 'turnEnd'));
    stop();
    const texts = messages(log).flatMap((message) => (message.type === 'append' ? [message.text] : []));
    assert.ok(messages(log).some((message) => message.type === 'held'), 'most of it was held');
    const halfPair = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    assert.ok(texts.every((text) => !halfPair.test(text)), 'every text sent is whole characters');
    assert.equal(reassemble(out, log, 'a'), answer);
  });

  it('drops what is still to be cut when a state replaces everything', async () => {
    const answer = longShapes(3 * 1024 * 1024, 7).blocks;
    const { out, log, stop } = outgoing();
    out.append('a', answer);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = messages(log).length;
    assert.ok(before > 0 && before < 20, `cutting has begun and is not done: ${before} messages`);
    const state: SurfaceState = { surface: 'panel', title: 'Answer', applications: [], currentApplicationId: undefined, turns: [answerTurn('a', answer, 'done')], attachments: [] };
    out.post({ type: 'state', state });
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop();
    const sent = messages(log);
    const replaced = sent.findIndex((message) => message.type === 'state');
    assert.deepEqual(sent.slice(replaced + 1), [], 'nothing of the old backlog follows the state');
  });
});
