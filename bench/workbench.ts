// End to end in the real workbench (code-server 4.139.1, headless Chromium): how soon the first
// bytes of an answer are painted in the answer panel and in the Chat view, and how a 10 MiB answer
// at full socket speed fares in the panel and in the output channel (time to the final DOM or the
// channel's footer, and the longest stall of each main thread), each idle and with one core kept
// busy by the bench (load.ts; the channel, a comparison, idle only); and the floor under the 10 MiB
// answer's stalls: the same answer into a page that renders nothing (floor.ts), alternated with the
// real panel in one run, their stalls side by side. Times are epoch ms on both sides:
// the reference service runs in this process, Date.now() in the pages reads the same clock.
import { readFile, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ElementHandle, FrameLocator, Locator, Page } from 'playwright-core';
import type { RecordedRequest } from '../service/server';
import { delay, repoRoot, waitFor } from '../test/launch/util';
import { launchWorkbench, type Workbench } from '../test/support/workbench/launch';
import { queryFromPalette, runCommand, setApiKey } from '../test/support/workbench/palette';
import { showOutputChannel } from '../test/support/workbench/output';
import { openViewContainer, sendFromComposer, surfaceFrame } from '../test/support/workbench/views';
import { resultsDir } from '../test/support/workbench/diagnostics';
import type { BenchRow } from './core';
import { cpuBetween, cpuSnapshot } from './cpu';
import { swappableExtension, type SwappableExtension, type WebviewScript } from './floor';
import { hostLagBetween, hostLagProbe, writeHostProfile } from './hostLag';
import { loads, sideBySide, spinners } from './load';
import { gapsInTrace, traced } from './trace';

const MiB = 1024 * 1024;
/** Answers per surface for the first-paint figures (env AQ_WB_SAMPLES for a quicker look). */
const SAMPLES = Number(process.env.AQ_WB_SAMPLES ?? 20);
/**
 * Which parts run (env AQ_WB_PARTS, comma-separated: `paint`, `channel`, `code`, `list`, `table`, `floor`, `panel`; all by default;
 * `floor` runs the 10 MiB answer into the floor and into the panel alternated, and then stands for `panel` too),
 * and where a Chromium performance trace of each 10 MiB panel run goes (env AQ_WB_TRACE, a file
 * path, numbered per run: trace.1.json, trace.2.json; the floor's trace.floor.1.json, the code
 * block's trace.code.1.json, the list's and table's trace.list.1.json, trace.table.1.json; none by default), for finding what a stall is made of
 * (AQ_WB_TRACE_JS=1 adds JavaScript samples, which slow the page). AQ_WB_TRACE_PAINT (a
 * file path) traces the Chat view's first-paint answers, with JavaScript samples; the probe marks
 * in it (`console.timeStamp`, "aq:" and the message's type) when each message reached the webview,
 * and "aq:dom" when the answer's first text was in the DOM. AQ_WB_HOST_PROFILE (a file path)
 * has the extension host sample itself until the 10 MiB answer into the panel is final and write the
 * samples there, with its event loop's holds (hostLag/probe.ts).
 */
const PARTS = new Set((process.env.AQ_WB_PARTS ?? 'paint,channel,code,list,table,floor,panel').split(',').map((part) => part.trim()));
const TRACE_FILE = process.env.AQ_WB_TRACE;
/**
 * Runs of the 10 MiB part under each load (env AQ_WB_REPEAT; 1 by default, at least 2 with the
 * floor: floor, panel, floor, panel…). One run's longest stall moves by tens of milliseconds from
 * run to run on a 2-core machine: with several, each figure prints its median, its worst and every
 * run's, so that a change smaller than that spread can be seen.
 */
const REPEAT = Math.max(1, Math.floor(Number(process.env.AQ_WB_REPEAT ?? 1)));
const FLOOR_PAIRS = Math.max(2, REPEAT);
/** The floor's answer has all reached its page once no text came for this long after its end (text that came after the end counts too). */
const FLOOR_QUIET_MS = 1000;
const BIG = 10 * MiB;
const APP = { id: 'timed', name: 'Timed' };
/** The application's name while it answers with 10 MiB into the panel, and into the channel. */
const BIG_NAME = 'Timed (10 MiB)';
const CHANNEL_NAME = 'Timed (10 MiB, output channel)';
const FLOOR_NAME = 'Timed (10 MiB, into a page that renders nothing)';
/** The request body for latency runs: the service waits 250 ms after the headers, so the UI has settled. */
const LATENCY_TEMPLATE = { query: '${input}', delayMs: 250 };
/** The request body for the 10 MiB runs: 64 KiB socket writes at full speed. */
const BIG_TEMPLATE = { query: '${input}', delayMs: 250, size: BIG, chunkBytes: 64 * 1024 };
/** One code block of 512 KiB arriving in about half a second (16 KiB every 16 ms), into the panel. */
const CODE_SIZE = 512 * 1024;
/** A long block of each shape the issue names (a 512 KiB code block, list or table), as the service's `timed` makes it. */
type BlockShape = 'code' | 'list' | 'table';
/** The block's application name, what it is called in the rows, and the question asked. */
const BLOCKS: Record<BlockShape, { readonly name: string; readonly label: string; readonly question: string }> = {
  code: { name: 'Timed (512 KiB code block)', label: 'code block', question: 'The whole file, please' },
  list: { name: 'Timed (512 KiB list)', label: 'list', question: 'The whole list, please' },
  table: { name: 'Timed (512 KiB table)', label: 'table', question: 'The whole table, please' },
};
function blockTemplate(shape: BlockShape): Record<string, unknown> {
  return { query: '${input}', delayMs: 250, size: CODE_SIZE, chunkBytes: 16 * 1024, paceMs: 16, shape };
}
/** The block (code, list or table) renders completely within this long after its last byte. */
const CODE_FINAL_GOAL_MS = 1000;
/** First body byte → first text painted, median (#24: two frames). */
const FIRST_PAINT_GOAL_MS = 33;
/**
 * A done (aria-busy false) counts once no text came after it for this long: text that comes after
 * an answer's end makes it busy again (see installProbe).
 */
const DONE_QUIET_MS = 500;
/** When the panel's answer was done for good (see DONE_QUIET_MS): its done's paint, or undefined. */
function settledDone(record: ProbeRecord): number | undefined {
  if (record.doneAt === undefined || record.donePaintedAt === undefined) return undefined;
  if ((record.lastTextAt ?? 0) > record.doneAt) return undefined;
  return Date.now() - record.donePaintedAt >= DONE_QUIET_MS ? record.donePaintedAt : undefined;
}
/** What a row says about an answer that went busy again after it was done. */
function busyAgain(record: ProbeRecord): string {
  return record.busyAgain === undefined ? '' : `; busy again ${record.busyAgain} times after it was done (text came after its end; the later done counts)`;
}
/** How long after the answer was written the bench leaves the page alone before reading the probe. */
const QUIET_MS = 400;
const FINAL_DOM_GOAL_MS = 2000;
/** The longest stall of the webview's and the workbench's main thread while an answer streams (#24). */
const STALL_GOAL_MS = 50;
/** One frame at 60 Hz, the headless browser's rate. */
const FRAME_MS = 1000 / 60;
/**
 * How far a rAF gap's length may drift from its frames: the frames' timestamps are a vsync apart
 * within a tenth of a millisecond or so, and a gap of three frames measured 50.1 ms and counted as
 * a miss of the 50 ms goal (three frames) before.
 */
