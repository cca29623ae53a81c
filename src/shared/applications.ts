/** How an application's answer stream is framed; `auto` detects it. */
export type ResponseFormat = 'auto' | 'text' | 'sse' | 'ndjson';

/** One entry of `applicationQuery.applications`, checked. */
export interface ApplicationConfig {
  readonly id: string;
  readonly name?: string;
  readonly requestTemplate?: Record<string, unknown>;
  readonly responseFormat?: ResponseFormat;
  readonly responseField?: string;
}

const RESPONSE_FORMATS: readonly string[] = ['auto', 'text', 'sse', 'ndjson'];
const MAX_ID_LENGTH = 200;
/** Half of a surrogate pair without its other half: such text cannot be URL-encoded. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Reads `applicationQuery.applications` tolerantly: a bad entry is skipped (a bad optional field is
 * dropped) with one problem message each, and a repeated id keeps its first entry.
 */
export function parseApplications(raw: unknown): { applications: ApplicationConfig[]; problems: string[] } {
  const applications: ApplicationConfig[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw === null) {
    return { applications, problems };
  }
  if (!Array.isArray(raw)) {
    problems.push('applicationQuery.applications must be an array of { "id": "…", "name": "…" } objects.');
    return { applications, problems };
  }
  const seen = new Set<string>();
  raw.forEach((entry: unknown, index) => {
    const where = `applicationQuery.applications[${index}]`;
    if (!isPlainObject(entry)) {
      problems.push(`${where} is not an object with an "id"; it is ignored.`);
      return;
    }
    const id = entry['id'];
    if (typeof id !== 'string') {
      problems.push(`${where} has no "id" string; it is ignored.`);
      return;
    }
    const idProblem = validateApplicationId(id);
    if (idProblem !== undefined) {
      problems.push(`${where}: ${idProblem} The entry is ignored.`);
      return;
    }
    if (seen.has(id)) {
      problems.push(`${where} repeats the id "${id}"; only the first entry with that id is used.`);
      return;
    }
    seen.add(id);
    const app: { -readonly [K in keyof ApplicationConfig]: ApplicationConfig[K] } = { id };
    const { name, requestTemplate, responseFormat, responseField } = entry;
    if (name !== undefined) {
      if (typeof name === 'string') {
        if (name.trim() !== '') {
          app.name = name.trim();
        }
      } else {
        problems.push(`${where}: "name" must be a string; it is ignored.`);
      }
    }
    if (requestTemplate !== undefined) {
      if (isPlainObject(requestTemplate)) {
        app.requestTemplate = requestTemplate;
      } else {
        problems.push(`${where}: "requestTemplate" must be a JSON object; the default template is used.`);
      }
    }
    if (responseFormat !== undefined) {
      if (typeof responseFormat === 'string' && RESPONSE_FORMATS.includes(responseFormat)) {
        app.responseFormat = responseFormat as ResponseFormat;
      } else {
        problems.push(`${where}: "responseFormat" must be one of ${RESPONSE_FORMATS.join(', ')}; "auto" is used.`);
      }
    }
    if (responseField !== undefined) {
      if (typeof responseField === 'string' && responseField.trim() !== '') {
        app.responseField = responseField.trim();
      } else {
        problems.push(`${where}: "responseField" must be a non-empty string; it is ignored.`);
      }
    }
    applications.push(app);
  });
  return { applications, problems };
}

/**
 * Checks an application id. Any printable text is allowed (it is URL-encoded in the path); refused:
 * empty, spaces around it, control characters, longer than 200, and `.`/`..` (URL parsers would
 * treat them as path steps and the request would reach another endpoint).
 */
export function validateApplicationId(id: string): string | undefined {
  if (id.trim() === '') {
    return 'The application id is empty.';
  }
  if (id.trim() !== id) {
    return 'The application id starts or ends with spaces; remove them.';
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id)) {
    return 'The application id contains control characters (line breaks, tabs…).';
  }
  if (LONE_SURROGATE.test(id)) {
    return 'The application id is not well-formed Unicode (it holds a lone surrogate).';
  }
  if (id.length > MAX_ID_LENGTH) {
    return `The application id is longer than ${MAX_ID_LENGTH} characters.`;
  }
  if (id === '.' || id === '..') {
    return `"${id}" cannot be an application id.`;
  }
  return undefined;
}

/** An application's short name: its name, or its id when it has none (status bar, pickers, model names). */
export function applicationName(app: ApplicationConfig): string {
  const name = app.name?.trim();
  return name === undefined || name === '' ? app.id : name;
}

/** How an application is shown to the user: `Name (id)`, or the id alone. */
export function applicationLabel(app: ApplicationConfig): string {
  const name = app.name?.trim();
  return name === undefined || name === '' || name === app.id ? app.id : `${name} (${app.id})`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
