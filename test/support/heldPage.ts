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

/**
 * Where held group `id` starts in `scroller` (the position to scroll to), by estimate. Held groups
 * wait in runs, in order, after the text the host passed over: each waiting element from the first
 * run on stands for `data-groups` of them (or one), so the group's place is its element's top plus
 * the estimated heights (`heights`, em, by id) of the groups before it there, scaled to the
 * element's height. Undefined if no waiting element holds it, or no run waits (the count starts at
 * the first run: a lone held group before it would shift the ids by one).
 */
export function heldGroupOffset(scroller: HTMLElement, out: HTMLElement, id: number, heights: readonly number[]): number | undefined {
  const waiting = [...out.querySelectorAll<HTMLElement>(':scope > .aq-group[style]')];
  const firstRun = waiting.findIndex((each) => each.dataset.groups !== undefined);
  // No run: nothing to count from (a slice from -1 would have counted from the last element).
  if (firstRun < 0) return undefined;
  const sum = (from: number, to: number): number => heights.slice(from, to).reduce((total, height) => total + height, 0);
  let first = 0;
  for (const element of waiting.slice(firstRun)) {
    const count = Number(element.dataset.groups ?? 1);
    if (id < first + count) {
      return element.offsetTop - scroller.offsetTop + (sum(first, id) / sum(first, first + count)) * element.offsetHeight;
    }
    first += count;
  }
  return undefined;
}

/** The waiting element of one held group (split off its run), found by its estimated height (em); undefined until it has one. */
export function heldGroupElement(out: HTMLElement, height: number): HTMLElement | undefined {
  return [...out.querySelectorAll<HTMLElement>(':scope > .aq-group[style]:not([data-groups])')].find((each) => each.style.height === `${height}em`);
}
