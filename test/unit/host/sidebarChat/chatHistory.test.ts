import * as assert from 'node:assert/strict';
import { ChatHistory } from '../../../../src/host/sidebarChat/chatHistory';
import type { Turn } from '../../../../src/shared/protocol';

const KEY = 'aq_chat/"KEY\\never-saved-4Xz9';

/** A workspace state that keeps what it is given as JSON, as VS Code's does. */
class MemoryMemento {
  private readonly values = new Map<string, string>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string): T | undefined {
    const value = this.values.get(key);
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }
  update(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.stringify(value));
    return Promise.resolve();
  }
  raw(): string {
    return [...this.values.values()].join('\n');
  }
}

const turn = (text: string, overrides: Partial<Turn> = {}): Turn => ({
  id: `t-${text.length}`,
  role: 'assistant',
  applicationId: 'app',
  text,
  status: 'done',
  startedAt: 1,
  ...overrides,
});

describe('chat/ChatHistory masking', () => {
  it('saves a transcript with every echoed key masked, raw or JSON-escaped, and leaves the live turns alone', async () => {
    const memento = new MemoryMemento();
    const history = new ChatHistory(memento, () => [KEY]);
    history.add(turn(`the key is ${KEY}`));
    history.add(turn(`as JSON: ${JSON.stringify({ key: KEY })}`, { id: 'json', status: 'error', message: `HTTP 500: echoed ${encodeURIComponent(KEY)}` }));
    await history.save();
    const stored = memento.raw();
    for (const piece of [KEY.slice(0, 8), KEY.slice(8, 16), KEY.slice(-8), 'never-saved']) {
      assert.ok(!stored.includes(piece), `saved: ${stored}`);
    }
    assert.ok(stored.includes('••••4Xz9'));
    assert.equal(history.turns('app')[0].text, `the key is ${KEY}`);
  });

  it('masks a transcript saved before (by an older version) when it is loaded', () => {
    const memento = new MemoryMemento();
    void memento.update('applicationQuery.chatHistory', {
      app: [turn(`old ${KEY}`, { status: 'streaming' }), turn(`Bearer ${KEY}`, { id: 'b' }), turn('Bearer sk-live-abcdefgh12345678', { id: 'c', role: 'user' }), turn('The Bearer scheme', { id: 'd' })],
    });
    const turns = new ChatHistory(memento, () => [KEY]).turns('app');
    assert.equal(turns[0].text, 'old ••••4Xz9');
    assert.equal(turns[0].status, 'interrupted');
    assert.equal(turns[1].text, 'Bearer ••••4Xz9');
    // Without knowing the key, a Bearer token is still masked in what the user sent, and an answer's words stay as they were.
    assert.equal(new ChatHistory(memento).turns('app')[2].text, 'Bearer ••••5678');
    assert.equal(new ChatHistory(memento).turns('app')[3].text, 'The Bearer scheme');
  });
});
