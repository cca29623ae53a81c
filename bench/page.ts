// The renderer benchmark's page bundle: the shipped renderer plus the naive baseline and what the
// markup rows compare (bench only).
import { parseMarkdown, renderTokens } from '../src/webview/render/markdown';

export * from '../src/webview/render/index';
export { NaiveRenderer } from './naive';
export { buildMarkup } from '../src/webview/render/markup';
export { purifiedFragment } from '../src/webview/render/markdown';

/** The renderer's markup of a whole answer, before it is built or sanitized. */
export function markupOf(text: string): string {
  const env = {};
  return renderTokens(parseMarkdown(text, env), env);
}
