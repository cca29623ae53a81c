/**
 * The example New Query File writes: it runs against the given application as it is, and shows
 * every part of the format (notes, options, expectations, a question with fenced code).
 */
export function exampleQueryFile(applicationId: string | undefined): string {
  const application = applicationId ?? 'your-application-id';
  return `# Queries for ${application}

Notes before the first "##" heading are never sent. Each "##" heading starts one query; the list
right under it sets it up, and the text below the list is the question. Run one query from the
CodeLens above its heading, this whole file with "Run Query File", or every query file of the
workspace from the Testing view.

Options: application (an id or a name; several, comma-separated, run each), environment (a name
from applicationQuery.environments), context (a file of this workspace folder, e.g.
src/app.ts#L10-40; repeatable), expect (repeatable): contains "text", not contains "text",
matches /regex/i, status 200, first byte under 2s, total under 10s.

## Says hello
- application: ${application}
- expect: status 200
- expect: total under 60s

Say hello in one short sentence.

## Explains code
- application: ${application}
- expect: matches /\\w+/
- expect: first byte under 10s

What does this function return for an empty list?

\`\`\`ts
export function total(prices: number[]): number {
  return prices.reduce((sum, price) => sum + price, 0);
}
\`\`\`
`;
}
