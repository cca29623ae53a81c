/**
 * JSON with comments and trailing commas (VS Code's settings files) turned into plain JSON for
 * `JSON.parse`, in one pass: `//` and `/* … *\/` comments outside strings become spaces (so
 * positions in JSON.parse's messages still point at the same place), and a comma followed only by
 * white space or comments before `}` or `]` is dropped.
 */
export function jsoncToJson(text: string): string {
  const out: string[] = [];
  let i = 0;
  /** Index in `out` of the last comma written outside a string, while only blanks followed it. */
  let pendingComma = -1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      out.push(text.slice(i, end));
      pendingComma = -1;
      i = end;
    } else if (ch === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      out.push(' '.repeat(stop - i));
      i = stop;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out.push(text.slice(i, stop).replace(/[^\n]/g, ' '));
      i = stop;
    } else {
      if (ch === '}' || ch === ']') {
        if (pendingComma !== -1) out[pendingComma] = ' ';
        pendingComma = -1;
      } else if (ch === ',') {
        pendingComma = out.length;
      } else if (!/\s/.test(ch)) {
        pendingComma = -1;
      }
      out.push(ch);
      i++;
    }
  }
  return out.join('');
}

/** Where the JSON string that opens at `start` ends (after its closing quote, or at the end of the text). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === '\\') i += 2;
    else if (text[i] === '"') return i + 1;
    else i++;
  }
  return text.length;
}
