import { readFile } from 'node:fs/promises';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parseApplications, type ApplicationConfig } from '../shared/applications';
import { validateBaseUrl, type BaseUrlCheck } from '../shared/baseUrl';
import { parseEnvironments, serviceBase, type Environment } from '../shared/environments';
import { DEFAULT_TEMPLATE } from '../shared/template';
import type { EngineSettings } from '../client/queryFiles/sources';

/** The variable that overrides the base URL of the settings file. */
export const BASE_URL_VARIABLE = 'APPLICATION_QUERY_BASE_URL';

/** The settings the command line reads (PRODUCT.md's list), as a VS Code settings file spells them after `applicationQuery.`. */
type SettingKey = 'baseUrl' | 'environments' | 'applications' | 'requestTemplate' | 'queryFiles.concurrency';

/** What a settings file says, before the environment and flags add theirs. */
export interface SettingsValues {
  readonly baseUrl?: string;
  readonly environments: readonly Environment[];
  readonly applications: readonly ApplicationConfig[];
  readonly requestTemplate?: unknown;
  readonly concurrency?: number;
  /** What was skipped and why (an entry the settings schema would reject). */
  readonly problems: readonly string[];
}

/** Why a settings file cannot be used: one line that says so. */
export class SettingsError extends Error {}

/**
 * Reads the `applicationQuery.*` keys of a VS Code settings file (JSON with comments and trailing
 * commas); every other key is ignored. Throws a {@link SettingsError} for a file that cannot be
 * read or parsed, or a value of the wrong type.
 */
export async function readSettingsFile(file: string): Promise<SettingsValues> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SettingsError(`The settings file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  return parseSettings(text, file);
}

/** The `applicationQuery.*` values of a settings file's text (see {@link readSettingsFile}). */
export function parseSettings(text: string, file: string): SettingsValues {
  // VS Code's settings files are JSON with comments and trailing commas.
  const errors: ParseError[] = [];
  const source = text.replace(/^\uFEFF/, '');
  const raw: unknown = parseJsonc(source, errors, { allowTrailingComma: true });
  if (errors.length > 0) {
    const { error, offset } = errors[0];
    const before = source.slice(0, offset).split('\n');
    throw new SettingsError(`The settings file ${file} is not valid JSON: ${printParseErrorCode(error)} at line ${before.length}, column ${before[before.length - 1].length + 1}.`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SettingsError(`The settings file ${file} must hold an object of settings.`);
  const all = raw as Record<string, unknown>;
  const value = (key: SettingKey): unknown => all[`applicationQuery.${key}`];
  const baseUrl = value('baseUrl');
  if (baseUrl !== undefined && typeof baseUrl !== 'string') throw new SettingsError(`${file}: applicationQuery.baseUrl must be a string.`);
  const template = value('requestTemplate');
  if (template !== undefined && (typeof template !== 'object' || template === null)) throw new SettingsError(`${file}: applicationQuery.requestTemplate must be a JSON object or array.`);
  const concurrency = value('queryFiles.concurrency');
  if (concurrency !== undefined && (typeof concurrency !== 'number' || !Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16)) {
    throw new SettingsError(`${file}: applicationQuery.queryFiles.concurrency must be a whole number from 1 to 16.`);
  }
  const rawApplications = value('applications');
  if (rawApplications !== undefined && !Array.isArray(rawApplications)) throw new SettingsError(`${file}: applicationQuery.applications must be an array of { "id": … }.`);
  const applications = parseApplications(rawApplications);
  const environments = parseEnvironments(value('environments'));
  return {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    environments: environments.environments,
    applications: applications.applications,
    ...(template === undefined ? {} : { requestTemplate: template }),
    ...(concurrency === undefined ? {} : { concurrency }),
    problems: [...applications.problems, ...environments.problems].map((problem) => `${file}: ${problem}`),
  };
}

/** Response-headers and idle timeouts: the editor's defaults (the command line reads no timeout settings). */
const HEADERS_TIMEOUT_MS = 60_000;
const IDLE_TIMEOUT_MS = 120_000;
/** The editor's default of `applicationQuery.queryFiles.concurrency`. */
export const DEFAULT_CONCURRENCY = 4;

/** The command line's settings: the file's values, the base URL variable over the file's base URL, `--env` and `--concurrency` over the file. */
export class CliSettings implements EngineSettings {
  constructor(
    private readonly values: SettingsValues,
    private readonly options: { readonly baseUrl?: string; readonly environment: string; readonly concurrency?: number },
  ) {}

  applications(): { applications: readonly ApplicationConfig[] } {
    return { applications: this.values.applications };
  }

  environments(): { environments: readonly Environment[] } {
    return { environments: this.values.environments };
  }

  defaultTemplate(): unknown {
    return this.values.requestTemplate ?? DEFAULT_TEMPLATE;
  }

  /** The service of queries that name no environment: `--env`'s, else the base URL. */
  baseUrl(): BaseUrlCheck {
    return this.serviceFor(this.options.environment);
  }

  serviceFor(environment: string): BaseUrlCheck {
    const base = this.options.baseUrl ?? this.values.baseUrl;
    if (environment === '' && base === undefined) return { ok: false, message: `No base URL: set applicationQuery.baseUrl in the --settings file, or ${BASE_URL_VARIABLE}.` };
    if (environment === '' && this.options.baseUrl !== undefined) return validateBaseUrl(this.options.baseUrl, BASE_URL_VARIABLE);
    return serviceBase(base, this.values.environments, environment);
  }

  headersTimeoutMs(): number {
    return HEADERS_TIMEOUT_MS;
  }

  idleTimeoutMs(): number {
    return IDLE_TIMEOUT_MS;
  }

  queryConcurrency(): number {
    return this.options.concurrency ?? this.values.concurrency ?? DEFAULT_CONCURRENCY;
  }
}
