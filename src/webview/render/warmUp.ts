import { highlightLanguages } from './code';
import { renderMarkdownOnce } from './markdown';

/** A short answer that goes through every part of rendering: markdown, links, a table, sanitizing. */
const SAMPLE = '# Title\n\nSome **bold**, `code` and a [link](https://example.com).\n\n- one\n- two\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n> quote\n';

/**
 * Gets the renderer ready while the page is idle: the first answer would otherwise pay, in its
 * first frames, for compiling highlight.js grammars (one per language) and for the first runs of
 * markdown-it and the sanitizer. One piece per idle period, so the page never waits for it.
 */
export function warmUp(schedule: (work: () => void) => void = idle): void {
  const steps: Array<() => void> = [() => void renderMarkdownOnce(SAMPLE)];
  for (const language of highlightLanguages()) {
    steps.push(() => void renderMarkdownOnce('```' + language + '\nconst x = "a" + 1; // b\n```\n'));
  }
  const next = (): void => {
    steps.shift()?.();
    if (steps.length > 0) {
      schedule(next);
    }
  };
  schedule(next);
}

function idle(work: () => void): void {
  if (typeof requestIdleCallback === 'function') {
    requestIdleCallback(() => work(), { timeout: 2000 });
  } else {
    setTimeout(work, 50);
  }
}
