// The renderer live, one answer shape at a time: at about 1 MiB/s, every real animation frame
// appends a sixtieth of a MiB (the way the webview bridge batches, one message per frame).
import type { CDPSession, Page } from 'playwright-core';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { longShapes } from '../test/support/shapes';
import { HeldText, type HeldPiece } from '../src/shared/answer/heldText';
import { countLines, estimatedHeight } from '../src/shared/answer/blocks';
import { waited, type BenchRow } from './core';
import { loads, sideBySide } from './load';

const MIB = 1024 * 1024;
/** The text each frame brings: about 1 MiB/s at 60 frames per second. */
const BYTES_PER_FRAME = Math.round(MIB / 60);
/** The longest a frame may take (issue #24: two frames at 60 Hz). */
const FRAME_GOAL_MS = 33;

interface LiveResult {
  /** Time inside frames (append, render, scroll into view), summed: the renderer's cost. */
  readonly renderMs: number;
  readonly wallMs: number;
  readonly frames: number;
  readonly longestFrameMs: number;
  /** The 95th percentile of the frames' times, and how many frames took longer than FRAME_GOAL_MS. */
  readonly p95FrameMs: number;
  readonly framesOver: number;
  /** The renderer's part of a frame (append and render, without the browser's layout for the scroll). */
  readonly longestRenderMs: number;
  readonly renderOnlyMs: number;
  /** The page's render worker's time in the run (0 without one): work the main thread did not do. */
  readonly workerMs: number;
  readonly longestGapMs: number;
  readonly lastByteToFinalMs: number;
  readonly equal: boolean;
  /** Groups of blocks that still waited for the view when the answer was done (rendered before comparing). */
  readonly waited: number;
}

/**
 * Runs in the page: streams `text` into a transcript styled by the real webview.css,
 * `bytesPerFrame` and one render per animation frame, following the answer to the
 * bottom as the chat view does (its AutoScroller); the last frame finishes the answer.
 */
async function streamLive(args: { text: string; bytesPerFrame: number; frameGoalMs: number }): Promise<LiveResult> {
  const root = document.getElementById('root');
  const chat = document.createElement('div');
  chat.className = 'aq-chat';
  const scroller = document.createElement('div');
  scroller.className = 'aq-transcript';
  const container = document.createElement('div');
  container.className = 'aq-answer';
  scroller.append(container);
  chat.append(scroller);
  root?.replaceChildren(chat);
  let pending: Array<() => void> = [];
  // The views' own following (at once, or at most every 100 ms while the text floods in).
  const AutoScroller = window.AQ.AutoScroller;
  if (AutoScroller === undefined) throw new Error('the bench page has no AutoScroller');
  const follow = new AutoScroller(scroller);
  // Following the answer forces the browser's layout; it is done after the render to time both.
  let rendered = false;
  const renderer = new window.AQ.IncrementalRenderer(container, {
    onRender: () => {
      rendered = true;
    },
    scheduleFrame: (callback) => void pending.push(callback),
    // Frames come one at a time: the renderer may wait for the page's render worker, if it was started.
    offThread: true,
  });
  const nextFrame = (): Promise<number> => new Promise((resolve) => requestAnimationFrame(resolve));
  let offset = 0;
  let renderMs = 0;
  let frames = 0;
  let longestFrameMs = 0;
  let longestRenderMs = 0;
  let renderOnlyMs = 0;
  let longestGapMs = 0;
  let lastByteToFinalMs = 0;
  const frameTimes: number[] = [];
  // Let the page settle (the last run's teardown) before the clock starts.
  await nextFrame();
  const workerBefore = window.AQ.renderWorkerMs?.() ?? 0;
  let previous = await nextFrame();
  const start = performance.now();
  let lastByteAt = 0;
  // After the last byte, frames go on until the renderer says the answer is all rendered.
  while (offset < args.text.length || !renderer.done) {
    const now = await nextFrame();
    longestGapMs = Math.max(longestGapMs, now - previous);
    previous = now;
    const frameStart = performance.now();
    if (offset < args.text.length) {
      renderer.append(args.text.slice(offset, offset + args.bytesPerFrame));
      offset += args.bytesPerFrame;
      if (offset >= args.text.length) {
        renderer.finish();
        lastByteAt = frameStart;
      }
    }
    const callbacks = pending;
    pending = [];
    for (const callback of callbacks) {
      callback();
    }
    const renderEnd = performance.now();
    if (rendered) {
      rendered = false;
      follow.update();
    }
    if (offset >= args.text.length && renderer.done) {
      lastByteToFinalMs = performance.now() - lastByteAt;
    }
    longestRenderMs = Math.max(longestRenderMs, renderEnd - frameStart);
    renderOnlyMs += renderEnd - frameStart;
    const frameMs = performance.now() - frameStart;
    renderMs += frameMs;
    longestFrameMs = Math.max(longestFrameMs, frameMs);
    frameTimes.push(frameMs);
    frames++;
  }
  frameTimes.sort((a, b) => a - b);
  const p95FrameMs = frameTimes[Math.min(frameTimes.length - 1, Math.floor(frameTimes.length * 0.95))] ?? 0;
  const framesOver = frameTimes.filter((ms) => ms > args.frameGoalMs).length;
  const wallMs = performance.now() - start;
  const workerMs = (window.AQ.renderWorkerMs?.() ?? 0) - workerBefore;
  // The browser's own work after the last frame (style, layout, paint of the final DOM).
  const after = await nextFrame();
  longestGapMs = Math.max(longestGapMs, after - previous);
  const waiting = container.querySelectorAll(':scope > .aq-group[style]').length;
  renderer.flush?.();
  const equal = container.innerHTML === window.AQ.renderMarkdownOnce(args.text);
  chat.remove();
  return { renderMs, wallMs, frames, longestFrameMs, p95FrameMs, framesOver, longestRenderMs, renderOnlyMs, workerMs, longestGapMs, lastByteToFinalMs, equal, waited: waiting };
}

