import { highlightLanguages } from './code';
import { IncrementalRenderer } from './incremental';
import { renderMarkdownOnce } from './markdown';

/** A short answer that goes through every part of rendering: markdown, links, a table, sanitizing. */
const SAMPLE = '# Title\n\nSome **bold**, `code` and a [link](https://example.com).\n\n- one\n- two\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n> quote\n';

/**
 * Gets the renderer ready while the page is idle: the first answer would otherwise pay, in its
 * first frames, for compiling highlight.js grammars (one per language) and for the first runs of
 * markdown-it and the sanitizer. One piece per long idle period while no answer streams (see
 * STEP_IDLE_MS and QUIET_MS), so the page never waits for it.
 */
export function warmUp(schedule: (work: () => void) => void = idle): void {
  const steps: Array<() => void> = [() => void renderMarkdownOnce(SAMPLE), layOut, ...LONG_BLOCKS.map((block) => () => stream(block()))];
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

/** Text in the scripts answers often mix in, whose fonts the browser looks for on first use. */
const SCRIPTS = '\n\nÜnïcödé — 日本語、中文、한국어 🚀✅ Ελληνικά Кириллица العربية עברית हिन्दी\n\n```ts\nconst s = "日本語 🚀";\n```\n';

/**
 * Lays a rendered sample out in the page, out of sight: the first answer's first frame would
 * otherwise pay for finding the fonts (code, emoji, other scripts) and shaping text with them
 * (in the workbench, 80 ms of layout in a first frame with emoji and CJK text).
 */
function layOut(): void {
  if (document.body === null) {
    return;
  }
  const sample = document.createElement('div');
  sample.className = 'aq-answer markdown-body';
  sample.setAttribute('aria-hidden', 'true');
  sample.style.cssText = 'position:absolute;left:-10000px;top:0;width:600px;visibility:hidden;pointer-events:none';
  document.body.append(sample);
  stream(SAMPLE + SCRIPTS, sample);
  void sample.offsetHeight;
  sample.remove();
}

/** Streams `text` through a renderer (into `container`, off the page unless given). */
function stream(text: string, container: HTMLElement = document.createElement('div')): void {
  const renderer = new IncrementalRenderer(container, { scheduleFrame: (callback) => callback() });
  for (let at = 0; at < text.length; at += 4096) {
    renderer.append(text.slice(at, at + 4096));
  }
  renderer.finish();
}

/**
 * The idle time a step waits for. A step takes up to about this long in a cold page (compiling a
 * large grammar), and cannot be cut short. The browser gives idle periods this long only when no
 * frame is due (up to 50 ms); while the page draws frames they last what is left of a frame.
 */
const STEP_IDLE_MS = 40;
/**
 * How long after an answer's last text the warm-up waits. A webview opens for an answer that
 * starts at once (a new answer panel): steps run while it streamed, in the idle periods between its
 * bursts and by the timeout once used here, held up its frames (in the workbench, up to 66 ms of
 * grammars and sample answers in one idle callback while a 10 MiB answer streamed). The answer's
 * own frames compile what it uses; the rest waits for calm.
 */
const QUIET_MS = 1000;

/** When the page last took an answer's text. */
let answerAt = Number.NEGATIVE_INFINITY;

/** The page took an answer's text: no step of the warm-up runs until answers have been quiet for QUIET_MS. */
export function answerActive(): void {
  answerAt = performance.now();
}

function idle(work: () => void): void {
  if (typeof requestIdleCallback !== 'function') {
    setTimeout(work, 50);
    return;
  }
  const attempt = (deadline: IdleDeadline): void => {
    if (deadline.timeRemaining() >= STEP_IDLE_MS && performance.now() - answerAt >= QUIET_MS) {
      work();
    } else {
      requestIdleCallback(attempt);
    }
  };
  requestIdleCallback(attempt);
}
