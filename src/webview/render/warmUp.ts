import { h } from '../dom';
import { highlightLanguages } from './code';
import { IncrementalRenderer } from './incremental';
import { renderMarkdownOnce } from './markdown';

/** A short answer that goes through every part of rendering: markdown, links, a table, sanitizing. */
const SAMPLE = '# Title\n\nSome **bold**, `code` and a [link](https://example.com).\n\n- one\n- two\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n> quote\n';

/**
 * Gets the renderer ready while the page is idle: the first answer would otherwise pay, in its
 * first frames, for the fonts its text is set in (see FONT_SAMPLES), for compiling highlight.js
 * grammars (one per language) and for the first runs of markdown-it and the sanitizer. The fonts
 * come first and at once, one small sample per idle period; the rest one piece per long idle
 * period while no answer streams (see STEP_IDLE_MS and QUIET_MS), so the page never waits for it.
 */
export function warmUp(schedule: (work: () => void) => void = idle, scheduleFonts: (work: () => void) => void = fontIdle): void {
  const steps: Array<() => void> = [() => void renderMarkdownOnce(SAMPLE), layOut, ...LONG_BLOCKS.map((block) => () => stream(block()))];
  for (const language of highlightLanguages()) {
    steps.push(() => void renderMarkdownOnce('```' + language + '\nconst x = "a" + 1; // b\n```\n'));
  }
  run(steps, schedule);
  run(FONT_SAMPLES.map((sample) => () => layOutOfSight('fonts', (box) => box.append(sample()))), scheduleFonts);
}

/** Runs `steps` in order, each when `schedule` says. */
function run(steps: Array<() => void>, schedule: (work: () => void) => void): void {
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

/** Lays the rendered sample answer out in the page, out of sight: the renderer's code that places and follows text runs once. */
function layOut(): void {
  layOutOfSight('answer', (box) => stream(SAMPLE, box));
}

/**
 * Lays out what `fill` puts in an answer's box, out of sight (laid out as answers are, never seen,
 * never read out), and takes the box out again in the same task: what the browser found stays
 * found, and nothing looking for answers in the page ever sees it. `kind` names it (`data-warm-up`).
 */
function layOutOfSight(kind: 'answer' | 'fonts', fill: (box: HTMLElement) => void): void {
  if (document.body === null) {
    return;
  }
  const box = h('div', { className: 'aq-answer markdown-body', attrs: { 'aria-hidden': 'true', 'data-warm-up': kind } });
  box.style.cssText = 'position:absolute;left:-10000px;top:0;width:600px;visibility:hidden;pointer-events:none';
  document.body.append(box);
  fill(box);
  void box.offsetHeight;
  box.remove();
}

/** A code block as the renderer makes it, holding `parts`. */
function codeBlock(...parts: Array<Node | string>): HTMLElement {
  return h('div', { className: 'aq-code' }, h('div', { className: 'aq-code-actions' }, h('span', { className: 'aq-code-lang', text: 'ts' })), h('pre', {}, h('code', { className: 'hljs language-ts' }, h('span', { className: 'aq-code-chunk' }, ...parts))));
}

const TEXT = 'Text ünïcödé — “quoted” … 12:30';
const CJK = '日本語、中文、한국어';
const EMOJI = '🚀✅⚠️';

/**
 * What an answer's text is set in, one sample a step: each typeface at each size and weight the
 * answer's markup gives it (webview.css), then the scripts answers often mix in. The first time a
 * page lays out text in a font at a size, the browser asks its own process, synchronously, how to
 * render it (and for a script the page's fonts lack, which font has it, and loads that font). In
 * the workbench the webview shares its process's main thread with the whole workbench: an
 * answer's first frame waited for each such answer, and its layout took many times as long as
 * later frames' (`npm run bench workbench`, first text painted). Laid out one at a time while
 * the page is idle, before an answer comes, no frame of an answer waits for them, and no step of
 * the warm-up takes more than one or two such waits.
 */
const FONT_SAMPLES: ReadonlyArray<() => Node> = [
  () => h('p', { text: TEXT }),
  () => h('p', {}, h('strong', { text: TEXT })),
  () => h('p', {}, h('em', { text: TEXT })),
  () => h('p', {}, h('code', { text: TEXT })),
  ...(['h1', 'h2', 'h3', 'h4'] as const).map((tag) => () => h(tag, { text: TEXT })),
  () => codeBlock(h('span', { className: 'hljs-keyword', text: 'const' }), ' x = 1;\n'),
  () => codeBlock(h('span', { className: 'hljs-comment', text: '// ' + TEXT }), '\n'),
  () => h('p', { text: CJK }),
  () => h('p', { text: EMOJI }),
  () => h('h2', { text: `${CJK} ${EMOJI}` }),
  () => codeBlock(`"${CJK} ${EMOJI}"\n`),
  () => h('p', { text: 'Ελληνικά Кириллица' }),
  () => h('p', { text: 'العربية' }),
  () => h('p', { text: 'עברית' }),
  () => h('p', { text: 'हिन्दी' }),
];

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
 * bursts and by the timeout once used here, held up its frames (in the workbench, grammars and
 * sample answers in one idle callback while a long answer streamed). The answer's
 * own frames compile what it uses; the rest waits for calm.
 */
const QUIET_MS = 1000;

/**
 * The idle time a font sample waits for: one sample takes a layout of a few layout objects, and at
 * most one or two of the browser's font answers (see FONT_SAMPLES): short, but not always.
 */
const FONT_IDLE_MS = 10;

/** When the page last took an answer's text. */
let answerAt = Number.NEGATIVE_INFINITY;

/** The page took an answer's text: no step of the warm-up runs until answers have been quiet for QUIET_MS. */
export function answerActive(): void {
  answerAt = performance.now();
}

function idle(work: () => void): void {
  whenIdle(work, STEP_IDLE_MS, () => performance.now() - answerAt >= QUIET_MS);
}

/** Font samples run in any idle period long enough, answers or not: they are small, and the sooner the better. */
function fontIdle(work: () => void): void {
  whenIdle(work, FONT_IDLE_MS, () => true);
}

/** Runs `work` in the first idle period of at least `leastMs` in which `may()` says so. */
function whenIdle(work: () => void, leastMs: number, may: () => boolean): void {
  if (typeof requestIdleCallback !== 'function') {
    setTimeout(work, 50);
    return;
  }
  const attempt = (deadline: IdleDeadline): void => {
    if (deadline.timeRemaining() >= leastMs && may()) {
      work();
    } else {
      requestIdleCallback(attempt);
    }
  };
  requestIdleCallback(attempt);
}
