import * as assert from 'node:assert/strict';
import { RETRY_MEMORY_BUDGET_BYTES, RetryMemory, stringBytes } from '../../../../src/host/sidebarChat/retryMemory';

interface Input {
  readonly applicationId: string;
  readonly question: string;
  readonly context?: { readonly text: string; readonly fileText?: string };
}

const MiB = 1024 * 1024;

describe('chat/RetryMemory', () => {
  it('25 failed answers with 2 MiB files attached keep the budget, not 50 MiB, and the newest always', () => {
    const memory = new RetryMemory<Input>(stringBytes);
    for (let i = 0; i < 25; i++) {
      const file = String.fromCharCode(97 + (i % 26)).repeat(2 * MiB);
      memory.remember(`turn-${i}`, { applicationId: 'app', question: `q${i}`, context: { text: file, fileText: file } });
    }
    // Each input holds its 2 MiB file twice (as the context and the file), 8 MiB as UTF-16: over the budget alone.
    assert.ok(memory.bytes <= RETRY_MEMORY_BUDGET_BYTES + 1024, `${memory.bytes} bytes kept`);
    assert.equal(memory.size, 1);
    assert.equal(memory.get('turn-24')?.question, 'q24', 'the last failed turn can be retried with its context');
    assert.equal(memory.get('turn-0'), undefined, 'the oldest went first');
  });

  it('keeps one input larger than the whole budget, as the newest', () => {
    const memory = new RetryMemory<Input>(stringBytes, 1024);
    memory.remember('a', { applicationId: 'app', question: 'x'.repeat(10_000) });
    assert.equal(memory.size, 1);
    memory.remember('b', { applicationId: 'app', question: 'small' });
    assert.equal(memory.get('a'), undefined);
    assert.equal(memory.get('b')?.question, 'small');
  });

  it('frees a retried or completed turn, a cleared conversation, and everything', () => {
    const memory = new RetryMemory<Input>(stringBytes);
    memory.remember('a1', { applicationId: 'a', question: 'one' });
    memory.remember('a2', { applicationId: 'a', question: 'two' });
    memory.remember('b1', { applicationId: 'b', question: 'three' });
    memory.forget('a1');
    assert.equal(memory.get('a1'), undefined);
    memory.forgetWhere((input) => input.applicationId === 'a');
    assert.equal(memory.size, 1);
    assert.equal(memory.bytes, stringBytes({ applicationId: 'b', question: 'three' }));
    memory.clear();
    assert.equal(memory.size, 0);
    assert.equal(memory.bytes, 0);
  });

  it('remembering a turn again replaces it without counting it twice', () => {
    const memory = new RetryMemory<Input>(stringBytes);
    memory.remember('t', { applicationId: 'a', question: 'x'.repeat(100) });
    memory.remember('t', { applicationId: 'a', question: 'y' });
    assert.equal(memory.size, 1);
    assert.equal(memory.bytes, stringBytes({ applicationId: 'a', question: 'y' }));
  });
});
