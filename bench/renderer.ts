// Renderer benchmark: the real renderer in headless Chromium, a 1 MiB markdown answer streamed in
// 64-byte chunks, against a naive renderer that re-renders everything on every update.
import * as os from 'node:os';
import type { Browser, Page } from 'playwright-core';
import type { HostToWebview, SurfaceState, Turn } from '../src/shared/protocol';
import type { BenchRow } from './core';
import { loads, sideBySide } from './load';
import { traced } from './trace';
import { bundle, launchBrowser, LoopbackServer, readAsset, seededRandom, webviewPage } from '../test/support/browser';
import { longShapes } from '../test/support/shapes';
import { runShapeBench } from './renderer-shapes';

const TARGET_BYTES = 1024 * 1024;
const CHUNK = 64;
const CHUNKS_PER_FRAME = 16;
/** About 1 MiB/s at 60 frames per second. */
const LIVE_CHUNKS_PER_FRAME = 280;
/** The naive renderer gets this much time; the rest of its run is extrapolated. */
const NAIVE_CAP_MS = 15_000;

/** A deterministic, realistic answer: headings, paragraphs, lists, code fences, tables, quotes. */
export function generateAnswer(bytes: number, seed = 1): string {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const words = ['the', 'renderer', 'stream', 'answer', 'function', 'value', 'request', 'token', 'service', 'editor', 'module', 'returns', 'config', 'cache', 'server', 'client', 'state', 'update', 'frame', 'buffer', 'parse', 'error', 'status', 'header', 'ünïcode', '数据', 'emoji 🚀'];
  const sentence = (): string => {
    const n = 6 + Math.floor(random() * 14);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      const word = pick(words);
      const r = random();
      parts.push(r < 0.05 ? `**${word}**` : r < 0.09 ? `\`${word}()\`` : r < 0.11 ? `[${word}](https://example.com/${word.length})` : r < 0.13 ? `*${word}*` : word);
    }
    const text = parts.join(' ');
    return text.charAt(0).toUpperCase() + text.slice(1) + '.';
  };
  const paragraph = (): string => Array.from({ length: 2 + Math.floor(random() * 4) }, sentence).join(' ');
  const code = (): string => {
    const language = pick(['ts', 'python', 'bash', 'json', 'go', 'rust', '']);
    const lines = Array.from({ length: 5 + Math.floor(random() * 25) }, (_, i) => {
      switch (language) {
        case 'python':
          return `    value_${i} = compute(${i}, "text")  # step ${i}`;
        case 'bash':
          return `echo "step ${i}" && ls -la ./dir${i} | grep -v x`;
        case 'json':
          return `  "key${i}": { "value": ${i}, "name": "item ${i}" },`;
        case 'go':
          return `\tif err := run(ctx, ${i}); err != nil { return fmt.Errorf("step ${i}: %w", err) }`;
        case 'rust':
          return `    let v${i}: Vec<u32> = items.iter().map(|x| x * ${i}).collect();`;
        default:
          return `  const value${i}: number = await compute(${i}, 'text'); // step ${i}`;
      }
    });
    return ['```' + language, ...lines, '```'].join('\n');
  };
  const list = (ordered: boolean): string =>
    Array.from({ length: 3 + Math.floor(random() * 6) }, (_, i) => {
      const item = `${ordered ? `${i + 1}.` : '-'} ${sentence()}`;
      return random() < 0.3 ? `${item}\n${ordered ? '   ' : '  '}- ${sentence()}` : item;
    }).join('\n');
  const table = (): string => {
    const columns = 3 + Math.floor(random() * 2);
    const row = (): string => `| ${Array.from({ length: columns }, () => pick(words)).join(' | ')} |`;
    return [row(), `|${' --- |'.repeat(columns)}`, ...Array.from({ length: 3 + Math.floor(random() * 6) }, row)].join('\n');
  };
  const blocks: string[] = [];
  let size = 0;
  while (size < bytes) {
    const r = random();
    const block =
      r < 0.08 ? `${'#'.repeat(2 + Math.floor(random() * 2))} ${sentence()}` : r < 0.45 ? paragraph() : r < 0.62 ? code() : r < 0.77 ? list(random() < 0.4) : r < 0.87 ? table() : `> ${sentence()}\n> ${sentence()}`;
    blocks.push(block);
    size += Buffer.byteLength(block) + 2;
  }
  const text = blocks.join('\n\n') + '\n';
  return text;
}