/** The answers measured, each at `bytes` (the table at half). */
function answers(bytes: number, generated: (bytes: number) => string): Array<[string, string]> {
  const shapes = longShapes(bytes, 7);
  const all: Array<[string, string]> = [
    ['one fenced code block (TypeScript)', shapes.fence],
    ['one list', shapes.list],
    ['one table', longShapes(bytes / 2, 7).table],
    ['one paragraph without line breaks', shapes.paragraph],
    ['the generated answer (many short blocks)', generated(bytes)],
  ];
  return all.filter(([name]) => ONLY.length === 0 || ONLY.some((word) => name.includes(word)));
}

/**
 * AQ_SHAPES_PROFILE=file.cpuprofile: a CPU profile of the page in the middle run of each shape and
 * size streamed, numbered in the order they run (file-1.cpuprofile, file-2.cpuprofile, …; the bench
 * prints each file's shape size and load as it writes it).
 */
const PROFILE_FILE = process.env.AQ_SHAPES_PROFILE || undefined;
let profilesWritten = 0;

function nextProfileFile(file: string): string {
  profilesWritten += 1;
  const extension = path.extname(file);
  return `${file.slice(0, file.length - extension.length)}-${profilesWritten}${extension}`;
}

/** Only the shapes whose name has one of these words (env AQ_SHAPES, comma-separated, e.g. `list,generated`; all by default). */
const ONLY = (process.env.AQ_SHAPES ?? '').split(',').map((word) => word.trim()).filter((word) => word !== '');

