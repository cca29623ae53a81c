/** The values a request template can use as `${name}`. */
export interface TemplateVariables {
  /** The question and the context together (see {@link composeInput}). */
  input: string;
  question: string;
  selection: string;
  /** The whole text of the current file. */
  file: string;
  fileName: string;
  languageId: string;
  /** Earlier turns of a chat, as text. */
  history: string;
}

/** The template used when neither the application nor the settings give one. */
export const DEFAULT_TEMPLATE: { query: string } = { query: '${input}' };

const KNOWN: ReadonlySet<string> = new Set<keyof TemplateVariables>([
  'input',
  'question',
  'selection',
  'file',
  'fileName',
  'languageId',
  'history',
]);

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Builds a request body from a template: a deep copy in which `${name}` is replaced inside string
 * values only (never in keys), in one pass, so text that itself contains `${file}` stays as it is.
 * Unknown `${x}` are left alone; known variables without a value become ''. The result is plain JSON
 * (values JSON cannot hold are dropped, as `JSON.stringify` would).
 */
export function renderTemplate(template: unknown, vars: Partial<TemplateVariables>): unknown {
  const values = vars as Readonly<Record<string, string | undefined>>;
  const substitute = (text: string): string =>
    text.includes('${')
      ? text.replace(PLACEHOLDER, (whole, name: string) => (KNOWN.has(name) ? (values[name] ?? '') : whole))
      : text;
  return copy(template, substitute, 0) ?? null;
}

const MAX_DEPTH = 100;

function copy(value: unknown, substitute: (text: string) => string, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return substitute(value);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) {
        return null;
      }
      if (depth >= MAX_DEPTH) {
        throw new RangeError('The request template is nested too deeply (more than 100 levels).');
      }
      if (Array.isArray(value)) {
        return value.map((item: unknown) => copy(item, substitute, depth + 1) ?? null);
      }
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const copied = copy(item, substitute, depth + 1);
        if (copied !== undefined) {
          // defineProperty, not assignment: a "__proto__" key from JSON must stay a plain property.
          Object.defineProperty(result, key, { value: copied, enumerable: true, writable: true, configurable: true });
        }
      }
      return result;
    }
    default:
      return undefined;
  }
}

/**
 * Joins a question and its context into the `${input}` text: the question, a blank line, the
 * context's label and the context in a code fence longer than any backtick run inside it.
 * Either part alone when the other is empty.
 */
export function composeInput(
  question: string,
  context: { label: string; text: string; languageId?: string } | undefined,
): string {
  const hasQuestion = question.trim() !== '';
  if (context === undefined || context.text === '') {
    return hasQuestion ? question : '';
  }
  let longestRun = 0;
  for (const run of context.text.match(/`+/g) ?? []) {
    longestRun = Math.max(longestRun, run.length);
  }
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const info = context.languageId !== undefined && /^[\w+#.-]+$/.test(context.languageId) ? context.languageId : '';
  const body = context.text.endsWith('\n') ? context.text : `${context.text}\n`;
  const label = context.label.trim() === '' ? '' : `${context.label.trim()}:\n`;
  const fenced = `${label}${fence}${info}\n${body}${fence}`;
  return hasQuestion ? `${question}\n\n${fenced}` : fenced;
}