interface RunResult {
  readonly totalMs: number;
  /** Time inside the frames themselves (append + render + scroll), without the browser's own rendering between them. */
  readonly workMs: number;
  readonly updates: number;
  readonly coveredChars: number;
  readonly lastByteToFinalMs: number;
  readonly longestFrameMs: number;
  readonly longestFrameGapMs: number;
  readonly longTasks: number;
  readonly longestLongTaskMs: number;
  readonly equal: boolean;
  readonly samples: ReadonlyArray<readonly [number, number]>;
}

/**
 * Runs in the page, inside a scrolling transcript styled by the real webview.css, following the
 * answer to the bottom after every render as the chat view does. Every frame the "host" appends
 * the chunks that arrived during that frame, then the renderer's frame callback runs.
 * `realFrames: false` runs frames back to back (one task each: the page takes data as fast as it
 * can process it; the renderer renders all it has in each, without a deadline); `true` uses real
 * requestAnimationFrame frames and the renderer's own frame loop (render/frames.ts, its budget per
 * frame, as in the webview): every animation-frame callback is timed and summed per frame, with
 * the frame's append. `capMs` stops a run early.
 */
async function streamInPage(args: { text: string; kind: 'incremental' | 'naive'; chunk: number; perFrame: number; capMs: number; realFrames: boolean }): Promise<RunResult> {
  let longTasks = 0;
  let longestLongTaskMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longTasks++;
      longestLongTaskMs = Math.max(longestLongTaskMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['longtask'] });

  const root = document.getElementById('root');
  const scroller = document.createElement('div');
  scroller.className = 'aq-transcript';
  const container = document.createElement('div');
  container.className = 'aq-answer';
  const chat = document.createElement('div');
  chat.className = 'aq-chat';
  scroller.append(container);
  chat.append(scroller);
  root?.replaceChildren(chat);

  let longestFrameMs = 0;
  let pending: Array<() => void> = [];
  const onRender = (): void => {
    scroller.scrollTop = scroller.scrollHeight;
  };
  const realRaf = window.requestAnimationFrame.bind(window);
  // Real frames: every animation-frame callback of the page (the renderer's frame loop), timed per frame.
  const frameWork = new Map<number, number>();
  if (args.realFrames) {
    window.requestAnimationFrame = (callback) =>
      realRaf((frame) => {
        const t = performance.now();
        try {
          callback(frame);
        } finally {
          frameWork.set(frame, (frameWork.get(frame) ?? 0) + performance.now() - t);
        }
      });
  }
  const options = args.realFrames ? { onRender } : { onRender, scheduleFrame: (callback: () => void) => void pending.push(callback) };
  const renderer = args.kind === 'incremental' ? new window.AQ.IncrementalRenderer(container, options) : new (window.AQ.NaiveRenderer ?? window.AQ.IncrementalRenderer)(container, options);
  const channel = new MessageChannel();
  const nextTask = (): Promise<void> =>
    new Promise((resolve) => {
      channel.port1.onmessage = () => resolve();
      channel.port2.postMessage(0);
    });
  let frameAt = 0;
  const nextFrame = (): Promise<void> =>
    new Promise((resolve) =>
      realRaf((frame) => {
        frameAt = frame;
        resolve();
      }),
    );

  let running = true;
  let longestFrameGapMs = 0;
  let lastFrameAt = -1;
  const watchFrames = (now: number): void => {
    if (lastFrameAt >= 0) {
      longestFrameGapMs = Math.max(longestFrameGapMs, now - lastFrameAt);
    }
    lastFrameAt = now;
    if (running) {
      realRaf(watchFrames);
    }
  };
  realRaf(watchFrames);

  const frameBytes = args.chunk * args.perFrame;
  const samples: Array<[number, number]> = [];
  let offset = 0;
  let updates = 0;
  let lastByteToFinalMs = 0;
  let workMs = 0;
  const start = performance.now();
  let lastByteAt = 0;
  // After the last byte, frames go on until the renderer says the answer is all rendered.
  while (offset < args.text.length || renderer.done === false) {
    await (args.realFrames ? nextFrame() : nextTask());
    const frameStart = performance.now();
    if (offset < args.text.length) {
      renderer.append(args.text.slice(offset, offset + frameBytes));
      offset += frameBytes;
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
    if (offset >= args.text.length && renderer.done !== false) {
      void scroller.scrollHeight;
      lastByteToFinalMs = performance.now() - lastByteAt;
    }
    const frameMs = performance.now() - frameStart;
    if (args.realFrames) frameWork.set(frameAt, (frameWork.get(frameAt) ?? 0) + frameMs);
    longestFrameMs = Math.max(longestFrameMs, frameMs);
    workMs += frameMs;
    updates++;
    samples.push([Math.min(offset, args.text.length), frameMs]);
    if (performance.now() - start > args.capMs) {
      break;
    }
  }
  const totalMs = performance.now() - start;
  await nextFrame();
  await nextFrame();
  running = false;
  observer.disconnect();
  window.requestAnimationFrame = realRaf;
  if (args.realFrames) {
    // The frame's append and the renderer's frame (and the rest of the page's callbacks in it).
    const inRun = [...frameWork.entries()].filter(([frame]) => frame > start - 1).map(([, ms]) => ms);
    longestFrameMs = Math.max(0, ...inRun);
    workMs = inRun.reduce((sum, ms) => sum + ms, 0);
  }
  const coveredChars = Math.min(offset, args.text.length);
  // The naive renderer has no `done`: it renders all it has in each frame.
  const complete = renderer.done !== false;
  const equal = complete && coveredChars === args.text.length && container.innerHTML === window.AQ.renderMarkdownOnce(args.text);
  if ('dispose' in renderer && typeof renderer.dispose === 'function') renderer.dispose();
  chat.remove();
  return { totalMs, workMs, updates, coveredChars, lastByteToFinalMs, longestFrameMs, longestFrameGapMs, longTasks, longestLongTaskMs, equal, samples };
}

