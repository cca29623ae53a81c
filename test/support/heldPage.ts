// Page-side helpers for answers the extension host held back in part, shared by the browser
// tests' probe (test/browser/probe.ts) and the benchmark's page (bench/page.ts); both export them
// on the page's `AQ` global.
import { IncrementalRenderer, type RendererOptions } from '../../src/webview/render/incremental';
import type { HeldPiece } from '../../src/shared/answer/heldText';

/** An answer element (`out`) in a view `height` px high that scrolls (`scroller`), added to the page: the answer panel's shape. */
export function scrolledAnswer(height = 400): { scroller: HTMLElement; out: HTMLElement } {
  const scroller = document.createElement('div');
  scroller.style.height = `${height}px`;
  scroller.style.overflow = 'auto';
  const out = document.createElement('div');
  out.className = 'aq-answer';
  scroller.append(out);
  document.body.append(scroller);
  return { scroller, out };
}

/**
 * A renderer into `out` given an answer as the extension host passes it over (`pieces`: text and
 * held groups, in order), then ended. It answers the renderer's asks for held text 5 ms later, as a
 * message would (`texts`: each held group's text, by id); `options.wantHeld` sees each ask first.
 */
export function heldRenderer(out: HTMLElement, pieces: readonly HeldPiece[], texts: readonly string[], options: RendererOptions = {}): IncrementalRenderer {
  const renderer = new IncrementalRenderer(out, {
    ...options,
    wantHeld: (ids) => {
      options.wantHeld?.(ids);
      setTimeout(() => ids.forEach((id) => renderer.provideHeld(id, texts[id])), 5);
    },
  });
  for (const piece of pieces) {
    if ('text' in piece) renderer.append(piece.text);
    else renderer.hold(piece.groups);
  }
  renderer.finish();
  return renderer;
}