function size(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** Runs per shape and size: the figures are the median of these (the machine is shared and noisy). */
const RUNS = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * The main thread's layout and style time in a run, from the browser's own counters (CDP
 * Performance.getMetrics), in ms: inside the frames and in the browser's rendering after them.
 * (Its task and script counters do not count the frames' callbacks of an evaluated script.)
 */
interface MainThread {
  readonly layoutMs: number;
  readonly styleMs: number;
}

type Streamed = LiveResult & { worstFrameMs: number; main: MainThread };

/** The browser's counters of main-thread time so far (seconds in CDP; ms here). */
async function mainThreadNow(cdp: CDPSession): Promise<MainThread> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const value = (name: string): number => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1000;
  return { layoutMs: value('LayoutDuration'), styleMs: value('RecalcStyleDuration') };
}

/** Streams `text` RUNS times; each figure is the median over the runs, `worstFrameMs` the longest frame of all. */
async function streamRuns(page: Page, text: string, load = ''): Promise<Streamed> {
  const runs: LiveResult[] = [];
  const mains: MainThread[] = [];
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  for (let run = 0; run < RUNS; run++) {
    // Each run starts from a collected heap: the last run's answer is garbage that is not this run's.
    await cdp.send('HeapProfiler.collectGarbage');
    const before = await mainThreadNow(cdp);
    const profile = run === Math.floor(RUNS / 2) && PROFILE_FILE !== undefined ? nextProfileFile(PROFILE_FILE) : undefined;
    if (profile !== undefined) await cdp.send('Profiler.enable').then(() => cdp.send('Profiler.setSamplingInterval', { interval: 200 })).then(() => cdp.send('Profiler.start'));
    runs.push(await page.evaluate(streamLive, { text, bytesPerFrame: BYTES_PER_FRAME, frameGoalMs: FRAME_GOAL_MS }));
    if (profile !== undefined) {
      const { profile: recorded } = await cdp.send('Profiler.stop');
      await writeFile(profile, JSON.stringify(recorded));
      console.error(`CPU profile of a run (${[size(text.length), load].filter((part) => part !== '').join(', ')}): ${profile}`);
    }
    const after = await mainThreadNow(cdp);
    mains.push({ layoutMs: after.layoutMs - before.layoutMs, styleMs: after.styleMs - before.styleMs });
  }
  await cdp.detach();
  const main = (key: keyof MainThread): number => median(mains.map((figures) => figures[key]));
  const at = (key: Exclude<keyof LiveResult, 'equal' | 'waited'>): number => median(runs.map((result) => result[key]));
  return {
    renderMs: at('renderMs'),
    wallMs: at('wallMs'),
    frames: at('frames'),
    longestFrameMs: at('longestFrameMs'),
    p95FrameMs: at('p95FrameMs'),
    framesOver: at('framesOver'),
    longestRenderMs: at('longestRenderMs'),
    renderOnlyMs: at('renderOnlyMs'),
    workerMs: at('workerMs'),
    longestGapMs: at('longestGapMs'),
    lastByteToFinalMs: at('lastByteToFinalMs'),
    equal: runs.every((result) => result.equal),
    waited: Math.max(...runs.map((result) => result.waited)),
    worstFrameMs: Math.max(...runs.map((result) => result.longestFrameMs)),
    main: { layoutMs: main('layoutMs'), styleMs: main('styleMs') },
  };
}

/** One of the shapes at 1 MiB, by a word of its name (see `answers`). */
function shape(word: string, generated: (bytes: number) => string): [string, string] {
  const all = longShapes(MIB, 7);
  const named: Array<[string, string]> = [
    ['one fenced code block (TypeScript)', all.fence],
    ['one list', all.list],
    ['one paragraph without line breaks', all.paragraph],
    ['the generated answer (many short blocks)', generated(MIB)],
  ];
  return named.find(([name]) => name.includes(word)) ?? named[0];
}

/**
 * The code block and the generated answer (which has many short code blocks) streamed live with
 * the page's render worker (`worker`: a page that started it) and without it, on an idle
 * machine and with one core kept busy by the bench itself (see load.ts): last byte → final DOM,
 * the longest frame, and the page's time inside frames.
 */
export async function runHighlightingBench(pages: { page: () => Promise<Page>; worker: () => Promise<Page> }, generated: (bytes: number) => string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const word of ['fenced', 'generated']) {
    const [name, text] = shape(word, generated);
    const figures: string[] = [];
    let ok = true;
    for (const { label, result } of await onEachPage(pages, (page, label) => streamRuns(page, text, label))) {
      ok &&= result.equal;
      figures.push(`${label}: ${result.lastByteToFinalMs.toFixed(0)} ms, frame ${result.longestFrameMs.toFixed(0)} ms, in frames ${result.renderOnlyMs.toFixed(0)} ms, in the worker ${result.workerMs.toFixed(0)} ms`);
    }
    rows.push({
      name: `renderer highlighting, page vs worker, ~1 MiB/s: ${name}, 1.0 MiB, median of ${RUNS} runs: last byte to final DOM, longest frame, the page's time in frames (renderer), the worker's time`,
      value: `${figures.join('; ')}; final DOM equals one-shot: ${String(ok)}`,
      goal: 'true',
      ok,
    });
  }
  rows.push(await scrollBackRow(pages));
  return rows;
}