/** Runs `work` while sampling the page's JS heap through CDP; returns its result and the peak. */
async function withHeapPeak<T>(page: Page, work: () => Promise<T>): Promise<{ result: T; peak: number; baseline: number }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const baseline = (await cdp.send('Runtime.getHeapUsage')).usedSize;
    let peak = baseline;
    let done = false;
    const sampler = (async () => {
      while (!done) {
        peak = Math.max(peak, (await cdp.send('Runtime.getHeapUsage')).usedSize);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      const result = await work();
      return { result, peak, baseline };
    } finally {
      done = true;
      await sampler;
    }
  } finally {
    await cdp.detach();
  }
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Least-squares fit of frame time against text length: the naive cost per update is linear in it. */
function fitLine(samples: ReadonlyArray<readonly [number, number]>): { a: number; b: number } {
  const n = samples.length;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of samples) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
  }
  const b = sxx === 0 ? 0 : sxy / sxx;
  return { a: my - b * mx, b };
}

/** Runs the renderer benchmark in headless Chromium and returns result rows (prints nothing). */
export async function runRendererBench(): Promise<BenchRow[]> {
  const text = generateAnswer(TARGET_BYTES);
  return withRendererServer(async (browser, server) => {
    // A page as a webview is when it loads.
    const open = freshPages(browser, server);
    const page = await open();
    const base = { text, chunk: CHUNK, perFrame: CHUNKS_PER_FRAME, capMs: Number.POSITIVE_INFINITY };
    const ours = await withHeapPeak(page, () => page.evaluate(streamInPage, { ...base, kind: 'incremental' as const, realFrames: false }));
    const live = await page.evaluate(streamInPage, { ...base, perFrame: LIVE_CHUNKS_PER_FRAME, kind: 'incremental' as const, realFrames: true });
    const naive = await withHeapPeak(page, () => page.evaluate(streamInPage, { ...base, kind: 'naive' as const, capMs: NAIVE_CAP_MS, realFrames: false }));

    const totalUpdates = Math.ceil(text.length / (CHUNK * CHUNKS_PER_FRAME));
    const fit = fitLine(naive.result.samples);
    let naiveTotal = naive.result.totalMs;
    for (let i = naive.result.updates; i < totalUpdates; i++) {
      naiveTotal += fit.a + fit.b * Math.min(text.length, (i + 1) * CHUNK * CHUNKS_PER_FRAME);
    }
    const ratio = naiveTotal / ours.result.totalMs;
    // The shapes in a page of their own: no webview has run the naive renderer's megabytes of DOM before.
    await page.close();
    const shapes = await runShapeBench(open, (bytes) => generateAnswer(bytes));
    const compare = await runCompareRendererBench(browser, server, shapes);
    const bundleBytes = Buffer.byteLength(await bundle('src/webview/main.ts', { minify: true }));
    const o = ours.result;
    const block = Math.max(o.longestFrameMs, o.longestLongTaskMs);
    return [
      { name: `renderer: workload: ${mb(text.length)} markdown in ${CHUNK} B chunks, ${CHUNKS_PER_FRAME} chunks per frame, frames back to back`, value: `${totalUpdates} updates` },
      {
        name: 'renderer: incremental total time, first byte to final DOM (incl. the browser laying out and painting the growing page)',
        value: `${o.totalMs.toFixed(0)} ms (inside frames: ${o.workMs.toFixed(0)} ms, ${(o.workMs / o.updates).toFixed(2)} ms per update)`,
      },
      { name: 'renderer: time from last byte to final DOM', value: `${o.lastByteToFinalMs.toFixed(1)} ms`, goal: '≤ 1000 ms', ok: o.lastByteToFinalMs <= 1000 },
      {
        name: 'renderer: longest main-thread block (longest frame: append + render + scroll; long tasks)',
        value: `${block.toFixed(1)} ms (long tasks > 50 ms: ${o.longTasks})`,
        goal: '≤ 100 ms',
        ok: block <= 100,
      },
      { name: 'renderer: final DOM equals the one-shot render', value: String(o.equal), goal: 'true', ok: o.equal },
      {
        name: `renderer: live: real 60 Hz frames, ${LIVE_CHUNKS_PER_FRAME} chunks per frame (~1 MiB/s), the renderer's own frame loop: last byte to final DOM`,
        value: `${live.lastByteToFinalMs.toFixed(1)} ms (total ${live.totalMs.toFixed(0)} ms, equal ${String(live.equal)})`,
        goal: '≤ 1000 ms',
        ok: live.lastByteToFinalMs <= 1000 && live.equal,
      },
      {
        name: 'renderer: live: longest gap between frames (requestAnimationFrame)',
        value: `${live.longestFrameGapMs.toFixed(1)} ms (longest frame: append + render + scroll ${live.longestFrameMs.toFixed(1)} ms, long tasks > 50 ms: ${live.longTasks})`,
        goal: '≤ 100 ms',
        ok: live.longestFrameGapMs <= 100,
      },
      {
        name: `renderer: naive total time (measured ${naive.result.updates} of ${totalUpdates} updates in ${(naive.result.totalMs / 1000).toFixed(1)} s, rest extrapolated linearly in text length)`,
        value: `${(naiveTotal / 1000).toFixed(1)} s`,
      },
      { name: 'renderer: naive / incremental total time', value: `${ratio.toFixed(0)}×`, goal: '≥ 20×', ok: ratio >= 20 },
      { name: 'renderer: naive longest frame (measured part)', value: `${naive.result.longestFrameMs.toFixed(0)} ms` },
      {
        name: 'renderer: peak JS heap, incremental run (CDP Runtime.getHeapUsage, sampled every 20 ms)',
        value: `${mb(ours.peak)} (after GC before the run: ${mb(ours.baseline)}; naive run, measured part: ${mb(naive.peak)})`,
      },
      { name: 'renderer: webview bundle (src/webview/main.ts, minified)', value: `${(bundleBytes / 1024).toFixed(0)} KiB` },
      ...shapes,
      ...compare,
    ];
  });
}

