/**
 * `{{column}}` in a query with a cases file: where a case's value goes (in the question, a
 * `context:` path, an `expect:` value). A name is any text without braces, trimmed.
 */

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** Whether a value holds a `{{column}}`. */
export function hasPlaceholder(text: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  for (let m = PLACEHOLDER.exec(text); m !== null; m = PLACEHOLDER.exec(text)) {
    if (m[1].trim() !== '') return true;
  }
  return false;
}

/** Every `{{column}}` of a text: its name and its columns [start, end) in the text. */
export function placeholders(text: string): { readonly name: string; readonly start: number; readonly end: number }[] {
  const out: { name: string; start: number; end: number }[] = [];
  PLACEHOLDER.lastIndex = 0;
  for (let m = PLACEHOLDER.exec(text); m !== null; m = PLACEHOLDER.exec(text)) {
    const name = m[1].trim();
    if (name !== '') out.push({ name, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * The text with every `{{column}}` replaced by that column's value, in one pass (a value that holds
 * `{{…}}` itself is not read again), or the first column the values lack.
 */
export function fillPlaceholders(text: string, values: ReadonlyMap<string, string>): { readonly text: string } | { readonly missing: string } {
  let missing: string | undefined;
  PLACEHOLDER.lastIndex = 0;
  const filled = text.replace(PLACEHOLDER, (whole, raw: string) => {
    const name = raw.trim();
    if (name === '') return whole;
    const value = values.get(name);
    if (value === undefined) {
      missing ??= name;
      return whole;
    }
    return value;
  });
  return missing === undefined ? { text: filled } : { missing };
}
