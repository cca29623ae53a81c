// The renderer live, one answer shape at a time: at about 1 MiB/s, every real animation frame
// appends a sixtieth of a MiB (the way the webview bridge batches, one message per frame). The
// renderer renders in the page's own frame loop (render/frames.ts: a shared budget per frame), as
// in the webview; the bench times every animation-frame callback of the page.
import type { CDPSession, Page } from 'playwright-core';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { longShapes } from '../test/support/shapes';
import type { BenchRow } from './core';
import { loads, sideBySide } from './load';

const MIB = 1024 * 1024;
/** The text each frame brings: about 1 MiB/s at 60 frames per second. */
const BYTES_PER_FRAME = Math.round(MIB / 60);
/** The longest a frame may take (issue #24: two frames at 60 Hz). */
const FRAME_GOAL_MS = 33;

interface LiveResult {
  /** Time inside frames (append, the renderer's frame, following into view), summed: the renderer's cost. */
  readonly renderMs: number;
  readonly wallMs: number;
  readonly frames: number;
  readonly longestFrameMs: number;
  /** The 95th percentile of the frames' times, and how many frames took longer than FRAME_GOAL_MS. */
  readonly p95FrameMs: number;
  readonly framesOver: number;
  /** The renderer's part of a frame (append and render, without following into view: the browser's layout for the scroll). */
  readonly longestRenderMs: number;
  readonly renderOnlyMs: number;
  readonly longestGapMs: number;
  readonly lastByteToFinalMs: number;
  readonly equal: boolean;
  /** Where the final DOM first differs from the one-shot render (empty: nowhere). */
  readonly difference: string;
}