/**
 * Starts a loopback server with the bench's renderer page (`/`: the renderer as `window.AQ`, the
 * webview's stylesheet) and a browser, runs `work`, and stops both.
 */
async function withRendererServer<T>(work: (browser: Browser, server: LoopbackServer) => Promise<T>): Promise<T> {
  const server = await LoopbackServer.start();
  const browser = await launchBrowser();
  try {
    server.route('/render.js', 'text/javascript', await bundle('bench/page.ts', { globalName: 'AQ', minify: true }));
    server.route('/webview.css', 'text/css', await readAsset('src/webview/webview.css'));
    server.route('/', 'text/html', webviewPage({ origin: server.origin, scripts: ['/render.js'], styles: ['/webview.css'] }));
    return await work(browser, server);
  } finally {
    await browser.close();
    await server.close();
  }
}

/** The shapes' rows alone (`npm run bench renderer-shapes`): each shape streamed idle and with one core busy. */
export function runShapesSection(): Promise<BenchRow[]> {
  return withRendererServer((browser, server) => runShapeBench(freshPages(browser, server), (bytes) => generateAnswer(bytes)));
}

/** Fresh pages of the bench's renderer, as a webview is when it loads. */
function freshPages(browser: Browser, server: LoopbackServer): () => Promise<Page> {
  return async () => {
    const fresh = await browser.newPage({ viewport: { width: 800, height: 900 } });
    await fresh.goto(`${server.origin}/`);
    return fresh;
  };
}

