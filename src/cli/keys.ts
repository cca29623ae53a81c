import { validateApiKey } from '../shared/apiKey';
import type { KeySource } from '../client/queryFiles/sources';

/** The variable every application's key may come from when it has none of its own. */
export const SHARED_KEY_VARIABLE = 'APPLICATION_QUERY_KEY';

/** The variable that holds one application's key: `APPLICATION_QUERY_KEY_` and the id upper-cased, every character outside A–Z and 0–9 as `_`. */
export function keyVariable(applicationId: string): string {
  return `${SHARED_KEY_VARIABLE}_${applicationId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Keys from the process environment only (never a file, a flag or the repository): an
 * application's own variable, else the shared one. A build machine has one key per application
 * whatever the service, as its secrets store holds them.
 */
export class EnvironmentKeys implements KeySource {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Which variable gives this application's key, or undefined when none is set. */
  variableFor(applicationId: string): string | undefined {
    const own = keyVariable(applicationId);
    if (this.env[own] !== undefined && this.env[own] !== '') return own;
    if (this.env[SHARED_KEY_VARIABLE] !== undefined && this.env[SHARED_KEY_VARIABLE] !== '') return SHARED_KEY_VARIABLE;
    return undefined;
  }

  /** Why this application cannot be queried with the environment's keys (no key, or one that cannot be sent); names variables, never a key. */
  problem(applicationId: string): string | undefined {
    const variable = this.variableFor(applicationId);
    if (variable === undefined) return `No API key for ${applicationId}: set ${keyVariable(applicationId)} (or ${SHARED_KEY_VARIABLE}) in the environment.`;
    const invalid = validateApiKey(this.env[variable] ?? '');
    return invalid === undefined ? undefined : `${variable}: ${invalid}`;
  }

  get(ref: { readonly applicationId: string }): Promise<string | undefined> {
    const variable = this.variableFor(ref.applicationId);
    return Promise.resolve(variable === undefined ? undefined : this.env[variable]);
  }

  /** Every key in the environment, to mask wherever one might be echoed. */
  knownSecrets(): readonly string[] {
    return Object.entries(this.env)
      .filter(([name, value]) => (name === SHARED_KEY_VARIABLE || name.startsWith(`${SHARED_KEY_VARIABLE}_`)) && value !== undefined && value !== '')
      .map(([, value]) => value as string);
  }
}
