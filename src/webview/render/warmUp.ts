import { highlightLanguages } from './code';
import { IncrementalRenderer } from './incremental';
import { renderMarkdownOnce } from './markdown';

/** A short answer that goes through every part of rendering: markdown, links, a table, sanitizing. */
const SAMPLE = '# Title\n\nSome **bold**, `code` and a [link](https://example.com).\n\n- one\n- two\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n> quote\n';

/**
 * Gets the renderer ready while the page is idle: the first answer would otherwise pay, in its
 * first frames, for compiling highlight.js grammars (one per language) and for the first runs of
 * markdown-it and the sanitizer. One piece per idle period, so the page never waits for it.
 */
export function warmUp(schedule: (work: () => void) => void = idle): void {
  const steps: Array<() => void> = [() => void renderMarkdownOnce(SAMPLE), ...LONG_BLOCKS.map((block) => () => stream(block()))];
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

const LINE = 'word **bold** `code` [link](https://example.com) and more words';

function many(make: (i: number) => string): string {
  return Array.from({ length: 160 }, (_, i) => make(i)).join('\n') + '\n';
}

/** A long block of each kind, to stream so that the renderer's code for long blocks is compiled too. */
const LONG_BLOCKS = [
  () => many((i) => `- ${LINE} ${i}`),
  () => '| a | b |\n| - | - |\n' + many((i) => `| ${LINE} | ${i} |`),
  () => many((i) => `> ${LINE} ${i}`),
  () => many(() => LINE).replaceAll('\n', ' '),
  () => '```ts\n' + many((i) => `const v${i} = f(${i}); // ${LINE}`) + '```\n',
];

/** Streams `text` through a renderer off the page. */
function stream(text: string): void {
  const renderer = new IncrementalRenderer(document.createElement('div'), { scheduleFrame: (callback) => callback() });
  for (let at = 0; at < text.length; at += 4096) {
    renderer.append(text.slice(at, at + 4096));
  }
  renderer.finish();
}

function idle(work: () => void): void {
  if (typeof requestIdleCallback === 'function') {
    requestIdleCallback(() => work(), { timeout: 2000 });
  } else {
    setTimeout(work, 50);
  }
}