const FRAME_DRIFT_MS = 1;
/** Whether a rAF gap is longer than the goal by more than its frames' drift. */
function gapOverGoal(length: number): boolean {
  return length > STALL_GOAL_MS + FRAME_DRIFT_MS;
}
/** Two frames at 60 Hz: the most of the main thread's processor time in a stall that its own work could explain (see traceGapRow). */
const PAGE_SHARE_MS = 33;
/** What a long block's rows say it measures. */
function blockWhat(shape: BlockShape): string {
  return `the ${BLOCKS[shape].label} streams`;
}
/** What the floor's rows say it measures. */
const FLOOR_WHAT = 'it streams into a page that renders nothing (the floor)';
/**
 * A traced part's rows, its window (first byte → final DOM, or its end for the floor; ms since the
 * epoch) for its trace's stalls, and the workbench's stalls in that window.
 */
interface PartRun {
  readonly rows: BenchRow[];
  readonly window?: readonly [number, number];
  readonly stall?: Stall;
  /** How many characters of the answer passed to the webview. */
  readonly textChars?: number;
}
/** The bench's probe in the extension host (see hostLag.ts): set as the bench starts. */
let hostLag: Awaited<ReturnType<typeof hostLagProbe>>;
/** How long the 10 MiB runs may take after the last byte before they count as not finished. */
const BIG_CAP_MS = 75_000;
/** A footer of an answer of at least a million characters: the 10 MiB answer's, not a smaller one's. */
const BIG_FOOTER = /\d{1,3}(,\d{3}){2,} characters .*· complete/;

/** What the probe installed in a page or webview records (epoch ms throughout). */
interface ProbeRecord {
  /**
   * Marker → when it was first in the DOM, when the next animation frame began after that, and
   * when the browser painted it (Element Timing's render time, where the browser reports it).
   */
  marks: Record<string, { domAt: number; paintedAt: number; shownAt?: number }>;
  /** rAF gaps longer than 25 ms: [end, length]. */
  gaps: [number, number][];
  /** Long tasks: [start, length]. */
  longTasks: [number, number][];
  /** Long animation frames (Chromium's Long Animation Frames API; none where it is missing). */
  frames: LongFrame[];
  /** When the panel's `body[data-status]` was "done" and its last answer all rendered (`aria-busy` false), and a frame after that. */
  doneAt?: number;
  donePaintedAt?: number;
  /** How often the answer went busy again after it was done (text that came after its end): `doneAt` is then the later done. */
  busyAgain?: number;
  /** When a line matching the `footer` pattern showed, and a frame after that. */
  footerAt?: number;
  footerPaintedAt?: number;
  /** Webviews: when the last streamed text and the end of an answer arrived from the extension host, and how many characters came. */
  lastTextAt?: number;
  /** Webviews: marker → when the text holding it arrived from the extension host (the answer's first text). */
  arrivals: Record<string, number>;
  endAt?: number;
  textChars: number;
}

/**
 * A long animation frame (over 50 ms of work): when it started, how long it took, how long its
 * rendering took (style, layout, paint: from `renderStart`), and its longest scripts: what ran
 * them, where, for how long, and how much of that was style and layout they forced.
 */
interface LongFrame {
  readonly start: number;
  readonly duration: number;
  readonly render: number;
  readonly scripts: ReadonlyArray<{ readonly invoker: string; readonly where: string; readonly duration: number; readonly forcedLayout: number }>;
}

type ProbeWindow = Window & { aqProbe?: ProbeRecord };

/**
 * What the probe watches for: answer markers in the DOM, the panel's answer done, or the output
 * channel's footer.
 */
interface ProbeOptions {
  readonly markers: boolean;
  readonly done: boolean;
  readonly footer?: string;
  /** Marks each rAF gap it records for a trace (`console.timeStamp`, "aq:gap <end> <length> <late>", see trace.ts). */
  readonly markGaps?: boolean;
}

/**
 * Installs the probe into the document of `body` (a webview's, or the workbench's): a rAF gap
 * monitor, a long-task observer, and optionally a watch for answer markers, for the panel's
 * status becoming "done", or for the output channel's footer. Replaces an earlier probe.
 */
function installProbe(body: HTMLElement | SVGElement, options: ProbeOptions): void {
  const win = window as ProbeWindow & { aqProbeStop?: () => void };
  win.aqProbeStop?.();
  const record: ProbeRecord = { marks: {}, gaps: [], longTasks: [], frames: [], textChars: 0, arrivals: {} };
  win.aqProbe = record;
  // What the extension host posts to a webview (see protocol/messages.ts): when the text got here.
  const onMessage = (event: MessageEvent<{ type?: string; text?: string }>): void => {
    console.timeStamp(`aq:${event.data?.type}${event.data?.text === undefined ? '' : ` ${event.data.text.length}`}`);
    if (event.data?.type === 'append') {
      record.lastTextAt = Date.now();
      record.textChars += event.data.text?.length ?? 0;
      const marker = /aq-mark-\d+/.exec(event.data.text?.slice(0, 200) ?? '')?.[0];
      if (marker !== undefined) record.arrivals[marker] ??= record.lastTextAt;
    } else if (event.data?.type === 'turnEnd') {
      record.endAt = Date.now();
    }
  };
  window.addEventListener('message', onMessage);
  let running = true;
  let last = 0;
  const frame = (now: number): void => {
    if (last > 0 && now - last > 25) {
      record.gaps.push([performance.timeOrigin + now, now - last]);
      // The frame began at `now`; its callback runs later (the mark's time in the trace).
      if (options.markGaps === true) console.timeStamp(`aq:gap ${performance.timeOrigin + now} ${now - last} ${performance.now() - now}`);
    }
    last = now;
    if (running) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const tasks = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) record.longTasks.push([performance.timeOrigin + entry.startTime, entry.duration]);
  });
  tasks.observe({ entryTypes: ['longtask'] });
  type ScriptTiming = { invoker: string; sourceURL: string; sourceFunctionName: string; duration: number; forcedStyleAndLayoutDuration: number };
  const frames = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<PerformanceEntry & { renderStart: number; scripts: ScriptTiming[] }>) {
      const scripts = [...entry.scripts].sort((a, b) => b.duration - a.duration).slice(0, 4);
      record.frames.push({
        start: performance.timeOrigin + entry.startTime,
        duration: entry.duration,
        render: entry.renderStart > 0 ? entry.startTime + entry.duration - entry.renderStart : 0,
        scripts: scripts.map((script) => ({ invoker: script.invoker, where: `${script.sourceFunctionName}@${(script.sourceURL.split('?')[0] ?? '').split('/').pop() ?? ''}`, duration: script.duration, forcedLayout: script.forcedStyleAndLayoutDuration })),
      });
    }
  });
  if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) frames.observe({ type: 'long-animation-frame' });
  const observers: Array<{ disconnect(): void }> = [];
  const afterFrame = (store: (domAt: number, paintedAt: number) => void): void => {
    const domAt = Date.now();
    requestAnimationFrame(() => store(domAt, Date.now()));
  };
  if (options.markers) {
    // The marker opens the answer, so it is in the first paragraph of the latest answer: cheap to look at.
    const seen = new Set<string>();
    const observer = new MutationObserver(() => {
      const answers = body.ownerDocument.querySelectorAll('[data-role="assistant"] .aq-answer');
      const first = answers[answers.length - 1]?.firstElementChild?.textContent ?? '';
      const marker = /aq-mark-\d+/.exec(first)?.[0];
      if (marker === undefined || seen.has(marker)) return;
      seen.add(marker);
      console.timeStamp('aq:dom');
      // Asks the browser for the time it paints this text (set before the paint that shows it).
      answers[answers.length - 1]?.firstElementChild?.setAttribute('elementtiming', marker);
      afterFrame((domAt, paintedAt) => (record.marks[marker] = { domAt, paintedAt, shownAt: shown.get(marker) }));
    });
    const shown = new Map<string, number>();
    const paints = new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<PerformanceEntry & { identifier?: string; renderTime?: number }>) {
        if (entry.identifier === undefined || !entry.renderTime) continue;
        const at = performance.timeOrigin + entry.renderTime;
        shown.set(entry.identifier, at);
        const mark = record.marks[entry.identifier];
        if (mark !== undefined) mark.shownAt = at;
      }
    });
    paints.observe({ type: 'element', buffered: true });
    observers.push(paints);
    observer.observe(body, { subtree: true, childList: true, characterData: true });
    observers.push(observer);
  }
  if (options.done) {
    // Done: the answer ended and the renderer says all of it is rendered (aria-busy goes false).
    // The cheap checks come first: a search of the document costs 3 to 4 ms of the frame in a
    // 10 MiB answer's DOM, and must not run for every record while the answer streams.
    let seenDone = false;
    let generation = 0;
    const observer = new MutationObserver((mutations) => {
      // An answer whose text came after its end is busy again: its final DOM is the later done.
      if (seenDone && mutations.some((mutation) => mutation.target instanceof Element && mutation.target.getAttribute('data-role') === 'assistant' && mutation.target.getAttribute('aria-busy') === 'true')) {
        seenDone = false;
        generation++;
        record.doneAt = undefined;
        record.donePaintedAt = undefined;
        record.busyAgain = (record.busyAgain ?? 0) + 1;
      }
      if (seenDone || body.dataset.status !== 'done') return;
      const answers = body.ownerDocument.querySelectorAll('[data-role="assistant"]');
      if (answers[answers.length - 1]?.getAttribute('aria-busy') === 'false') {
        seenDone = true;
        const at = generation;
        afterFrame((domAt, paintedAt) => {
          if (at !== generation) return;
          record.doneAt = domAt;
          record.donePaintedAt = paintedAt;
        });
      }
    });
    observer.observe(body, { attributes: true, subtree: true, attributeFilter: ['data-status', 'aria-busy'] });
    observers.push(observer);
  }
  if (options.footer !== undefined) {
    // The Output view's editor renders the lines in view; it follows the end of the channel.
    const pattern = new RegExp(options.footer);
    const lines = body.ownerDocument.querySelector('.part.panel') ?? body;
    const observer = new MutationObserver(() => {
      if (record.footerAt !== undefined) return;
      for (const line of lines.querySelectorAll('.view-line')) {
        if (pattern.test((line.textContent ?? '').replace(/\u00a0/g, ' '))) {
          record.footerAt = -1;
          afterFrame((domAt, paintedAt) => {
            record.footerAt = domAt;
            record.footerPaintedAt = paintedAt;
          });
          return;
        }
      }
    });
    observer.observe(lines, { subtree: true, childList: true, characterData: true });
    observers.push(observer);
  }
  win.aqProbeStop = () => {
    running = false;
    window.removeEventListener('message', onMessage);
    tasks.disconnect();
    frames.disconnect();
    for (const observer of observers) observer.disconnect();
  };
}

