import type { Settings } from '../config/settings';
import type { AnswerChannel } from '../output/outputChannelSink';
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
  /**
   * Runs a query into the real "Application Query" output channel (as the outputChannel setting
   * does), or into nothing at all (a baseline for the benchmark: the pipeline without a sink).
   */
  runQueryInto(target: 'outputChannel' | 'nowhere', input: QueryInput): Promise<QueryOutcome>;
}

/** Builds the hooks when enabled by the environment; otherwise the extension exports nothing. */
export function testHooks(settings: Settings, keys: KeyStore, queries: QueryService, channel: AnswerChannel): TestHooks | undefined {
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
    runQueryInto: (target, input) => {
      const sink = target === 'outputChannel' ? channel.sink() : { start: () => undefined, status: () => undefined, append: () => undefined, end: () => undefined };
      return queries.run(input, [sink], { surface: 'test', notify: false });
    },
  };
}