/** The Compare panel's rows alone (`npm run bench renderer-compare`), without the answer panel's figures beside them. */
export function runCompareRendererSection(): Promise<BenchRow[]> {
  return withRendererServer((browser, server) => runCompareRendererBench(browser, server, []));
}

// ---------------------------------------------------------------------------------------------
// The Compare panel: four answers at once, one per column, in the real webview bundle.

const MIB = 1024 * 1024;
/** Per answer, what each row of renderer-shapes.ts gives its one answer: about 1 MiB/s at 60 frames per second. */
const COMPARE_BYTES_PER_FRAME = Math.round(MIB / 60);
/** Runs of the Compare panel (env AQ_COMPARE_RUNS for a quicker look). */
const COMPARE_RUNS = Math.max(1, Math.floor(Number(process.env.AQ_COMPARE_RUNS ?? 5)));
/** The longest a Compare panel's frame may take (issue #23). */
const COMPARE_FRAME_GOAL_MS = 50;
/** An editor group wide enough for four columns side by side (each about 380 px). */
const COMPARE_VIEWPORT = { width: 1600, height: 900 };

/** One run of four answers into one Compare panel. */
interface CompareRun {
  /** The longest frame: the appends it delivered plus every animation-frame callback in it (the columns' renders and scrolls). */
  readonly longestFrameMs: number;
  /** The 95th percentile of the frames' times, and how many took longer than the panel's goal (COMPARE_FRAME_GOAL_MS). */
  readonly p95FrameMs: number;
  readonly framesOver: number;
  /** The longest frame before the first column's last byte, and from that frame on (the columns' ends). */
  readonly longestStreamingMs: number;
  readonly longestEndingMs: number;
  /** The longest time between two animation frames. */
  readonly longestGapMs: number;
  readonly frames: number;
  /** Time inside frames, summed. */
  readonly workMs: number;
  readonly wallMs: number;
  /** Per column: from the frame that delivered its last byte (and its end) to its answer being all rendered (aria-busy false). */
  readonly lastByteToFinalMs: number[];
  /** Per column: the final DOM equals a one-shot render of its text. */
  readonly equal: boolean[];
  /** Per column: where the final DOM first differs from a one-shot render, if it does. */
  readonly differences: Array<string | undefined>;
}

/**
 * Runs in a Compare panel page (the webview bundle, `body[data-surface="compare"]`): gives it a state
 * with one streaming column per text, then, every animation frame, one `append` per column of
 * `bytesPerFrame` (as the host's bridge posts at most one per frame and turn), and the `turnEnd` with
 * a column's last text. Messages are dispatched synchronously, so their cost is counted in the frame.
 */
