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