/**
 * Runs in the page: streams `text` into a transcript styled by the real webview.css,
 * `bytesPerFrame` per animation frame, following the answer to the bottom after each render as
 * the chat view does (its AutoScroller, from the renderer's onRender); the last frame finishes the
 * answer. The renderer runs in the page's frame loop (its default scheduling); every
 * animation-frame callback is timed and summed per frame, with the frame's append.
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
  const realRaf = window.requestAnimationFrame.bind(window);
  // Every animation-frame callback of the page (the renderers' frame loop, the scroller's), timed per frame.
  const work = new Map<number, number>();
  const scrolling = new Map<number, number>();
  const add = (into: Map<number, number>, frame: number, ms: number): void => void into.set(frame, (into.get(frame) ?? 0) + ms);
  let current = 0;
  window.requestAnimationFrame = (callback) =>
    realRaf((frame) => {
      current = frame;
      const t = performance.now();
      try {
        callback(frame);
      } finally {
        add(work, frame, performance.now() - t);
      }
    });
  const AutoScroller = window.AQ.AutoScroller;
  if (AutoScroller === undefined) throw new Error('the bench page has no AutoScroller');
  const follow = new AutoScroller(scroller);
  let doneAt = Number.NaN;
  const renderer = new window.AQ.IncrementalRenderer(container, {
    // The views' own following (chat.ts: at once, or at most every 100 ms while the text floods in); it forces the browser's layout.
    onRender: () => {
      const t = performance.now();
      follow.update();
      add(scrolling, current, performance.now() - t);
    },
    onDone: () => {
      if (Number.isNaN(doneAt)) doneAt = performance.now();
    },
  });
  const nextFrame = (): Promise<number> => new Promise((resolve) => realRaf(resolve));
  try {
    let offset = 0;
    let longestGapMs = 0;
    // Let the page settle (the last run's teardown) before the clock starts.
    await nextFrame();
    let previous = await nextFrame();
    const start = performance.now();
    let lastByteAt = Number.NaN;
    const cap = start + 120_000;
    // After the last byte, frames go on until the renderer says the answer is all rendered.
    while ((offset < args.text.length || !renderer.done) && performance.now() < cap) {
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
      add(work, now, performance.now() - frameStart);
    }
    const wallMs = performance.now() - start;
    // The browser's own work after the last frame (style, layout, paint of the final DOM).
    const after = await nextFrame();
    longestGapMs = Math.max(longestGapMs, after - previous);
    const inRun = [...work.entries()].filter(([frame]) => frame > start - 1);
    const frameTimes = inRun.map(([, ms]) => ms).sort((a, b) => a - b);
    const renderTimes = inRun.map(([frame, ms]) => ms - (scrolling.get(frame) ?? 0));
    const once = window.AQ.renderMarkdownOnce(args.text);
    const equal = renderer.done && container.innerHTML === once;
    let difference = '';
    if (!equal) {
      const live = container.innerHTML;
      let at = 0;
      while (at < live.length && live[at] === once[at]) at++;
      difference = `${renderer.done ? '' : 'not done; '}at ${at} of ${once.length}: ${JSON.stringify(live.slice(Math.max(0, at - 40), at + 60))} instead of ${JSON.stringify(once.slice(Math.max(0, at - 40), at + 60))}`;
    }
    return {
      renderMs: frameTimes.reduce((sum, ms) => sum + ms, 0),
      wallMs,
      frames: frameTimes.length,
      longestFrameMs: Math.max(0, ...frameTimes),
      p95FrameMs: frameTimes[Math.min(frameTimes.length - 1, Math.floor(frameTimes.length * 0.95))] ?? 0,
      framesOver: frameTimes.filter((ms) => ms > args.frameGoalMs).length,
      longestRenderMs: Math.max(0, ...renderTimes),
      renderOnlyMs: renderTimes.reduce((sum, ms) => sum + ms, 0),
      longestGapMs,
      lastByteToFinalMs: doneAt - lastByteAt,
      equal,
      difference,
    };
  } finally {
    // (The page's renderer type in test/support/browser.ts does not list dispose; the renderer has it.)
    (renderer as unknown as { dispose(): void }).dispose();
    window.requestAnimationFrame = realRaf;
    chat.remove();
  }
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

/** Runs per shape and size: the figures are the median of these (the machine is shared and noisy; env AQ_SHAPES_RUNS for a quicker look). */
const RUNS = Math.max(1, Math.floor(Number(process.env.AQ_SHAPES_RUNS ?? 5)));

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
  const at = (key: Exclude<keyof LiveResult, 'equal' | 'difference'>): number => median(runs.map((result) => result[key]));
  return {
    renderMs: at('renderMs'),
    wallMs: at('wallMs'),
    frames: at('frames'),
    longestFrameMs: at('longestFrameMs'),
    p95FrameMs: at('p95FrameMs'),
    framesOver: at('framesOver'),
    longestRenderMs: at('longestRenderMs'),
    renderOnlyMs: at('renderOnlyMs'),
    longestGapMs: at('longestGapMs'),
    lastByteToFinalMs: at('lastByteToFinalMs'),
    equal: runs.every((result) => result.equal),
    difference: runs.find((result) => !result.equal)?.difference ?? '',
    worstFrameMs: Math.max(...runs.map((result) => result.longestFrameMs)),
    main: { layoutMs: main('layoutMs'), styleMs: main('styleMs') },
  };
}

/**
 * Streams each shape live at 1 and 2 MiB (tables 0.5 and 1 MiB), RUNS times each, in a fresh page
 * from `open` (as a webview is when it loads), idle and with one core busy
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
      name: `${label}: total time inside frames / wall time (the browser's layout and style in the whole run, by its own counters); final DOM equals one-shot (at both sizes)`,
      value: `${one.renderMs.toFixed(0)} ms (renderer ${one.renderOnlyMs.toFixed(0)} ms, the rest following into view: the browser's layout) in ${one.frames} frames / ${(one.wallMs / 1000).toFixed(1)} s (the browser's layout ${one.main.layoutMs.toFixed(0)} ms, style ${one.main.styleMs.toFixed(0)} ms), ${String(one.equal && two.equal)}${one.equal ? (two.equal ? '' : `; at ${twoSize}: ${two.difference}`) : `; ${one.difference}`}`,
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
