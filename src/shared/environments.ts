import { validateBaseUrl, type BaseUrlCheck } from './baseUrl';

/** One environment of `applicationQuery.environments`: the same applications on another service. */
export interface Environment {
  readonly name: string;
  /** The base URL as written (checked when it is used, by the same rules as `applicationQuery.baseUrl`). */
  readonly baseUrl: string;
}

/** The setting that names the environments. */
export const ENVIRONMENTS_SETTING = 'applicationQuery.environments';

/**
 * Reads `applicationQuery.environments` (`{ "<name>": { "baseUrl": "https://…" } }`): the
 * environments in the order written, and what was skipped and why. Never throws.
 */
export function parseEnvironments(raw: unknown): { environments: Environment[]; problems: string[] } {
  const environments: Environment[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { environments, problems };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { environments, problems: [`${ENVIRONMENTS_SETTING} must be an object of { "name": { "baseUrl": "https://…" } }; it is ignored.`] };
  }
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const baseUrl = typeof value === 'object' && value !== null ? (value as { baseUrl?: unknown }).baseUrl : undefined;
    if (name.trim() === '') problems.push(`${ENVIRONMENTS_SETTING} has an environment without a name; it is skipped.`);
    else if (typeof baseUrl !== 'string') problems.push(`${ENVIRONMENTS_SETTING}["${name}"] has no "baseUrl" string; it is skipped.`);
    else environments.push({ name, baseUrl });
  }
  return { environments, problems };
}

/**
 * The service that requests go to: the current environment's base URL when one is selected, else
 * `applicationQuery.baseUrl`, checked by the same rules either way. A selected environment that
 * does not exist (any more) is an error that says so: requests never fall back to another service.
 */
export function serviceBase(baseUrl: string | undefined, environments: readonly Environment[], current: string): BaseUrlCheck {
  if (current === '') return validateBaseUrl(baseUrl);
  const environment = environments.find((e) => e.name === current);
  if (environment === undefined) {
    return { ok: false, message: `The environment "${current}" (applicationQuery.environment) is not in ${ENVIRONMENTS_SETTING}. Run "Select Environment…" to choose one.` };
  }
  const check = validateBaseUrl(environment.baseUrl, `${ENVIRONMENTS_SETTING}["${current}"].baseUrl`);
  return check.ok ? { ...check, environment: current } : check;
}

/** How a service is named to the user: its environment and origin, or the origin alone. */
export function serviceLabel(base: BaseUrlCheck & { ok: true }): string {
  return base.environment === undefined ? base.origin : `${base.environment} (${base.origin})`;
}