async function streamCompare(args: { texts: string[]; labels: string[]; bytesPerFrame: number; run: number; frameGoalMs: number }): Promise<CompareRun> {
  const realRaf = window.requestAnimationFrame.bind(window);
  const nextFrame = (): Promise<number> => new Promise((resolve) => realRaf(resolve));
  // Every animation-frame callback of the page, timed and summed per frame (its timestamp).
  const work = new Map<number, number>();
  const add = (frame: number, ms: number): void => void work.set(frame, (work.get(frame) ?? 0) + ms);
  window.requestAnimationFrame = (callback) =>
    realRaf((frame) => {
      const start = performance.now();
      try {
        callback(frame);
      } finally {
        add(frame, performance.now() - start);
      }
    });
  const deliver = (data: HostToWebview): void => void window.dispatchEvent(new MessageEvent('message', { data }));
  try {
    const ids = args.texts.map((_, i) => `run${args.run}-column${i}`);
    const startedAt = Date.now();
    const columns = ids.map((id, i): Turn => ({ id, role: 'assistant', applicationId: `app${i}`, text: '', status: 'streaming', startedAt }));
    const question: Turn = { id: `run${args.run}-question`, role: 'user', applicationId: '', text: 'Compare these', status: 'done', startedAt };
    const applications = args.labels.map((label, i) => ({ id: `app${i}`, label, hasKey: true }));
    const state: SurfaceState = { surface: 'compare', title: 'Compare: bench', applications, currentApplicationId: undefined, turns: [question, ...columns], attachments: [] };
    deliver({ type: 'state', state });
    const answers = ids.map((id) => document.querySelector(`section[data-turn-id="${id}"] [data-role="assistant"]`));
    const doneAt: number[] = ids.map(() => Number.NaN);
    const observers = answers.map((answer, i) => {
      const observer = new MutationObserver(() => {
        if (Number.isNaN(doneAt[i]) && answer?.getAttribute('aria-busy') === 'false') doneAt[i] = performance.now();
      });
      if (answer !== null) observer.observe(answer, { attributes: true, attributeFilter: ['aria-busy'] });
      return observer;
    });
    await nextFrame();
    let previous = await nextFrame();
    const start = performance.now();
    const offsets = ids.map(() => 0);
    const lastByteAt: number[] = ids.map(() => Number.NaN);
    /** The frame that delivered the first column's last byte. */
    let firstEndFrame = Number.POSITIVE_INFINITY;
    let longestGapMs = 0;
    let frames = 0;
    const cap = start + 120_000;
    while ((offsets.some((at, i) => at < args.texts[i].length) || doneAt.some((at) => Number.isNaN(at))) && performance.now() < cap) {
      const frame = await nextFrame();
      longestGapMs = Math.max(longestGapMs, frame - previous);
      previous = frame;
      frames++;
      const t = performance.now();
      for (let i = 0; i < ids.length; i++) {
        const text = args.texts[i];
        if (offsets[i] >= text.length) continue;
        deliver({ type: 'append', turnId: ids[i], text: text.slice(offsets[i], offsets[i] + args.bytesPerFrame) });
        offsets[i] += args.bytesPerFrame;
        if (offsets[i] >= text.length) {
          lastByteAt[i] = t;
          firstEndFrame = Math.min(firstEndFrame, frame);
          deliver({ type: 'turnEnd', turnId: ids[i], status: 'done', httpStatus: 200 });
        }
      }
      add(frame, performance.now() - t);
    }
    const wallMs = performance.now() - start;
    // The browser's own work after the last frame.
    const after = await nextFrame();
    longestGapMs = Math.max(longestGapMs, after - previous);
    for (const observer of observers) observer.disconnect();
    const framesInRun = [...work.entries()].filter(([frame]) => frame > start - 1);
    const inRun = framesInRun.map(([, ms]) => ms);
    const equal: boolean[] = [];
    const differences: Array<string | undefined> = [];
    for (const [i, id] of ids.entries()) {
      const live = document.querySelector(`section[data-turn-id="${id}"] .aq-answer`);
      const once = document.createElement('div');
      once.innerHTML = window.AQ.renderMarkdownOnce(args.texts[i]);
      const shell = (node: Node | undefined): string => (node instanceof Element ? (node.cloneNode(false) as Element).outerHTML : JSON.stringify(node?.textContent?.slice(0, 80)));
      // Where the live answer first differs from the one-shot render (undefined: nowhere).
      const difference = (a: Node, b: Node, path: string): string | undefined => {
        if (a instanceof Element && b instanceof Element) {
          return shell(a) !== shell(b) ? `${path}: ${shell(a)} instead of ${shell(b)}` : childDifference(a, b, `${path}/${a.localName}`);
        }
        return a.nodeType === b.nodeType && a.textContent === b.textContent ? undefined : `${path}: ${shell(a)} instead of ${shell(b)}`;
      };
      const childDifference = (a: Node, b: Node, path: string): string | undefined => {
        for (let n = 0; n < Math.max(a.childNodes.length, b.childNodes.length); n++) {
          const found = a.childNodes[n] === undefined || b.childNodes[n] === undefined ? `${path}[${n}]: ${shell(a.childNodes[n])} instead of ${shell(b.childNodes[n])}` : difference(a.childNodes[n], b.childNodes[n], `${path}[${n}]`);
          if (found !== undefined) return found;
        }
        return undefined;
      };
      // Adjacent text nodes (a code chunk's text placed in pieces) read as one, as in the markup.
      const normalized = live?.cloneNode(true);
      normalized?.normalize();
      const found = normalized === undefined ? 'no answer' : childDifference(normalized, once, '');
      differences.push(found);
      equal.push(found === undefined);
    }
    const sorted = [...inRun].sort((a, b) => a - b);
    return {
      longestFrameMs: Math.max(0, ...inRun),
      longestStreamingMs: Math.max(0, ...framesInRun.filter(([frame]) => frame < firstEndFrame).map(([, ms]) => ms)),
      longestEndingMs: Math.max(0, ...framesInRun.filter(([frame]) => frame >= firstEndFrame).map(([, ms]) => ms)),
      p95FrameMs: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0,
      framesOver: inRun.filter((ms) => ms > args.frameGoalMs).length,
      longestGapMs,
      frames,
      workMs: inRun.reduce((sum, ms) => sum + ms, 0),
      wallMs,
      lastByteToFinalMs: doneAt.map((at, i) => at - lastByteAt[i]),
      equal,
      differences,
    };
  } finally {
    window.requestAnimationFrame = realRaf;
  }
}

