import type { Settings } from '../config/settings';
import type { QueryService } from '../query/queryService';
import type { QueryInput, QueryOutcome } from '../query/types';
import type { KeyStore } from '../secrets/keyStore';

/**
 * What the extension exports to its own integration tests, and only when the extension host was
 * started with `AQ_TEST_HOOKS=1`. It can store a key and run a query through the real pipeline; it
 * can never read a key back.
 */
export interface TestHooks {
  setApiKey(applicationId: string, key: string): Promise<void>;
  hasApiKey(applicationId: string): Promise<boolean>;
  removeApiKey(applicationId: string): Promise<void>;
  runQuery(input: QueryInput, signal?: AbortSignal): Promise<{ text: string; outcome: QueryOutcome; statuses: number[] }>;
}

/** Builds the hooks when enabled by the environment; otherwise the extension exports nothing. */
export function testHooks(settings: Settings, keys: KeyStore, queries: QueryService): TestHooks | undefined {
  if (process.env.AQ_TEST_HOOKS !== '1') {
    return undefined;
  }
  const ref = (applicationId: string): { origin: string; applicationId: string } => {
    const base = settings.baseUrl();
    if (!base.ok) {
      throw new Error(base.message);
    }
    return { origin: base.origin, applicationId };
  };
  return {
    setApiKey: (id, key) => keys.set(ref(id), key),
    hasApiKey: (id) => keys.has(ref(id)),
    removeApiKey: (id) => keys.delete(ref(id)),
    runQuery: async (input, signal) => {
      let text = '';
      const statuses: number[] = [];
      const outcome = await queries.run(
        input,
        [{ start: () => undefined, status: (s) => void statuses.push(s), append: (t) => void (text += t), end: () => undefined }],
        { surface: 'test', notify: false, signal },
      );
      return { text, outcome, statuses };
    },
  };
}

