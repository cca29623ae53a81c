// Engine settings for one loopback service, as tests and benches that run the query-file engine
// without the editor need them (the editor reads VS Code's settings, the command line a file).
import type { EngineSettings } from '../../src/client/queryFiles/sources';
import { validateBaseUrl } from '../../src/shared/baseUrl';
import { DEFAULT_TEMPLATE } from '../../src/shared/template';

/** Every query goes to `url`; these applications with the default template; no timeouts but `headersTimeoutMs`. */
export function loopbackSettings(url: string, applicationIds: readonly string[], concurrency: number, headersTimeoutMs = 60_000): EngineSettings {
  return {
    applications: () => ({ applications: applicationIds.map((id) => ({ id })) }),
    environments: () => ({ environments: [] }),
    defaultTemplate: () => DEFAULT_TEMPLATE,
    baseUrl: () => validateBaseUrl(url),
    serviceFor: () => validateBaseUrl(url),
    headersTimeoutMs: () => headersTimeoutMs,
    idleTimeoutMs: () => 0,
    queryConcurrency: () => concurrency,
  };
}