/**
 * Runs `work` under each load (idle, then one core busy), on a fresh page that highlights on its
 * own and then on one with the render worker up, each closed after; `label` says which ("idle, page").
 */
async function onEachPage<T>(pages: { page: () => Promise<Page>; worker: () => Promise<Page> }, work: (page: Page, label: string) => Promise<T>): Promise<Array<{ label: string; result: T }>> {
  const done: Array<{ label: string; result: T }> = [];
  for (const [load, run] of loads()) {
    for (const [where, open] of [['page', pages.page], ['worker', pages.worker]] as const) {
      const page = await open();
      const label = `${load}, ${where}`;
      try {
        done.push({ label, result: await run(() => work(page, label)) });
      } finally {
        await page.close();
      }
    }
  }
  return done;
}

/** What the scroll-back row renders: the pieces the host passes over, the held groups' text, which holds the code block, and each one's estimated height (em). */
interface HeldCodeAnswer {
  readonly pieces: HeldPiece[];
  readonly texts: string[];
  readonly fenceId: number;
  readonly heights: number[];
}

/** The long code block that the scroll-back row's answer holds (TypeScript, about 100 KiB). */
function heldCodeAnswer(): HeldCodeAnswer {
  const line = 'export async function step(value: number): Promise<string> { const x = await fetch(`/api/${value}`); return x.text(); } // note\n';
  const fence = '```ts\n' + line.repeat(Math.ceil((100 * 1024) / line.length)) + '```';
  const parts = longShapes(MIB, 11).blocks.split('\n\n');
  parts.splice(Math.floor(parts.length / 3), 0, fence);
  const text = parts.join('\n\n') + '\n';
  // What the extension host passes over when all but the first 30 KB came at once.
  const held = new HeldText();
  const pieces = [...held.pass(text.slice(0, 30_000)), ...held.pass(text.slice(30_000))];
  const texts = Array.from({ length: held.heldCount }, (_, id) => held.text(id) ?? '');
  return { pieces, texts, fenceId: texts.findIndex((group) => group.includes(fence)), heights: texts.map((group) => estimatedHeight(countLines(group), group.length)) };
}

/**
 * A reader scrolls back to a part of a 1 MiB answer that waited for the view (held by the
 * extension host), which holds a 100 KiB code block: the longest frame from the scroll until the
 * block is all there and highlighted, and that time; RUNS times on the page and with the worker,
 * idle and with one core busy.
 */
async function scrollBackRow(pages: { page: () => Promise<Page>; worker: () => Promise<Page> }): Promise<BenchRow> {
  const answer = heldCodeAnswer();
  const figures: string[] = [];
  let ok = true;
  const runs = async (page: Page): Promise<ScrollBack[]> => {
    const all: ScrollBack[] = [];
    for (let i = 0; i < RUNS; i++) all.push(await page.evaluate(scrollBack, answer));
    return all;
  };
  for (const { label, result: results } of await onEachPage(pages, runs)) {
    const frames = results.map((result) => result.longestFrameMs);
    // Two frames at 60 Hz, to a frame's drift.
    ok &&= results.every((result) => result.highlighted) && median(frames) <= 34;
    figures.push(`${label}: longest frame ${median(frames).toFixed(0)} ms (worst ${Math.max(...frames).toFixed(0)}), highlighted ${median(results.map((result) => result.doneMs)).toFixed(0)} ms after the scroll`);
  }
  return {
    name: `renderer scroll-back: to a waiting part of a 1 MiB answer held back by the extension host, holding a 100 KiB TypeScript block, median of ${RUNS} runs: the longest frame until it is all there and highlighted, and when it was`,
    value: figures.join('; '),
    goal: 'all highlighted, longest frame ≤ 33 ms (median)',
    ok,
  };
}

interface ScrollBack {
  readonly longestFrameMs: number;
  readonly doneMs: number;
  readonly highlighted: boolean;
}