function readProbe(): ProbeRecord | undefined {
  return (window as ProbeWindow).aqProbe;
}

async function probe(target: Locator, options: ProbeOptions): Promise<void> {
  await target.evaluate(installProbe, options);
}

async function read(target: Locator): Promise<ProbeRecord> {
  const record = await target.evaluate(readProbe);
  if (record === undefined) throw new Error('the probe is gone (the page or webview was reloaded)');
  return record;
}

/**
 * Changes user settings as a person does: opens settings.json in the editor, replaces its text
 * (pasted), saves and closes it. Renames the application to `name` and waits until the status
 * bar shows that name, so the extension has the new settings. (Writing the file from outside is
 * not reliably noticed by a running code-server.)
 */
async function updateSettings(workbench: Workbench, name: string, changes: Readonly<Record<string, unknown>>, template: Readonly<Record<string, unknown>> = BIG_TEMPLATE): Promise<void> {
  const { page } = workbench;
  const file = path.join(workbench.userDataDir, 'User', 'settings.json');
  const settings = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  const text = JSON.stringify({ ...settings, ...changes, ...applicationsWith(name, template) }, null, 2);
  await runCommand(page, 'Preferences: Open User Settings (JSON)');
  // 1.139 opens it in a modal editor over the workbench, 1.100 in a tab: either way it takes the focus.
  const editor = page.locator('.monaco-editor.focused').filter({ hasText: 'applicationQuery.applications' }).first();
  await editor.waitFor({ state: 'visible', timeout: 30_000 });
  await page.evaluate((value) => navigator.clipboard.writeText(value), text);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  await page.keyboard.press('Control+S');
  await waitFor('settings.json to be saved', async () => (await readFile(file, 'utf8')) === text || undefined, 30_000, 100);
  // Escape closes the modal editor (1.139; this bench runs there). The editor may have lost the
  // focus meanwhile (the panel's webview takes it as it updates), so it is clicked first, and the
  // modal is looked for as any editor with the text, focused or not.
  const shown = page.locator('.monaco-editor').filter({ hasText: 'applicationQuery.applications' }).first();
  for (let attempt = 0; attempt < 3 && (await shown.isVisible()); attempt++) {
    await shown.click({ position: { x: 200, y: 10 } }).catch(() => undefined);
    await page.keyboard.press('Escape');
    await shown.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => undefined);
  }
  await page.locator('.part.statusbar .statusbar-item').filter({ hasText: name }).first().waitFor({ state: 'visible', timeout: 60_000 });
}

function applicationsWith(name: string, template: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { 'applicationQuery.applications': [{ id: APP.id, name, requestTemplate: template }] };
}

function timedRequests(workbench: Workbench): RecordedRequest[] {
  return workbench.service.requests.filter((r) => r.applicationId === APP.id && r.method === 'POST');
}

