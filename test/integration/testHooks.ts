import type * as vscode from 'vscode';
import type { QueryOutcome } from '../../src/shared/outcome';
import type { QueryInput } from '../../src/shared/prepare';
import { HistoryStore, type Exchange } from '../../src/client/history';
import { setApiKeyFlow } from '../../src/host/commands/keyCommands';
import { compose, type ExtensionParts } from '../../src/extension';
import { historyStorage } from '../../src/host/history';
import type { QuerySink } from '../../src/host/query/types';

/**
 * What the test build of the extension exports to the integration suite and the extension-host
 * benchmark. It lives beside the tests and is bundled into `out/test-extension/` only, never into
 * the product: it can store a key and run a query through the real pipeline; it can never read a key back.
 */
export interface TestHooks {
  setApiKey(applicationId: string, key: string): Promise<void>;
  hasApiKey(applicationId: string): Promise<boolean>;
  removeApiKey(applicationId: string): Promise<void>;
  runQuery(input: QueryInput, signal?: AbortSignal): Promise<{ text: string; outcome: QueryOutcome; statuses: number[] }>;
  /**
   * Runs a query into the real "Application Query" output channel (as the outputChannel setting
   * does), or into nothing at all (a baseline for the benchmark: the pipeline without a sink).
   */
  runQueryInto(target: 'outputChannel' | 'nowhere', input: QueryInput): Promise<QueryOutcome>;
  /**
   * Set API Key… for `applicationId` with `key` typed into the password box, running `whilePrompting`
   * while the box is open (e.g. to change the base URL meanwhile).
   */
  setApiKeyWhilePrompting(applicationId: string, key: string, whilePrompting: () => Promise<void>): Promise<void>;
  /** History as stored in the extension's global state (the JSON a reloaded window reads back). */
  storedHistory(): { json: string; reloaded: readonly Exchange[] };
}

const NOWHERE: QuerySink = { start: () => undefined, status: () => undefined, append: () => undefined, end: () => undefined };

/** The test build's `activate`: the product's composition, plus the hooks. */
export function activate(context: vscode.ExtensionContext): TestHooks {
  return testHooks(compose(context), context);
}

/** The product's `deactivate`. */
export { deactivate } from '../../src/extension';

function testHooks({ settings, keys, runner, channel, current, log }: ExtensionParts, context: vscode.ExtensionContext): TestHooks {
  const ref = (applicationId: string): { origin: string; applicationId: string } => {
    const base = settings.baseUrl();
    if (!base.ok) throw new Error(base.message);
    return { origin: base.origin, applicationId };
  };
  return {
    setApiKey: (id, key) => keys.set(ref(id), key),
    hasApiKey: (id) => keys.has(ref(id)),
    removeApiKey: (id) => keys.delete(ref(id)),
    runQuery: async (input, signal) => {
      let text = '';
      const statuses: number[] = [];
      const sink: QuerySink = { start: () => undefined, status: (s) => void statuses.push(s), append: (t) => void (text += t), end: () => undefined };
      const outcome = await runner.run(input, [sink], { surface: 'command', signal });
      return { text, outcome, statuses };
    },
    runQueryInto: (target, input) => runner.run(input, [target === 'outputChannel' ? channel.sink() : NOWHERE], { surface: 'command' }),
    setApiKeyWhilePrompting: (applicationId, key, whilePrompting) =>
      setApiKeyFlow({ settings, keys, current, log }, settings.resolve(applicationId) ?? { id: applicationId }, async () => {
        await whilePrompting();
        return key;
      }),
    storedHistory: () => {
      const storage = historyStorage(context);
      // A new store over the same storage reads what a reloaded window would.
      return { json: JSON.stringify(storage.get() ?? null), reloaded: new HistoryStore(storage).list() };
    },
  };
}