/**
 * In the bench's page: renders `pieces` as the host passes them, then scrolls to the group holding
 * the code block. The held groups wait in runs, in order (each element stands for data-groups of
 * them, or one), after the text the host passed over: the scroll goes to where the group is by
 * their estimated heights, the run there is split, and the group gets an element of its own (the
 * tallest that waits alone).
 */
async function scrollBack({ pieces, texts, fenceId, heights }: HeldCodeAnswer): Promise<ScrollBack> {
  const frame = (): Promise<number> => new Promise((resolve) => requestAnimationFrame((time) => resolve(time)));
  const { scrolledAnswer, heldRenderer, heldGroupOffset, heldGroupElement } = window.AQ;
  if (scrolledAnswer === undefined || heldRenderer === undefined || heldGroupOffset === undefined || heldGroupElement === undefined) throw new Error('not the bench page');
  const { scroller, out } = scrolledAnswer(600);
  try {
    const renderer = heldRenderer(out, pieces, texts);
    for (let i = 0; i < 3000 && !renderer.done; i++) await frame();
    for (let i = 0; i < 10; i++) await frame();
    const position = heldGroupOffset(scroller, out, fenceId, heights);
    if (position === undefined) throw new Error('no run of held groups holds the code block\'s group');
    const start = performance.now();
    let last = start;
    let longest = 0;
    const step = async (): Promise<void> => {
      const now = await frame();
      longest = Math.max(longest, now - last);
      last = now;
    };
    scroller.scrollTop = position;
    // The run there is split once the observer has seen the scroll: the group gets its element.
    let found = heldGroupElement(out, heights[fenceId]);
    while (found === undefined && performance.now() - start < 10_000) {
      await step();
      found = heldGroupElement(out, heights[fenceId]);
    }
    if (found === undefined) throw new Error('the code block\'s group never got an element of its own');
    const tall = found;
    // The scroll by estimated heights may leave the view a fraction of a pixel into the group before.
    scroller.scrollTop = tall.offsetTop - scroller.offsetTop;
    const keywords = (): number => tall.querySelectorAll('pre code .hljs-keyword').length;
    // Until the group is all there (its estimated height gone), and its code highlighted.
    while (performance.now() - start < 10_000 && (tall.hasAttribute('style') || keywords() === 0)) {
      await step();
    }
    return { longestFrameMs: longest, doneMs: last - start, highlighted: keywords() > 2000 };
  } finally {
    scroller.remove();
  }
}

/**
 * Streams each shape live at 1 and 2 MiB (tables 0.5 and 1 MiB), RUNS times each, in a fresh page
 * from `open` (as a webview is: warmed up, its render worker up), idle and with one core busy
 * (see load.ts); reports the medians side by side against the goals.
 */
export async function runShapeBench(open: () => Promise<Page>, generated: (bytes: number) => string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const once = answers(MIB, generated);
  const twice = answers(2 * MIB, generated);
  for (let i = 0; i < once.length; i++) {
    const [name, text] = once[i];
    const label = `renderer live ~1 MiB/s: ${name}, ${size(text.length)}, median of ${RUNS} runs, idle and with one core busy`;
    const byLoad: Array<readonly [string, BenchRow[]]> = [];
    for (const [load, run] of loads()) {
      const page = await open();
      try {
        const { one, two } = await run(async () => ({ one: await streamRuns(page, text, load), two: await streamRuns(page, twice[i][1], load) }));
        byLoad.push([load, shapeRows(label, one, two, size(twice[i][1].length), size(text.length))]);
      } finally {
        await page.close();
      }
    }
    rows.push(...sideBySide(byLoad));
  }
  return rows;
}

