// A Chromium performance trace of part of a bench (bench only), for finding what a frame or a stall
// is made of: Chrome's performance panel and Perfetto open the file.
import { writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';

/** The rendering pipeline's categories (script, style, layout, paint, compositing, and the fonts a layout waits for), and JavaScript samples with `withSamples`. */
function categories(withSamples: boolean): string[] {
  const pipeline = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'v8.execute', 'blink', 'cc', 'gpu', 'toplevel', 'ipc', 'mojom', 'blink.user_timing', 'fonts'];
  // More categories for a closer look (env AQ_TRACE_CATEGORIES, comma-separated: `v8,disabled-by-default-v8.compile` names what V8 compiles off the main thread).
  const more = (process.env.AQ_TRACE_CATEGORIES ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  return [...pipeline, ...more, ...(withSamples ? ['disabled-by-default-v8.cpu_profiler'] : [])];
}

/**
 * Runs `part` inside a trace of `page`'s browser written to `file` (said on stderr as `what`), or
 * just runs it when no file is given.
 */
export async function traced<T>(page: Page, file: string | undefined, what: string, part: () => Promise<T>, withSamples = false): Promise<T> {
  if (file === undefined || file === '') return part();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: categories(withSamples) } });
  try {
    return await part();
  } finally {
    const done = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (event) => resolve(event.stream ?? '')));
    await cdp.send('Tracing.end');
    const handle = await done;
    const chunks: string[] = [];
    for (;;) {
      const piece = await cdp.send('IO.read', { handle, size: 1 << 20 });
      chunks.push(piece.base64Encoded === true ? Buffer.from(piece.data, 'base64').toString('utf8') : piece.data);
      if (piece.eof) break;
    }
    await cdp.send('IO.close', { handle });
    await cdp.detach();
    await writeFile(file, chunks.join(''));
    console.error(`trace of ${what}: ${file}`);
  }
}

/** One event of a Chromium trace, as far as `gapsInTrace` reads it. */
interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  /** Microseconds. */
  readonly ts: number;
  readonly dur?: number;
  /** The thread's own processor time (microseconds). */
  readonly tdur?: number;
  readonly args?: { readonly data?: { readonly message?: string } };
}

/** A rAF gap the bench's probe marked, and how much of it the page's main thread spent on a processor. */
export interface FrameGap {
  /** When the gap ended (ms since the epoch, the probe's clock) and how long it was (ms). */
  readonly end: number;
  readonly length: number;
  /** The main thread's processor time in the tasks it began in the gap, the frame that opened it included (ms). */
  readonly cpuMs: number;
  /** The longest of those tasks: its wall time and its processor time (ms). */
  readonly longestMs: number;
  readonly longestCpuMs: number;
}

/**
 * The rAF gaps the bench's probe marked in a trace written by `traced` (`console.timeStamp`,
 * "aq:gap <end> <length> <late>", see the workbench bench's probe) that `counts`, with the processor time
 * of the main thread they were marked on in each. A gap of 83 ms in which that thread ran for
 * 10 ms waited the rest of it: for a processor, or for a frame the compositor did not begin.
 */
export function gapsInTrace(json: string, counts: (end: number, length: number) => boolean): FrameGap[] {
  const events = (JSON.parse(json) as { traceEvents: TraceEvent[] }).traceEvents;
  const allTasks = events.filter((event) => event.ph === 'X' && event.name === 'ThreadControllerImpl::RunTask');
  const gaps: FrameGap[] = [];
  for (const mark of events) {
    const [kind, endText, lengthText, lateText] = (mark.name === 'TimeStamp' ? (mark.args?.data?.message ?? '') : '').split(' ');
    const [end, length, late] = [Number(endText), Number(lengthText), Number(lateText)];
    if (kind !== 'aq:gap' || !counts(end, length)) continue;
    // The mark is made in the callback of the frame that ended the gap, `late` after that frame began.
    const to = mark.ts - late * 1000;
    const from = to - length * 1000;
    const tasks = allTasks.filter((task) => task.pid === mark.pid && task.tid === mark.tid && task.ts >= from && task.ts < to);
    const longest = tasks.reduce<TraceEvent | undefined>((most, task) => ((task.dur ?? 0) > (most?.dur ?? -1) ? task : most), undefined);
    gaps.push({
      end,
      length,
      cpuMs: tasks.reduce((sum, task) => sum + (task.tdur ?? 0), 0) / 1000,
      longestMs: (longest?.dur ?? 0) / 1000,
      longestCpuMs: (longest?.tdur ?? 0) / 1000,
    });
  }
  return gaps.sort((a, b) => a.end - b.end);
}
