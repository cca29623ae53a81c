// The renderer live, one answer shape at a time: text arrives at about 1 MiB/s and every real
// animation frame takes what arrived since the last one (the way the webview bridge batches).
import type { Page } from 'playwright-core';
import type { BenchRow } from './core';
import { longShapes } from '../test/browser/shapes';

const MIB = 1024 * 1024;
/** The arrival rate of the live runs. */
const BYTES_PER_SECOND = MIB;

interface LiveResult {
  /** Time inside frames (append, render, scroll into view), summed: the renderer's cost. */
  readonly renderMs: number;
  readonly wallMs: number;
  readonly frames: number;
  readonly longestFrameMs: number;
  readonly longestGapMs: number;
  readonly lastByteToFinalMs: number;
  readonly equal: boolean;
}

/**
 * Runs in the page: streams `text` into a transcript styled by the real webview.css at
 * `bytesPerSecond`, one append and one render per animation frame, following the answer to the
 * bottom as the chat view does; the last frame finishes the answer.
 */
async function streamLive(args: { text: string; bytesPerSecond: number }): Promise<LiveResult> {
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
  const renderer = new window.AQ.IncrementalRenderer(container, {
    onRender: () => {
      scroller.scrollTop = scroller.scrollHeight;
    },
    scheduleFrame: (callback) => void pending.push(callback),
  });
  const nextFrame = (): Promise<number> => new Promise((resolve) => requestAnimationFrame(resolve));
  let offset = 0;
  let renderMs = 0;
  let frames = 0;
  let longestFrameMs = 0;
  let longestGapMs = 0;
  let lastByteToFinalMs = 0;
  let previous = await nextFrame();
  const start = previous;
  while (offset < args.text.length) {
    const now = await nextFrame();
    longestGapMs = Math.max(longestGapMs, now - previous);
    previous = now;
    const frameStart = performance.now();
    const due = Math.min(args.text.length, Math.round(((frameStart - start) / 1000) * args.bytesPerSecond));
    if (due > offset) {
      renderer.append(args.text.slice(offset, due));
      offset = due;
    }
    const callbacks = pending;
    pending = [];
    for (const callback of callbacks) {
      callback();
    }
    if (offset >= args.text.length) {
      renderer.finish();
      void scroller.scrollHeight;
      lastByteToFinalMs = performance.now() - frameStart;
    }
    const frameMs = performance.now() - frameStart;
    renderMs += frameMs;
    longestFrameMs = Math.max(longestFrameMs, frameMs);
    frames++;
  }
  const wallMs = performance.now() - start;
  // The browser's own work after the last frame (style, layout, paint of the final DOM).
  const after = await nextFrame();
  longestGapMs = Math.max(longestGapMs, after - previous);
  const equal = container.innerHTML === window.AQ.renderMarkdownOnce(args.text);
  chat.remove();
  return { renderMs, wallMs, frames, longestFrameMs, longestGapMs, lastByteToFinalMs, equal };
}

/** The answers measured, each at `bytes` (the table at half). */
function answers(bytes: number, generated: (bytes: number) => string): Array<[string, string]> {
  const shapes = longShapes(bytes, 7);
  return [
    ['one fenced code block (TypeScript)', shapes.fence],
    ['one list', shapes.list],
    ['one table', longShapes(bytes / 2, 7).table],
    ['one paragraph without line breaks', shapes.paragraph],
    ['the generated answer (many short blocks)', generated(bytes)],
  ];
}

function size(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** Streams each shape live at 1 and 2 MiB (tables 0.5 and 1 MiB) and reports against the goals. */
export async function runShapeBench(page: Page, generated: (bytes: number) => string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const once = answers(MIB, generated);
  const twice = answers(2 * MIB, generated);
  for (let i = 0; i < once.length; i++) {
    const [name, text] = once[i];
    const one = await page.evaluate(streamLive, { text, bytesPerSecond: BYTES_PER_SECOND });
    const two = await page.evaluate(streamLive, { text: twice[i][1], bytesPerSecond: BYTES_PER_SECOND });
    const ratio = two.renderMs / one.renderMs;
    const label = `renderer live ~1 MiB/s: ${name}, ${size(text.length)}`;
    rows.push(
      { name: `${label}: last byte to final DOM`, value: `${one.lastByteToFinalMs.toFixed(1)} ms`, goal: '≤ 100 ms', ok: one.lastByteToFinalMs <= 100 },
      {
        name: `${label}: longest frame (append + render + scroll)`,
        value: `${one.longestFrameMs.toFixed(1)} ms (longest gap between frames ${one.longestGapMs.toFixed(0)} ms)`,
        goal: '≤ 50 ms',
        ok: one.longestFrameMs <= 50,
      },
      {
        name: `${label}: total render time (inside ${one.frames} frames over ${(one.wallMs / 1000).toFixed(1)} s); final DOM equals one-shot`,
        value: `${one.renderMs.toFixed(0)} ms; ${String(one.equal && two.equal)}`,
        goal: 'true',
        ok: one.equal && two.equal,
      },
      {
        name: `${label}: total render time at ${size(twice[i][1].length)} / at ${size(text.length)}`,
        value: `${ratio.toFixed(2)} (${two.renderMs.toFixed(0)} ms; longest frame ${two.longestFrameMs.toFixed(1)} ms, last byte to final ${two.lastByteToFinalMs.toFixed(1)} ms)`,
        goal: '≤ 2.2',
        ok: ratio <= 2.2,
      },
    );
  }
  return rows;
}
