import { applicationLabel, validateApplicationId, type ApplicationConfig, type ResponseFormat } from './applications';
import { queryUrl, type BaseUrlCheck } from './baseUrl';
import type { Remedy } from './outcome';
import { composeInput, renderTemplate } from './template';
import { serviceLabel } from './environments';

/** The context sent with a question: a selection, a whole file, or several merged (chat attachments). */
export interface QueryContext {
  readonly kind: 'selection' | 'file';
  /** What the user sees, e.g. `app.ts:10-24` or `app.ts`. */
  readonly label: string;
  readonly text: string;
  readonly fileName: string;
  readonly languageId: string;
  /** The whole file's text, for `${file}` (also when the context is a selection). */
  readonly fileText: string;
}

/** Everything a surface gives to send one query. */
export interface QueryInput {
  readonly applicationId: string;
  readonly question: string;
  readonly context?: QueryContext;
  /** Prior turns as text, for `${history}`. */
  readonly history?: string;
  /** A recorded request body (JSON text) to send again exactly as it was, instead of rendering the template (Replay). */
  readonly recordedBody?: string;
}

/** What `prepare` reads from the settings, already parsed. */
export interface PrepareConfig {
  readonly applications: readonly ApplicationConfig[];
  readonly defaultTemplate: unknown;
  readonly baseUrl: BaseUrlCheck;
  /** A body longer than this (in characters) is sent only after the user confirms. */
  readonly confirmAboveChars: number;
}

/** A request ready to send (the key is added by the runner, which reads it from SecretStorage). */
export interface PreparedRequest {
  readonly ok: true;
  readonly applicationId: string;
  readonly label: string;
  readonly origin: string;
  /** The service as the user knows it: its environment and origin, or the origin. */
  readonly service: string;
  /** The environment's name, when the request goes to one (else `applicationQuery.baseUrl`). */
  readonly environment?: string;
  readonly baseUrl: string;
  readonly url: string;
  /** The rendered body, parsed (what `sendQuery` serialises) and as JSON text (what the history shows). */
  readonly body: unknown;
  readonly bodyText: string;
  readonly responseFormat: ResponseFormat;
  readonly responseField?: string;
  /** Set when the body is larger than the confirmation threshold: the question to ask first. */
  readonly confirm?: string;
}

/** Why a query cannot be sent, with what would fix it. Nothing was sent. */
export interface Refusal {
  readonly ok: false;
  readonly applicationId: string;
  readonly label: string;
  readonly message: string;
  readonly remedies: readonly Remedy[];
}

/** The default confirmation threshold: half a million characters, whichever surface sends them. */
export const CONFIRM_ABOVE_CHARS = 512 * 1024;

/**
 * Resolves the application, checks the base URL, renders the template and measures the body: the
 * pure first step of every query, from every surface. Never throws: anything that would stop the
 * request is a {@link Refusal} that says why and what to do.
 */
export function prepare(input: QueryInput, config: PrepareConfig): PreparedRequest | Refusal {
  const app = config.applications.find((candidate) => candidate.id === input.applicationId);
  const label = app === undefined ? input.applicationId : applicationLabel(app);
  const refuse = (message: string, remedies: readonly Remedy[]): Refusal => ({ ok: false, applicationId: input.applicationId, label, message, remedies });
  const idProblem = validateApplicationId(input.applicationId);
  if (idProblem !== undefined) {
    return refuse(`${idProblem} Fix it in applicationQuery.applications.`, ['checkApplications']);
  }
  if (app === undefined) {
    return refuse(`The application "${input.applicationId}" is not in applicationQuery.applications. Add it with "Add Application…".`, ['addApplication']);
  }
  if (!config.baseUrl.ok) {
    return refuse(config.baseUrl.message, ['openBaseUrlSetting']);
  }
  const context = input.context;
  let body: unknown;
  let bodyText: string;
  try {
    ({ body, bodyText } = input.recordedBody !== undefined ? parseRecorded(input.recordedBody) : render(app, input, config.defaultTemplate));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (input.recordedBody !== undefined) return refuse(`The recorded request body is not valid JSON (${reason}); it cannot be replayed.`, []);
    return refuse(`The request template of ${label} cannot be used: ${reason}`, ['checkApplications']);
  }
  const prepared: PreparedRequest = {
    ok: true,
    applicationId: app.id,
    label,
    origin: config.baseUrl.origin,
    service: serviceLabel(config.baseUrl),
    ...(config.baseUrl.environment === undefined ? {} : { environment: config.baseUrl.environment }),
    baseUrl: config.baseUrl.normalized,
    url: queryUrl(config.baseUrl.normalized, app.id),
    body,
    bodyText,
    responseFormat: app.responseFormat ?? 'auto',
    responseField: app.responseField,
  };
  if (bodyText.length > config.confirmAboveChars) {
    const size = `${Math.round(bodyText.length / 1024).toLocaleString('en-US')} K characters`;
    const what = context === undefined ? 'The request' : `The request with ${context.label}`;
    return { ...prepared, confirm: `${what} is large (${size}). Send it to ${label}?` };
  }
  return prepared;
}

/** The body from the application's template (or the default one); throws on a template it cannot use. */
function render(app: ApplicationConfig, input: QueryInput, defaultTemplate: unknown): { body: unknown; bodyText: string } {
  const context = input.context;
  const body = renderTemplate(app.requestTemplate ?? defaultTemplate, {
    input: composeInput(input.question, context),
    question: input.question,
    selection: context?.kind === 'selection' ? context.text : '',
    file: context?.fileText ?? '',
    fileName: context?.fileName ?? '',
    languageId: context?.languageId ?? '',
    history: input.history ?? '',
  });
  return { body, bodyText: JSON.stringify(body ?? {}) ?? '{}' };
}

/** A recorded body, sent again byte for byte; throws when it is not JSON. */
function parseRecorded(bodyText: string): { body: unknown; bodyText: string } {
  return { body: JSON.parse(bodyText) as unknown, bodyText };
}