/** The median of some numbers. */
function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Four answers of 1 MiB each, of four shapes (those of renderer-shapes.ts, at the same pace per
 * answer), streaming at once into one Compare panel: the panel's longest frame and each column's
 * last byte → final DOM, the median of COMPARE_RUNS runs, beside the answer panel's figures for the
 * same answer alone (`alone`: the rows renderer-shapes.ts made).
 */
export async function runCompareRendererBench(browser: Browser, server: LoopbackServer, alone: readonly BenchRow[]): Promise<BenchRow[]> {
  const loadBefore = os.loadavg();
  server.route('/compare-webview.js', 'text/javascript', await bundle('src/webview/main.ts', { minify: true }));
  server.route('/compare', 'text/html', webviewPage({ origin: server.origin, surface: 'compare', scripts: ['/render.js', '/compare-webview.js'], styles: ['/webview.css'] }));
  // The same texts as renderer-shapes.ts's rows at 1 MiB (shapes of seed 7, the generated answer).
  const shapes = longShapes(MIB, 7);
  const columns: Array<[string, string]> = [
    ['one fenced code block (TypeScript)', shapes.fence],
    ['one list', shapes.list],
    ['one paragraph without line breaks', shapes.paragraph],
    ['the generated answer (many short blocks)', generateAnswer(MIB)],
  ];
  const byLoad: Array<readonly [string, BenchRow[]]> = [];
  for (const [load, run] of loads()) {
    const runs = await run(() => compareRuns(browser, server, columns));
    byLoad.push([load, compareRows(runs, columns, load, alone)]);
  }
  const loadAfter = os.loadavg();
  return [
    ...sideBySide(byLoad),
    { name: `${COMPARE_LABEL}: machine`, value: `load average (1/5/15 min) ${loadBefore.map((n) => n.toFixed(1)).join(' / ')} before, ${loadAfter.map((n) => n.toFixed(1)).join(' / ')} after, ${os.cpus().length} cores` },
  ];
}

const COMPARE_LABEL = `renderer compare: 4 answers of 1 MiB at once into one Compare panel (~1 MiB/s each, 4 columns side by side at ${COMPARE_VIEWPORT.width}×${COMPARE_VIEWPORT.height}), median of ${COMPARE_RUNS} runs`;

/** COMPARE_RUNS runs of `columns` streaming at once into a Compare panel, each in a page of its own. */
async function compareRuns(browser: Browser, server: LoopbackServer, columns: ReadonlyArray<readonly [string, string]>): Promise<CompareRun[]> {
  const runs: CompareRun[] = [];
  for (let run = 0; run < COMPARE_RUNS; run++) {
    // Each run in a page of its own, as each Compare opens a panel of its own: in one page, a
    // run's first frames collected the last run's 4 MiB of answers (a 20 ms step of V8's
    // marking in a traced first frame), which no panel has to do.
    const page = await browser.newPage({ viewport: COMPARE_VIEWPORT });
    try {
      await page.goto(`${server.origin}/compare`);
      await page.waitForFunction(() => window.__messages.length > 0);
      // Let the page settle after loading.
      await page.evaluate(async () => {
        for (let i = 0; i < 60; i++) await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 200 }));
      });
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.detach();
      const args = { texts: columns.map(([, text]) => text), labels: columns.map(([name]) => name), bytesPerFrame: COMPARE_BYTES_PER_FRAME, run, frameGoalMs: COMPARE_FRAME_GOAL_MS };
      // The middle run may be traced (env AQ_COMPARE_TRACE, a file path), to see what the panel's
      // frames are made of (AQ_COMPARE_TRACE_JS=1 adds JavaScript samples, which slow the page).
      const trace = run === Math.floor(COMPARE_RUNS / 2) ? process.env.AQ_COMPARE_TRACE : undefined;
      runs.push(await traced(page, trace, 'a Compare run', () => page.evaluate(streamCompare, args), process.env.AQ_COMPARE_TRACE_JS === '1'));
      const layout = await page.evaluate(() => [...document.querySelectorAll('section[data-role="column"]')].map((section) => Math.round(section.getBoundingClientRect().top)));
      if (new Set(layout).size !== 1) throw new Error(`the four columns are not side by side: tops ${layout.join(', ')}`);
    } finally {
      await page.close();
    }
  }
  return runs;
}

