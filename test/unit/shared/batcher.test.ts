import * as assert from 'node:assert/strict';
import { TextBatcher } from '../../../src/shared/batcher';
import { waitFor } from '../../support/loopback';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('TextBatcher', () => {
  it('coalesces a synchronous burst into one flush, exact and in order', async () => {
    const flushed: string[] = [];
    const batcher = new TextBatcher((text) => flushed.push(text), 50);
    for (let i = 0; i < 1000; i++) {
      batcher.push(`${i},`);
    }
    assert.equal(batcher.flushCount, 0, 'flushes are asynchronous');
    await waitFor(() => flushed.length > 0, 'the first flush');
    assert.equal(flushed.length, 1);
    assert.equal(flushed[0], Array.from({ length: 1000 }, (_, i) => `${i},`).join(''));
    batcher.dispose();
  });

  it('flushes at most once per interval under a fast push loop, losing nothing', async () => {
    const flushed: string[] = [];
    const intervalMs = 40;
    const batcher = new TextBatcher((text) => flushed.push(text), intervalMs);
    let expected = '';
    const started = performance.now();
    let pushes = 0;
    // Push for several intervals, a few pieces per event-loop turn.
    while (performance.now() - started < intervalMs * 8) {
      for (let j = 0; j < 5; j++) {
        const piece = `<${pushes++}>`;
        expected += piece;
        batcher.push(piece);
      }
      await tick();
    }
    const elapsed = performance.now() - started;
    batcher.dispose();
    assert.equal(flushed.join(''), expected);
    // One flush per full interval elapsed, plus the first (immediate) one and the final dispose.
    assert.ok(batcher.flushCount <= Math.floor(elapsed / intervalMs) + 2, `${batcher.flushCount} flushes in ${elapsed.toFixed(0)} ms`);
  });

  it('flushes the first push of a quiet spell soon, without waiting for more', async () => {
    const flushed: string[] = [];
    const batcher = new TextBatcher((text) => flushed.push(text), 10_000);
    batcher.push('first');
    await waitFor(() => flushed.length === 1, 'the first push to be flushed although the interval is long');
    assert.deepEqual(flushed, ['first']);
    batcher.dispose();
  });

  it('with leading, writes the first push of a quiet spell at once and batches the rest of the interval', async () => {
    const flushed: string[] = [];
    const intervalMs = 30;
    const batcher = new TextBatcher((text) => flushed.push(text), intervalMs, true);
    batcher.push('first');
    assert.deepEqual(flushed, ['first'], 'no timer between the piece and its reader');
    batcher.push('a');
    batcher.push('b');
    assert.deepEqual(flushed, ['first'], 'within the interval, pieces wait');
    await waitFor(() => flushed.length === 2, 'the rest of the interval');
    assert.deepEqual(flushed, ['first', 'ab']);
    await new Promise((resolve) => setTimeout(resolve, intervalMs + 5));
    batcher.push('after a quiet spell');
    assert.deepEqual(flushed, ['first', 'ab', 'after a quiet spell']);
    batcher.dispose();
  });

  it('flushNow and dispose deliver what is pending at once', () => {
    const flushed: string[] = [];
    const batcher = new TextBatcher((text) => flushed.push(text), 50);
    batcher.push('a');
    batcher.push('b');
    batcher.flushNow();
    assert.deepEqual(flushed, ['ab']);
    batcher.push('c');
    batcher.dispose();
    assert.deepEqual(flushed, ['ab', 'c']);
    batcher.push('late');
    assert.deepEqual(flushed, ['ab', 'c', 'late']);
    assert.equal(batcher.flushCount, 3);
  });

  it('ignores empty pushes and never flushes empty text', () => {
    const flushed: string[] = [];
    const batcher = new TextBatcher((text) => flushed.push(text), 50);
    batcher.push('');
    batcher.flushNow();
    batcher.dispose();
    assert.deepEqual(flushed, []);
    assert.equal(batcher.flushCount, 0);
  });
});