/** One load's rows for a shape streamed at one size (`one`) and at twice it (`two`). */
function shapeRows(label: string, one: Streamed, two: Streamed, twoSize: string, oneSize: string): BenchRow[] {
  return [
    {
      name: `${label}: last byte to final DOM`,
      value: `${one.lastByteToFinalMs.toFixed(1)} ms`,
      goal: '≤ 100 ms',
      ok: one.lastByteToFinalMs <= 100,
    },
    {
      name: `${label}: longest frame (append + render + scroll)`,
      value: `${one.longestFrameMs.toFixed(1)} ms (longest of all runs ${one.worstFrameMs.toFixed(1)} ms; renderer's part ${one.longestRenderMs.toFixed(1)} ms; 95th percentile ${one.p95FrameMs.toFixed(1)} ms; ${one.framesOver} of ${one.frames} frames over ${FRAME_GOAL_MS} ms; longest gap between frames ${one.longestGapMs.toFixed(0)} ms)`,
      goal: `≤ ${FRAME_GOAL_MS} ms`,
      ok: one.longestFrameMs <= FRAME_GOAL_MS,
    },
    {
      name: `${label}: total time inside frames / wall time (the main thread's share of the work beside the render worker's; the browser's layout and style in the whole run, by its own counters); final DOM equals one-shot`,
      value: `${one.renderMs.toFixed(0)} ms (renderer ${one.renderOnlyMs.toFixed(0)} ms, the rest the browser's layout; the worker ${one.workerMs.toFixed(0)} ms) in ${one.frames} frames / ${(one.wallMs / 1000).toFixed(1)} s (the browser's layout ${one.main.layoutMs.toFixed(0)} ms, style ${one.main.styleMs.toFixed(0)} ms), ${String(one.equal && two.equal)}${waited(Math.max(one.waited, two.waited))}`,
      goal: 'true',
      ok: one.equal && two.equal,
    },
    {
      name: `${label}: total time inside frames at ${twoSize} / at ${oneSize}`,
      value: `${(two.renderMs / one.renderMs).toFixed(2)} (${two.renderMs.toFixed(0)} ms; renderer alone ${(two.renderOnlyMs / one.renderOnlyMs).toFixed(2)}; longest frame ${two.longestFrameMs.toFixed(1)} ms, last byte to final ${two.lastByteToFinalMs.toFixed(1)} ms)`,
      goal: '≤ 2.2',
      ok: two.renderMs / one.renderMs <= 2.2,
    },
  ];
}

/** What the markup rows call in the bench's page (bench/page.ts). */
interface MarkupPage {
  buildMarkup: (html: string) => DocumentFragment | undefined;
  purifiedFragment: (html: string) => DocumentFragment;
  markupOf: (text: string) => string;
}

/**
 * Runs in the page: the renderer's markup of `text` made into nodes by the builder (markup.ts) and
 * by DOMPurify, `runs` times each, alternating; the median of each, and whether both made the same nodes.
 */
function buildAgainstPurify(args: { text: string; runs: number }): { markupChars: number; buildMs: number; purifyMs: number; same: boolean } {
  const aq = window.AQ as unknown as MarkupPage;
  const markup = aq.markupOf(args.text);
  const built: number[] = [];
  const purified: number[] = [];
  let same = true;
  for (let run = 0; run < args.runs; run++) {
    let start = performance.now();
    const a = aq.buildMarkup(markup);
    built.push(performance.now() - start);
    start = performance.now();
    const b = aq.purifiedFragment(markup);
    purified.push(performance.now() - start);
    if (run === 0) {
      const left = document.createElement('div');
      const right = document.createElement('div');
      if (a !== undefined) left.append(a);
      right.append(b);
      same = a !== undefined && left.isEqualNode(right);
    }
  }
  const middle = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  return { markupChars: markup.length, buildMs: middle(built), purifyMs: middle(purified), same };
}

/** Each shape's whole markup (1 MiB of text; the table 512 KiB) made into nodes by the builder and by DOMPurify: the sanitizing the page no longer does. */
export async function runMarkupBench(page: Page, generated: (bytes: number) => string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [name, text] of answers(MIB, generated)) {
    const result = await page.evaluate(buildAgainstPurify, { text, runs: RUNS });
    rows.push({
      name: `renderer markup, whole answer at once: ${name}, ${size(text.length)} (${size(result.markupChars)} of markup), median of ${RUNS}: built with DOM methods / sanitized by DOMPurify; same nodes`,
      value: `${result.buildMs.toFixed(1)} ms / ${result.purifyMs.toFixed(1)} ms (${(result.purifyMs / result.buildMs).toFixed(1)}×); ${String(result.same)}`,
      goal: 'true',
      ok: result.same,
    });
  }
  return rows;
}
