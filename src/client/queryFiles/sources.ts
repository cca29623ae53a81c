import type { ApplicationConfig } from '../../shared/applications';
import type { BaseUrlCheck } from '../../shared/baseUrl';
import type { Environment } from '../../shared/environments';
import type { KnownNames, QueryTarget } from '../../shared/queryFile/targets';

/**
 * Where a query-file run's settings come from: the editor's reads VS Code's user settings, the
 * command line's a settings file (and its environment variables). Everything after this is one engine.
 */
export interface EngineSettings {
  applications(): { readonly applications: readonly ApplicationConfig[] };
  environments(): { readonly environments: readonly Environment[] };
  defaultTemplate(): unknown;
  /** The service a query that names no environment goes to. */
  baseUrl(): BaseUrlCheck;
  /** The service of one environment by name (empty: the base URL setting). */
  serviceFor(environment: string): BaseUrlCheck;
  headersTimeoutMs(): number;
  idleTimeoutMs(): number;
  /** How many queries go to one service at a time. */
  queryConcurrency(): number;
}

/** Where keys come from: the editor's SecretStorage, the command line's environment variables. */
export interface KeySource {
  /** The key for this application on this service, if there is one. */
  get(ref: { readonly origin: string; readonly applicationId: string }): Promise<string | undefined>;
  /** Every key known, to mask wherever one might be echoed. */
  knownSecrets(): readonly string[];
}

/** The names a query file is checked against, from the settings. */
export function knownFrom(settings: EngineSettings, currentApplication: string | undefined): KnownNames {
  return { applications: settings.applications().applications, environments: settings.environments().environments, ...(currentApplication === undefined ? {} : { currentApplication }) };
}

/** The service a target goes to, its origin (the concurrency limiter's key), or '' when the settings give none. */
export function serviceOrigin(settings: EngineSettings, target: QueryTarget): string {
  const service = target.environment === undefined ? settings.baseUrl() : settings.serviceFor(target.environment);
  return service.ok ? service.origin : '';
}