/** Waits for the next `timed` request after `before` to have written its whole answer; returns it. */
async function nextAnswer(workbench: Workbench, before: number, timeoutMs = 60_000): Promise<RecordedRequest> {
  return waitFor('the service to write the answer', () => {
    const request = timedRequests(workbench)[before];
    return request?.lastBodyByteAt !== undefined ? request : undefined;
  }, timeoutMs, 20);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * A stall: the longest rAF gap and long task that overlap [from, to], how many gaps were over the
 * goal, and how many of those ended after `last` (when the answer's last text reached the view:
 * the extension host passes a fast answer on for a second after the socket's last byte).
 */
interface Stall {
  readonly gap: number;
  /** When the longest gap ended, after `from` (a gap that began before it counts too). */
  readonly gapEndedAfter: number;
  readonly task: number;
  readonly tasks: number;
  readonly gapsOver: number;
  readonly gapsOverAfterLast: number;
}

function longestStall(record: ProbeRecord, from: number, to: number, last: number): Stall {
  const gaps = record.gaps.filter(([end, length]) => end >= from && end - length <= to);
  const tasks = record.longTasks.filter(([start, length]) => start <= to && start + length >= from).map(([, length]) => length);
  const over = gaps.filter(([, length]) => gapOverGoal(length));
  const longest = gaps.reduce<readonly [number, number] | undefined>((most, gap) => (most === undefined || gap[1] > most[1] ? gap : most), undefined);
  return { gap: longest?.[1] ?? 0, gapEndedAfter: longest === undefined ? 0 : longest[0] - from, task: Math.max(0, ...tasks), tasks: tasks.length, gapsOver: over.length, gapsOverAfterLast: over.filter(([end]) => end > last).length };
}

/**
 * What the long animation frames during a rAF gap of `gap` ms that ended at `end` were made of, as
 * the page of `record` sees them (in code-server the webview and the workbench share one main thread).
 */
function stallFrames(record: ProbeRecord, end: number, gap: number): string {
  const frames = record.frames.filter((frame) => frame.start <= end && frame.start + frame.duration >= end - gap);
  if (frames.length === 0) return 'no long animation frame in it (tasks between frames, or frames under 50 ms each)';
  return frames
    .map((frame) => {
      const scripts = frame.scripts.map((script) => `${script.invoker} ${script.where} ${ms(script.duration)}${script.forcedLayout >= 1 ? ` (${ms(script.forcedLayout)} forced style and layout)` : ''}`).join(', ');
      return `a frame of ${ms(frame.duration)}: rendering ${ms(frame.render)}; scripts ${scripts === '' ? 'none' : scripts}`;
    })
    .join('; ');
}

function ms(value: number): string {
  return `${value.toFixed(0)} ms`;
}

/** First body byte to the first text's paint, and to the animation frame after it was in the DOM. */
interface FirstPaint {
  /** Element Timing's render time (undefined where the browser reports none). */
  readonly painted: number | undefined;
  /** When the first text reached the webview (its message from the extension host), if the probe saw it, and when it was in the DOM. */
  readonly arrived: number | undefined;
  readonly inDom: number;
  readonly nextFrame: number;
}

/** First body byte to first paint, `SAMPLES` times; `ask` sends one question and resolves when it was sent. */
async function firstPaints(workbench: Workbench, surface: () => Promise<Locator>, ask: (question: string) => Promise<void>, isDone: () => Promise<boolean>): Promise<FirstPaint[]> {
  const latencies: FirstPaint[] = [];
  // One answer first, not counted: the surface then exists and has loaded what an answer needs.
  for (let i = 0; i <= SAMPLES; i++) {
    const body = i > 0 ? await surface() : undefined;
    if (body !== undefined && (await body.evaluate(readProbe)) === undefined) await probe(body, { markers: true, done: false });
    const before = timedRequests(workbench).length;
    await delay(300);
    await askOnce(workbench, () => ask(`How fast is the first byte? (${i})`), before);
    const request = await nextAnswer(workbench, before);
    if (body !== undefined) {
      const marker = request.marker ?? '';
      // The probe keeps the time; reading it (a CDP call into the page's main thread) waits until
      // the answer has had time to paint, so the reading does not compete with what it measures.
      await delay(QUIET_MS);
      const mark = await waitFor(`${marker} to be painted`, async () => (await read(body)).marks[marker], 30_000, 100);
      const first = request.firstBodyByteAt ?? Number.NaN;
      const arrivedAt = (await read(body)).arrivals[marker];
      latencies.push({ painted: mark.shownAt === undefined ? undefined : mark.shownAt - first, arrived: arrivedAt === undefined ? undefined : arrivedAt - first, inDom: mark.domAt - first, nextFrame: mark.paintedAt - first });
    }
    await waitFor('the answer to end', isDone, 30_000, 100);
  }
  return latencies;
}

/**
 * Asks, and asks again once if the UI lost the question before it was sent (a quick pick that
 * closes while it fills, on a busy machine).
 */
async function askOnce(workbench: Workbench, ask: () => Promise<void>, before: number): Promise<void> {
  try {
    await ask();
  } catch (error) {
    if (timedRequests(workbench).length > before) return;
    console.error(`retrying a question the UI lost: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    await workbench.page.screenshot({ path: path.join(resultsDir(), 'workbench-bench-lost-question.png') }).catch(() => undefined);
    await workbench.page.keyboard.press('Escape');
    await delay(500);
    await ask();
  }
}

/**
 * The paint as the browser reports it (Element Timing) where it does for every sample; else the
 * first animation frame after the text was in the DOM. That frame begins after the paint when the
 * text came in a frame's render, but before it when the text came between frames (the first text
 * is rendered as its message arrives): both are printed.
 */
function latencyRows(where: string, samples: readonly FirstPaint[]): BenchRow[] {
  const painted = samples.map((sample) => sample.painted).filter((value): value is number => value !== undefined);
  const frames = samples.map((sample) => sample.nextFrame);
  const byTiming = painted.length === samples.length;
  const latencies = byTiming ? painted : frames;
  const m = median(latencies);
  const other = byTiming ? `; DOM → next animation frame ${ms(median(frames))} median` : '; no Element Timing: DOM → next animation frame';
  // Where the time goes: the text's way to the webview (extension host, code-server, the
  // workbench's relay), then the webview's render and the browser's paint.
  const split = samples.filter((sample): sample is FirstPaint & { arrived: number; painted: number } => sample.arrived !== undefined && sample.painted !== undefined);
  const parts = split.length === 0 ? '' : `; of which the way to the webview ${ms(median(split.map((sample) => sample.arrived)))}, its render ${ms(median(split.map((sample) => sample.inDom - sample.arrived)))} and the browser's frame and paint ${ms(median(split.map((sample) => sample.painted - sample.inDom)))}, medians`;
  return [{
    name: `workbench: first body byte at the socket → first text painted in the ${where}, median of ${latencies.length}`,
    value: `${ms(m)} (worst ${ms(Math.max(...latencies))}, best ${ms(Math.min(...latencies))}${other}${parts})`,
    goal: `≤ ${FIRST_PAINT_GOAL_MS} ms`,
    ok: m <= FIRST_PAINT_GOAL_MS,
  }];
}

async function panelBody(page: Page): Promise<{ frame: FrameLocator; body: Locator }> {
  const frame = await surfaceFrame(page, 'panel');
  return { frame, body: frame.locator('body') };
}

/**
 * Polls the probe in `target` until `pick` finds what it waits for, at most `capMs`. Also tracks
 * how long the page went without answering: a page that does not answer has a busy main thread.
 * The element is found once and polled through its handle: a locator finds it again at every
 * call, and Playwright's search walks the whole document (into shadow roots), which took 20 to
 * 33 ms of the webview's main thread in a 10 MiB answer's DOM, twenty times a second: the bench
 * made stalls of its own in what it measured.
 */
async function watch<T>(target: Locator, pick: (record: ProbeRecord) => T | undefined, capMs: number): Promise<{ found?: T; record?: ProbeRecord; silentMs: number }> {
  const deadline = Date.now() + capMs;
  const element = await target.elementHandle();
  try {
    return await pollProbe(element, pick, deadline);
  } finally {
    await element.dispose();
  }
}

async function pollProbe<T>(element: ElementHandle, pick: (record: ProbeRecord) => T | undefined, deadline: number): Promise<{ found?: T; record?: ProbeRecord; silentMs: number }> {
  let lastAnswer = Date.now();
  let longestSilence = 0;
  let record: ProbeRecord | undefined;
  while (Date.now() < deadline) {
    const asked = Date.now();
    // A reloaded webview rejects (the element is gone); a busy one answers late, which is measured.
    record = await element.evaluate(readProbe).catch(() => undefined);
    if (record !== undefined) {
      longestSilence = Math.max(longestSilence, asked - lastAnswer);
      lastAnswer = Date.now();
      const found = pick(record);
      if (found !== undefined) return { found, record, silentMs: longestSilence };
    }
    await delay(50);
  }
  return { record, silentMs: Math.max(longestSilence, Date.now() - lastAnswer) };
}

function stallRow(thread: string, stall: Stall | undefined, silentMs: number, goal: boolean, what = 'it streams'): BenchRow {
  const value = stall === undefined
    ? `≥ ${ms(silentMs)} (the page did not answer for that long, and had not finished)`
    : `${ms(Math.max(stall.gap, stall.task))} (longest rAF gap ${stall.gap.toFixed(1)} ms, ${Math.round(stall.gap / FRAME_MS)} frames at 60 Hz, ending ${ms(stall.gapEndedAfter)} after the first byte; ${stall.gapsOver} gaps over ${ms(STALL_GOAL_MS)}, ${stall.gapsOverAfterLast} of them after the last text arrived; longest long task ${ms(stall.task)}, ${stall.tasks} long tasks)`;
  const met = stall === undefined ? silentMs <= STALL_GOAL_MS : !gapOverGoal(stall.gap) && stall.task <= STALL_GOAL_MS;
  return {
    name: `workbench: longest stall of the ${thread} main thread while ${what} (rAF gaps, to a frame's drift; long tasks)`,
    value,
    ...(goal ? { goal: `≤ ${STALL_GOAL_MS} ms`, ok: met } : {}),
    ...(stall === undefined ? {} : { figure: Math.max(stall.gap, stall.task) }),
  };
}

/**
 * The webview's and the workbench's stall rows of an answer into the panel, from its first byte
 * to its final DOM; gaps are counted as after the end from when its last text reached the view.
 */
async function panelStallRows(panel: ProbeRecord, top: ProbeRecord, first: number, doneAt: number, last: number, silentMs: number, what?: string, goal = true): Promise<BenchRow[]> {
  const lastText = panel.lastTextAt ?? last;
  // Long animation frames are reported to the workbench's page only (the webview is a
  // cross-origin frame in it), without the webview's scripts by name.
  const workbenchStall = longestStall(top, first, doneAt, lastText);
  const host = await hostLagBetween(hostLag.file, first, doneAt, STALL_GOAL_MS);
  return [
    stallRow('webview', longestStall(panel, first, doneAt, lastText), silentMs, goal, what),
    stallRow('workbench', workbenchStall, silentMs, goal, what),
    { name: `workbench: the workbench's longest stall while ${what ?? 'it streams'}, by its long animation frames`, value: stallFrames(top, first + workbenchStall.gapEndedAfter, workbenchStall.gap) },
    { name: `workbench: every rAF gap of the workbench over ${ms(STALL_GOAL_MS)} while ${what ?? 'it streams'} (after the first byte), with its long animation frames`, value: everyGap(top, first, doneAt) },
    {
      name: `workbench: the extension host's longest event-loop delay while ${what ?? 'it streams'} (no extension's work runs meanwhile)`,
      value: `${ms(host.longest)}; ${host.over.length} delays over ${ms(STALL_GOAL_MS)}${host.over.map((delay) => `, ${ms(delay.late)} ending +${ms(delay.endedAfter)}`).join('')} (the last byte +${ms(last - first)}, final DOM +${ms(doneAt - first)})`,
      figure: host.longest,
    },
  ];
}

/** Every rAF gap over the goal in [from, to], as "ending at +N ms: G ms (its long frames)". */
function everyGap(record: ProbeRecord, from: number, to: number): string {
  const gaps = record.gaps.filter(([end, length]) => end >= from && end - length <= to && gapOverGoal(length));
  if (gaps.length === 0) return 'none';
  return gaps
    .map(([end, length]) => `ending +${ms(end - from)}: ${ms(length)} (${stallFrames(record, end, length)})`)
    .join('; ');
}

/**
 * Every rAF gap of the workbench over the goal in `window` (first byte → final DOM, as everyGap),
 * from the run's trace: the processor time its main thread (the workbench's and the webview's)
 * spent in it, and its longest task. Where that time fits in PAGE_SHARE_MS, the page's own work
 * would have fitted in two frames had it had a processor: the rest of the gap went to waiting (the
 * machine's other work, or a frame the compositor did not begin).
 */
function traceGapRow(json: string, window: readonly [number, number], what: string): BenchRow {
  const [from, to] = window;
  const gaps = gapsInTrace(json, (end, length) => end >= from && end - length <= to && gapOverGoal(length));
  const fits = gaps.filter((gap) => gap.cpuMs <= PAGE_SHARE_MS).length;
  const each = gaps.map((gap) => `ending +${ms(gap.end - from)}: ${ms(gap.length)}, ${gap.cpuMs.toFixed(1)} ms on a processor (its longest task ${ms(gap.longestMs)}, ${gap.longestCpuMs.toFixed(1)} ms)`);
  return {
    name: `workbench: every rAF gap of the workbench over ${ms(STALL_GOAL_MS)} while ${what}, with its main thread's processor time in it (from the run's trace)`,
    value: gaps.length === 0 ? 'none' : `${each.join('; ')}; in ${fits} of ${gaps.length} its work fitted in ${ms(PAGE_SHARE_MS)}`,
  };
}

/**
 * Asks application `name` (its template the 10 MiB answer's) from the palette into the answer
 * panel, with the probe in the panel's webview (`options`) and in the workbench; returns when the
 * service has written the whole answer, with when it wrote its first and last byte and the
 * processor times when the request reached the service.
 */
async function askBig(workbench: Workbench, name: string, question: string, options: ProbeOptions): Promise<{ frame: FrameLocator; body: Locator; workbenchBody: Locator; first: number; last: number; cpuBefore: Awaited<ReturnType<typeof cpuSnapshot>> }> {
  const { page } = workbench;
  await updateSettings(workbench, name, { 'applicationQuery.output': 'panel' });
  const { frame, body } = await panelBody(page);
  const workbenchBody = page.locator('body');
  await probe(body, options);
  await probe(workbenchBody, { markers: false, done: false, markGaps: true });
  const before = timedRequests(workbench).length;
  await askOnce(workbench, () => queryFromPalette(page, name, question), before);
  // From when the request reached the service (it waits 250 ms before its headers): not the palette's work.
  await waitFor('the request to reach the service', () => timedRequests(workbench)[before] ?? undefined, 60_000, 5);
  const cpuBefore = await cpuSnapshot(spinners);
  const request = await nextAnswer(workbench, before, 120_000);
  if (!request.body.includes(`"size":${BIG}`)) throw new Error(`the 10 MiB template was not in effect: ${request.body.slice(0, 200)}`);
  return { frame, body, workbenchBody, first: request.firstBodyByteAt ?? Number.NaN, last: request.lastBodyByteAt ?? Number.NaN, cpuBefore };
}

/**
 * The 10 MiB answer into the answer panel: last byte to final DOM, and both main threads' longest
 * stall. Waits at most `BIG_CAP_MS` after the last byte; runs last, as a webview that has not
 * finished by then may keep the browser busy until it closes.
 */
async function bigIntoPanel(workbench: Workbench): Promise<PartRun> {
  const { frame, body, workbenchBody, first, last, cpuBefore } = await askBig(workbench, BIG_NAME, 'Ten mebibytes, please', { markers: false, done: true });
  const seen = await watch(body, settledDone, BIG_CAP_MS);
  const cpu = cpuBetween(cpuBefore, await cpuSnapshot(spinners));
  await writeHostProfile();
  const name = `workbench: ${BIG / MiB} MiB markdown answer into the panel at full socket speed: last byte written → final DOM`;
  const goal = `≤ ${FINAL_DOM_GOAL_MS} ms`;
  if (seen.found === undefined || seen.record === undefined) {
    return {
      rows: [
        { name, value: `not within ${ms(BIG_CAP_MS)} (socket wrote it in ${ms(last - first)})`, goal, ok: false },
        stallRow('webview (and workbench: one process)', undefined, seen.silentMs, true),
      ],
    };
  }
  const panel = seen.record;
  const top = await read(workbenchBody);
  const doneAt = panel.doneAt ?? Number.NaN;
  const answer = frame.locator('[data-role="assistant"] .aq-answer').last();
  const expected = Number(/Last section: (\d+)\./.exec(await answer.locator('p').last().textContent() ?? '')?.[1]);
  // Past 6 Mi characters the oldest blocks fold into one row at the top (render/answer.ts): the
  // final DOM is not the one-shot render's, and is not compared with it. What is in the page: the
  // fold, then whole sections of six top-level blocks each (heading, paragraph, list, code, table,
  // quote) up to the last, and the last paragraph; before the first shown heading, the rest of a
  // section whose start folded.
  const blocks = await answer.evaluate((element) => {
    const children = [...element.children].filter((child) => child.getAttribute('data-role') !== 'fold');
    const headings = children.flatMap((child, at) => (child.localName === 'h2' ? [{ at, n: Number(/^Section (\d+)$/.exec(child.textContent ?? '')?.[1]) }] : []));
    const consecutive = headings.every((heading, i) => i === 0 || heading.n === headings[i - 1].n + 1);
    return { folded: element.querySelector(':scope > [data-role="fold"]') !== null, shown: children.length, first: headings[0]?.n ?? Number.NaN, lastHeading: headings[headings.length - 1]?.n ?? Number.NaN, consecutive, afterFirst: headings.length === 0 ? 0 : children.length - headings[0].at, beforeFirst: headings[0]?.at ?? children.length };
  });
  const sectionsShown = blocks.lastHeading - blocks.first + 1;
  const complete = blocks.lastHeading === expected && blocks.consecutive && blocks.afterFirst === 6 * sectionsShown + 1 && blocks.beforeFirst < 6;
  const sections = `${expected} sections; the fold ${blocks.folded ? 'shown' : 'missing'}; sections ${blocks.first} to ${blocks.lastHeading} in ${blocks.shown} top-level blocks after it (${blocks.beforeFirst} before the first heading), every block there ${String(complete)}`;
  const lastToFinal = doneAt - last;
  const rows: BenchRow[] = [
    {
      name,
      value: `${ms(lastToFinal)} (painted +${ms((panel.donePaintedAt ?? doneAt) - doneAt)}; socket wrote it in ${ms(last - first)}, its last text reached the webview +${ms((panel.lastTextAt ?? Number.NaN) - last)} after the last byte, the end +${ms((panel.endAt ?? Number.NaN) - last)}; first byte → final DOM ${ms(doneAt - first)}; ${(panel.textChars / MiB).toFixed(1)} Mi characters of it passed to the webview; ${sections}${busyAgain(panel)})`,
      goal,
      ok: lastToFinal <= FINAL_DOM_GOAL_MS && complete && blocks.folded,
      figure: lastToFinal,
    },
    {
      name: 'workbench: the same answer: its last text reached the webview → final DOM (the webview\'s own part)',
      value: ms(doneAt - (panel.lastTextAt ?? Number.NaN)),
    },
    ...(await panelStallRows(panel, top, first, doneAt, last, seen.silentMs)),
    { name: 'workbench: the same answer: the machine\'s processor time from the request at the service to the final DOM, by role', value: cpu },
  ];
  return { rows, window: [first, doneAt], stall: longestStall(top, first, doneAt, panel.lastTextAt ?? last), textChars: panel.textChars };
}

/**
 * The floor under the 10 MiB answer's stall: the same answer into the panel while its webview runs
 * the floor's script (see floor.ts), which renders nothing. What stalls the workbench then is
 * everything else on the machine: the extension host taking the answer in, code-server relaying
 * its messages on the workbench's main thread, the browser's other processes, and with one core
 * busy the spinner. From the first byte until the answer's end reached the webview.
 */
async function floorIntoPanel(workbench: Workbench): Promise<PartRun> {
  const { body, workbenchBody, first, last, cpuBefore } = await askBig(workbench, FLOOR_NAME, 'Ten mebibytes, into a page that renders nothing, please', { markers: false, done: false });
  const what = FLOOR_WHAT;
  // Its window ends with the last text or the end, whichever came later, once none came for a while.
  const seen = await watch(body, (record) => {
    if (record.endAt === undefined) return undefined;
    const lastText = Math.max(record.endAt, record.lastTextAt ?? 0);
    return Date.now() - lastText >= FLOOR_QUIET_MS ? lastText : undefined;
  }, BIG_CAP_MS);
  const cpu = cpuBetween(cpuBefore, await cpuSnapshot(spinners));
  if (seen.found === undefined || seen.record === undefined) {
    return { rows: [stallRow('webview (the floor)', undefined, seen.silentMs, false, what)] };
  }
  const floor = seen.record;
  const top = await read(workbenchBody);
  const endAt = seen.found;
  const rows: BenchRow[] = [
    { name: 'workbench: the floor: its end and all its text reached the webview, after the last byte', value: `${ms(endAt - last)} (${(floor.textChars / MiB).toFixed(1)} Mi characters passed to the webview, none rendered)` },
    ...(await panelStallRows(floor, top, first, endAt, last, seen.silentMs, what, false)),
    { name: 'workbench: the floor: the machine\'s processor time from the request at the service to the end in the webview, by role', value: cpu },
  ];
  return { rows, window: [first, endAt], stall: longestStall(top, first, endAt, floor.lastTextAt ?? last), textChars: floor.textChars };
}

/**
 * Makes the panel's webview run `script` (see floor.ts): swaps the linked copy's script and
 * reloads the webviews (VS Code's Developer: Reload Webviews); waits until the panel runs it and
 * has taken the state the extension host sends a webview that says `ready` (the real panel: its
 * last answer all rendered).
 */
async function reloadPanelWith(workbench: Workbench, extension: SwappableExtension, script: WebviewScript): Promise<void> {
  await extension.use(script);
  await runCommand(workbench.page, 'Developer: Reload Webviews');
  await waitFor(`the panel to run the ${script} script`, async () => {
    const { body } = await panelBody(workbench.page);
    const shown = await body
      .evaluate((element) => ({ floor: element.dataset.floor, status: element.dataset.status, busy: [...element.querySelectorAll('[data-role="assistant"]')].pop()?.getAttribute('aria-busy') }), undefined, { timeout: 5000 })
      .catch(() => undefined);
    if (shown === undefined) return undefined;
    return (script === 'floor' ? shown.floor === 'state' : shown.floor === undefined && shown.status === 'done' && shown.busy !== 'true') || undefined;
  }, 120_000, 250);
  await delay(QUIET_MS);
}

/**
 * The floor and the panel alternated in one run, FLOOR_PAIRS times each (floor, panel, floor,
 * panel…): each one's rows merged over its runs (see merged), and the workbench's stalls over the
 * goal of both side by side, with the goal (#52) that the panel's be no more frequent and no
 * longer than the floor's.
 */
async function floorBesidePanel(workbench: Workbench, extension: SwappableExtension, floorRun: () => Promise<PartRun>, panelRun: () => Promise<PartRun>): Promise<BenchRow[]> {
  const floors: PartRun[] = [];
  const panels: PartRun[] = [];
  try {
    for (let i = 0; i < FLOOR_PAIRS; i++) {
      await reloadPanelWith(workbench, extension, 'floor');
      floors.push(await floorRun());
      await reloadPanelWith(workbench, extension, 'real');
      panels.push(await panelRun());
    }
  } finally {
    await extension.use('real');
  }
  const over = (runs: readonly PartRun[]): number[] => runs.map((run) => run.stall?.gapsOver ?? Number.NaN);
  const longest = (runs: readonly PartRun[]): number[] => runs.map((run) => run.stall?.gap ?? Number.NaN);
  const spans = (runs: readonly PartRun[]): string => runs.map((run) => (run.window === undefined ? '?' : ms(run.window[1] - run.window[0]))).join(', ');
  const chars = (runs: readonly PartRun[]): string => runs.map((run) => ((run.textChars ?? Number.NaN) / MiB).toFixed(1)).join(', ');
  const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
  const floorOver = over(floors);
  const panelOver = over(panels);
  const floorLongest = Math.max(...longest(floors));
  const panelLongest = Math.max(...longest(panels));
  const what = `while the ${BIG / MiB} MiB answer streams (first byte → final DOM; the floor's: → its end), ${FLOOR_PAIRS} pairs alternated`;
  return [
    {
      name: `workbench: stalls of the workbench's main thread over ${ms(STALL_GOAL_MS)} (rAF gaps) ${what}: the floor (a page that renders nothing) beside the panel`,
      value: `floor ${floorOver.join(', ')} (${sum(floorOver)} in all, in ${spans(floors)}, ${chars(floors)} Mi characters passed to the page); panel ${panelOver.join(', ')} (${sum(panelOver)} in all, in ${spans(panels)}, ${chars(panels)} Mi characters passed)`,
      goal: 'panel ≤ floor, in all',
      ok: sum(panelOver) <= sum(floorOver),
    },
    {
      name: `workbench: the longest stall of the workbench's main thread (rAF gap) ${what}: the floor beside the panel`,
      value: `floor ${longest(floors).map(ms).join(', ')} (worst ${ms(floorLongest)}); panel ${longest(panels).map(ms).join(', ')} (worst ${ms(panelLongest)})`,
      goal: "panel's worst ≤ the floor's worst",
      ok: panelLongest <= floorLongest + FRAME_DRIFT_MS,
    },
    ...merged(floors.map((run) => run.rows)),
    ...merged(panels.map((run) => run.rows)),
  ];
}

/**
 * One 512 KiB block (a code block, a list or a table) arriving in about half a second into the
 * answer panel: last byte to final DOM (all of it there; a code block highlighted up to the limit),
 * and both main threads' longest stall.
 */
async function blockIntoPanel(workbench: Workbench, shape: BlockShape): Promise<PartRun> {
  const { page } = workbench;
  const block = BLOCKS[shape];
  const what = blockWhat(shape);
  await updateSettings(workbench, block.name, { 'applicationQuery.output': 'panel' }, blockTemplate(shape));
  const { frame, body } = await panelBody(page);
  const workbenchBody = page.locator('body');
  await probe(body, { markers: false, done: true });
  await probe(workbenchBody, { markers: false, done: false, markGaps: true });
  const before = timedRequests(workbench).length;
  await queryFromPalette(page, block.name, block.question);
  const request = await nextAnswer(workbench, before, 120_000);
  if (!request.body.includes(`"shape":"${shape}"`)) throw new Error(`the ${shape} template was not in effect: ${request.body.slice(0, 200)}`);
  const first = request.firstBodyByteAt ?? Number.NaN;
  const last = request.lastBodyByteAt ?? Number.NaN;
  const seen = await watch(body, settledDone, BIG_CAP_MS);
  const name = `workbench: one ${CODE_SIZE / 1024} KiB ${block.label} arriving in ~0.5 s into the panel: last byte written → final DOM`;
  const goal = `≤ ${CODE_FINAL_GOAL_MS} ms`;
  if (seen.found === undefined || seen.record === undefined) {
    return { rows: [{ name, value: `not within ${ms(BIG_CAP_MS)} (socket wrote it in ${ms(last - first)})`, goal, ok: false }, stallRow('webview', undefined, seen.silentMs, true, what)] };
  }
  const panel = seen.record;
  const top = await read(workbenchBody);
  const doneAt = panel.doneAt ?? Number.NaN;
  const answer = frame.locator('[data-role="assistant"] .aq-answer').last();
  const found = await blockThere(answer, shape);
  const lastToFinal = doneAt - last;
  const rows: BenchRow[] = [
    {
      name,
      value: `${ms(lastToFinal)} (socket wrote it in ${ms(last - first)}; its last text reached the webview +${ms((panel.lastTextAt ?? Number.NaN) - last)}; ${found.detail}${busyAgain(panel)})`,
      goal,
      ok: lastToFinal <= CODE_FINAL_GOAL_MS && found.whole,
    },
    ...(await panelStallRows(panel, top, first, doneAt, last, seen.silentMs, what)),
  ];
  return { rows, window: [first, doneAt] };
}

/** Whether all of a long block is in the answer (its count from the line after it, service/apps.ts), and what was found. */
async function blockThere(answer: Locator, shape: BlockShape): Promise<{ whole: boolean; detail: string }> {
  const after = (await answer.locator('p').last().textContent()) ?? '';
  if (shape === 'code') {
    const functions = Number(/Functions: (\d+)\./.exec(after)?.[1]);
    const code = await answer.locator('.aq-code code').first().evaluate((element, n) => ({ whole: (element.textContent ?? '').includes(`export async function step${n}(`), keywords: element.querySelectorAll('.hljs-keyword').length }), functions);
    return { whole: code.whole, detail: `${functions} functions, all there ${String(code.whole)}, ${code.keywords} keywords highlighted` };
  }
  if (shape === 'list') {
    const items = Number(/Items: (\d+)\./.exec(after)?.[1]);
    const list = await answer.evaluate((element, n) => {
      const lists = element.querySelectorAll(':scope > ul');
      const entries = lists.length === 1 ? lists[0].querySelectorAll(':scope > li') : [];
      return { lists: lists.length, entries: entries.length, last: (entries[entries.length - 1]?.textContent ?? '').startsWith(`Item ${n}:`) };
    }, items);
    const whole = list.lists === 1 && list.entries === items && list.last;
    return { whole, detail: `${items} items; ${list.lists} lists holding ${list.entries} items, the last one's text there ${String(list.last)}` };
  }
  const expected = Number(/Rows: (\d+)\./.exec(after)?.[1]);
  const table = await answer.evaluate((element) => {
    const tables = element.querySelectorAll('table');
    const rows = tables.length === 1 ? tables[0].querySelectorAll('tbody > tr') : [];
    return { tables: tables.length, rows: rows.length, last: rows[rows.length - 1]?.querySelector('td')?.textContent ?? '' };
  });
  const whole = table.tables === 1 && table.rows === expected && table.last === String(expected);
  return { whole, detail: `${expected} rows; ${table.tables} tables holding ${table.rows} rows, the last one numbered ${table.last}` };
}

/** The same answer into the output channel, for comparison: last byte to the footer in view, and the workbench's longest stall. */
async function bigIntoChannel(workbench: Workbench): Promise<BenchRow[]> {
  const { page } = workbench;
  await updateSettings(workbench, CHANNEL_NAME, { 'applicationQuery.output': 'outputChannel' });
  await showOutputChannel(page, 'Application Query');
  const workbenchBody = page.locator('body');
  await probe(workbenchBody, { markers: false, done: false, footer: BIG_FOOTER.source });
  const before = timedRequests(workbench).length;
  await queryFromPalette(page, CHANNEL_NAME, 'Ten mebibytes into the channel, please');
  const request = await nextAnswer(workbench, before, 120_000);
  const first = request.firstBodyByteAt ?? Number.NaN;
  const last = request.lastBodyByteAt ?? Number.NaN;
  const seen = await watch(workbenchBody, (record) => record.footerPaintedAt, BIG_CAP_MS);
  const name = 'workbench: the same answer into the output channel: last byte written → footer "complete" in view';
  if (seen.found === undefined || seen.record === undefined) {
    return [{ name, value: `not within ${ms(BIG_CAP_MS)} (socket wrote it in ${ms(last - first)})` }, stallRow('workbench (output channel)', undefined, seen.silentMs, false)];
  }
  const footerAt = seen.record.footerAt ?? Number.NaN;
  return [
    { name, value: `${ms(footerAt - last)} (socket wrote it in ${ms(last - first)}, first byte → footer ${ms(footerAt - first)})` },
    stallRow('workbench (output channel)', longestStall(seen.record, first, footerAt, last), seen.silentMs, false),
  ];
}

/** Runs `part` `times` times; the rows of several runs merged (see merged). */
async function repeated(times: number, part: () => Promise<BenchRow[]>): Promise<BenchRow[]> {
  const runs: BenchRow[][] = [];
  for (let i = 0; i < times; i++) runs.push(await part());
  return merged(runs);
}

/**
 * The rows of several runs of a part, merged: a row with a figure prints its median, worst and
 * each run's (its goal met only if met in every run), any other row each run's value.
 */
function merged(runs: readonly BenchRow[][]): BenchRow[] {
  if (runs.length === 1) return runs[0];
  return sideBySide(runs.map((rows, i) => [`run ${i + 1}`, rows] as const)).map((row) => {
    const figures = runs.flatMap((rows) => rows.find((each) => each.name === row.name)?.figure ?? []);
    if (figures.length !== runs.length) return row;
    return { ...row, value: `median ${ms(median(figures))}, worst ${ms(Math.max(...figures))} of ${runs.length} runs (${figures.map(ms).join(', ')})` };
  });
}

function load(): string {
  return os.loadavg().map((n) => n.toFixed(1)).join(' / ');
}

/** Runs the workbench benchmark and returns its rows (prints nothing). */
export async function runWorkbenchBench(): Promise<BenchRow[]> {
  const loadBefore = load();
  hostLag = await hostLagProbe();
  // The extension is linked from a copy whose webview script the floor swaps (floor.ts).
  const extension = await swappableExtension(repoRoot());
  const workbench = await launchWorkbench({
    version: '4.139.1',
    alsoInstall: [hostLag.folder],
    extensionFolder: extension.folder,
    env: hostLag.env,
    serviceOptions: { quiet: true },
    userSettings: { ...applicationsWith(APP.name, LATENCY_TEMPLATE), 'applicationQuery.output': 'panel' },
  }).catch(async (error: unknown) => {
    // The probe's folder and the copy go with a workbench that did not start, too.
    await rm(hostLag.folder, { recursive: true, force: true });
    await extension.dispose();
    throw error;
  });
  try {
    await setApiKey(workbench, APP.name, APP.id);
    const rows: BenchRow[] = [];
    // Each part idle and with one core busy (#24), its figures side by side.
    const underLoads = async (part: () => Promise<BenchRow[]>): Promise<BenchRow[]> => {
      const byLoad: Array<readonly [string, BenchRow[]]> = [];
      for (const [load, run] of loads()) byLoad.push([load, await run(part)]);
      return sideBySide(byLoad);
    };
    if (PARTS.has('paint')) {
      rows.push(...(await underLoads(() => paintRows(workbench))));
    } else if (['panel', 'code', 'list', 'table', 'floor'].some((part) => PARTS.has(part))) {
      // The long blocks' and 10 MiB runs reuse an open answer panel: one short answer opens it.
      await queryFromPalette(workbench.page, APP.name, 'Open the panel, please');
      await waitFor('the short answer to end', async () => (await (await panelBody(workbench.page)).body.getAttribute('data-status')) === 'done' || undefined, 30_000, 100);
    }
    // The output channel is a comparison (no goal): idle only.
    if (PARTS.has('channel')) rows.push(...(await bigIntoChannel(workbench)));
    // Traces are numbered per run: trace.1.json, …; the floor's trace.floor.1.json, …, the code
    // block's trace.code.1.json, …. A traced run also says what the workbench's main thread did in
    // each of its stalls (see traceGapRow).
    const tracing = (part: string, what: string, run: () => Promise<PartRun>): (() => Promise<PartRun>) => {
      let traces = 0;
      return async () => {
        const file = TRACE_FILE === undefined ? undefined : TRACE_FILE.replace(/(\.json)?$/, `${part}.${++traces}$1`);
        const result = await traced(workbench.page, file, `the run while ${what}`, run, process.env.AQ_WB_TRACE_JS === '1');
        return file === undefined || result.window === undefined ? result : { ...result, rows: [...result.rows, traceGapRow(await readFile(file, 'utf8'), result.window, what)] };
      };
    };
    const rowsOf = (run: () => Promise<PartRun>) => async (): Promise<BenchRow[]> => (await run()).rows;
    for (const shape of ['code', 'list', 'table'] as const) {
      if (PARTS.has(shape)) rows.push(...(await underLoads(rowsOf(tracing(`.${shape}`, blockWhat(shape), () => blockIntoPanel(workbench, shape))))));
    }
    const panelRun = tracing('', 'it streams', () => bigIntoPanel(workbench));
    if (PARTS.has('floor')) {
      const floorRun = tracing('.floor', FLOOR_WHAT, () => floorIntoPanel(workbench));
      rows.push(...(await underLoads(() => floorBesidePanel(workbench, extension, floorRun, panelRun))));
    } else if (PARTS.has('panel')) {
      rows.push(...(await underLoads(() => repeated(REPEAT, rowsOf(panelRun)))));
    }
    rows.push({ name: 'workbench: machine', value: `${os.cpus().length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, Debian Chromium headless, code-server 4.139.1; load average (1/5/15 min) ${loadBefore} before, ${load()} after` });
    return rows;
  } finally {
    await workbench.close();
    await rm(hostLag.folder, { recursive: true, force: true });
    await extension.dispose();
  }
}

/** First body byte to first paint in the answer panel and in the Chat view. */
async function paintRows(workbench: Workbench): Promise<BenchRow[]> {
  const { page } = workbench;
  // The answer panel: asked from the palette; a finished panel of the application is reused.
  const panel = async (): Promise<Locator> => (await panelBody(page)).body;
  const panelLatencies = await firstPaints(workbench, panel, (question) => queryFromPalette(page, APP.name, question), async () => (await (await panel()).getAttribute('data-status')) === 'done');

  // The Chat view in the side bar: asked from its composer.
  await openViewContainer(page, 'Application Query');
  const chat = await surfaceFrame(page, 'chat');
  await chat.locator('select#aq-application').selectOption(APP.id);
  const chatLatencies = await traced(page, process.env.AQ_WB_TRACE_PAINT, 'the Chat view first paints', () => firstPaints(workbench, () => Promise.resolve(chat.locator('body')), (question) => sendFromComposer(chat, question), async () => (await chat.locator('[data-role="assistant"]').last().getAttribute('data-status')) === 'done'), true);
  return [...latencyRows('answer panel', panelLatencies), ...latencyRows('Chat view', chatLatencies)];
}

