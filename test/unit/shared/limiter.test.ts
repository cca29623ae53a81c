import * as assert from 'node:assert/strict';
import { KeyedLimiter } from '../../../src/shared/limiter';

/** A task that runs until `release()` is called, recording when it started. */
function gate(log: string[], name: string): { task: () => Promise<string>; release: () => void } {
  let release: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    task: async () => {
      log.push(`start ${name}`);
      await done;
      return name;
    },
    release: () => release(),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('KeyedLimiter: at most N at a time per service, in order', () => {
  it('starts at most the limit per key, the rest in the order queued, each as a place frees', async () => {
    const limiter = new KeyedLimiter(2);
    const log: string[] = [];
    const gates = ['a', 'b', 'c', 'd'].map((name) => gate(log, name));
    const results = gates.map((g) => limiter.run('svc', g.task));
    await tick();
    assert.deepEqual(log, ['start a', 'start b']);
    assert.equal(limiter.running('svc'), 2);
    gates[1].release();
    await tick();
    assert.deepEqual(log, ['start a', 'start b', 'start c']);
    gates[0].release();
    gates[2].release();
    gates[3].release();
    assert.deepEqual(await Promise.all(results), ['a', 'b', 'c', 'd']);
    assert.equal(limiter.running('svc'), 0);
  });

  it('keys do not wait for each other', async () => {
    const limiter = new KeyedLimiter(1);
    const log: string[] = [];
    const one = gate(log, 'one');
    const other = gate(log, 'other');
    const first = limiter.run('dev', one.task);
    const second = limiter.run('staging', other.task);
    await tick();
    assert.deepEqual(log, ['start one', 'start other']);
    one.release();
    other.release();
    await Promise.all([first, second]);
  });

  it('a newcomer never takes a place that a waiting task was handed (the limit holds under churn)', async () => {
    const limiter = new KeyedLimiter(3);
    let running = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      running--;
    };
    const all: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      all.push(limiter.run('svc', task));
      if (i % 7 === 0) await tick();
    }
    await Promise.all(all);
    assert.equal(peak, 3);
  });

  it('a failing task frees its place and rejects for its caller only', async () => {
    const limiter = new KeyedLimiter(1);
    const failed = limiter.run('svc', () => Promise.reject(new Error('boom')));
    const next = limiter.run('svc', () => Promise.resolve('next'));
    await assert.rejects(failed, /boom/);
    assert.equal(await next, 'next');
  });

  it('refuses a limit below 1', () => {
    assert.throws(() => new KeyedLimiter(0), /at least 1/);
  });
});