/** The Compare rows of one load's runs, with the answer panel's figure for each answer alone under the same load (from `alone`). */
function compareRows(runs: readonly CompareRun[], columns: ReadonlyArray<readonly [string, string]>, load: string, alone: readonly BenchRow[]): BenchRow[] {
  const figure = (name: string, measure: string): string => {
    const row = alone.find((r) => r.name.startsWith(`renderer live ~1 MiB/s: ${name}, `) && r.name.endsWith(`: ${measure}`));
    // renderer-shapes.ts prints each load's figures side by side: "idle: 3.0 ms (…); one core busy: …".
    return row === undefined ? 'not measured' : (row.value.split(/(?:^|; )(?=[a-z ]+: \d)/).find((part) => part.startsWith(`${load}: `)) ?? 'not measured').replace(`${load}: `, '').split(/ \(|; /)[0];
  };
  const longest = middle(runs.map((r) => r.longestFrameMs));
  // With the shapes' rows (the whole renderer section), each answer alone beside the panel's figures.
  const aloneFrames = alone.length === 0 ? '' : `; answer panel, each answer alone: ${columns.map(([name]) => `${name.split(' (')[0]} ${figure(name, 'longest frame (append + render + scroll)')}`).join(', ')}`;
  const aloneFinal = (name: string): string => (alone.length === 0 ? '' : `; answer panel alone ${figure(name, 'last byte to final DOM')}`);
  const rows: BenchRow[] = [
    {
      name: `${COMPARE_LABEL}: the panel's longest frame (4 appends + every column's render and scroll)`,
      value: `${longest.toFixed(1)} ms (longest of all runs ${Math.max(...runs.map((r) => r.longestFrameMs)).toFixed(1)} ms; 95th percentile ${middle(runs.map((r) => r.p95FrameMs)).toFixed(1)} ms; ${middle(runs.map((r) => r.framesOver))} of ${middle(runs.map((r) => r.frames))} frames over ${COMPARE_FRAME_GOAL_MS} ms; longest while streaming ${middle(runs.map((r) => r.longestStreamingMs)).toFixed(1)} ms, from the last bytes on ${middle(runs.map((r) => r.longestEndingMs)).toFixed(1)} ms; longest gap between frames ${middle(runs.map((r) => r.longestGapMs)).toFixed(0)} ms${aloneFrames})`,
      goal: `≤ ${COMPARE_FRAME_GOAL_MS} ms`,
      ok: longest <= COMPARE_FRAME_GOAL_MS,
    },
  ];
  for (const [i, [name]] of columns.entries()) {
    const final = middle(runs.map((r) => r.lastByteToFinalMs[i]));
    const equal = runs.every((r) => r.equal[i]);
    rows.push({
      name: `${COMPARE_LABEL}: column ${i + 1}, ${name}: last byte to final DOM`,
      value: `${final.toFixed(1)} ms (worst ${Math.max(...runs.map((r) => r.lastByteToFinalMs[i])).toFixed(1)} ms${aloneFinal(name)}); final DOM equals one-shot: ${String(equal)}${equal ? '' : `; first difference ${runs.find((r) => !r.equal[i])?.differences[i] ?? ''}`}`,
      goal: '≤ 100 ms',
      ok: final <= 100 && equal && Number.isFinite(final),
    });
  }
  rows.push({
    name: `${COMPARE_LABEL}: total time inside frames / wall time`,
    value: `${middle(runs.map((r) => r.workMs)).toFixed(0)} ms in ${middle(runs.map((r) => r.frames))} frames / ${(middle(runs.map((r) => r.wallMs)) / 1000).toFixed(1)} s`,
  });
  return rows;
}
