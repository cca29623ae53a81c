// The browser tests' renderer bundle with a work counter: it wraps the libraries the renderer calls
// (markdown-it's parsers, highlight.js, the DOMParser DOMPurify uses) to count the characters each
// one is given. The shipped bundle has none of this.
import MarkdownIt from 'markdown-it';
import hljs from 'highlight.js/lib/core';
import { IncrementalRenderer } from '../../src/webview/render/index';

export * from '../../src/webview/render/index';
export { heldGroupElement, heldGroupOffset, heldRenderer, scrolledAnswer } from '../support/heldPage';
export { GROUP_SIZE } from '../../src/shared/answer/blocks';

/** Characters given to each stage since the last reset. */
export const work = { parsed: 0, highlighted: 0, sanitized: 0 };

type Method = (this: unknown, ...args: never[]) => unknown;

/** Wraps `target[name]` so that every call adds the length of its first argument to `work[stage]`. */
function count(target: object, name: string, stage: keyof typeof work): void {
  const methods = target as Record<string, Method>;
  const original = methods[name];
  methods[name] = function (this: unknown, ...args: never[]) {
    work[stage] += String(args[0]).length;
    return original.apply(this, args);
  };
}

count(MarkdownIt.prototype, 'parse', 'parsed');
count(MarkdownIt.prototype, 'parseInline', 'parsed');
count(hljs, 'highlight', 'highlighted');
count(DOMParser.prototype, 'parseFromString', 'sanitized');

export { buildMarkup } from '../../src/webview/render/markup';
export { purifiedFragment } from '../../src/webview/render/markdown';
export { renderMarkup as markupOf } from '../../src/webview/render/parse';
export { AutoScroller } from '../../src/webview/transcript';

/**
 * The elements the page's intersection observers watch from now on (a set kept up to date), and
 * what stops keeping it.
 */
export function watchedElements(): { watched: Set<Element>; restore: () => void } {
  const watched = new Set<Element>();
  const proto = IntersectionObserver.prototype;
  type Watch = (this: IntersectionObserver, target: Element) => void;
  const observe: Watch = Reflect.get(proto, 'observe');
  const unobserve: Watch = Reflect.get(proto, 'unobserve');
  proto.observe = function (this: IntersectionObserver, target: Element) {
    watched.add(target);
    observe.call(this, target);
  };
  proto.unobserve = function (this: IntersectionObserver, target: Element) {
    watched.delete(target);
    unobserve.call(this, target);
  };
  return {
    watched,
    restore: () => {
      proto.observe = observe;
      proto.unobserve = unobserve;
    },
  };
}

/**
 * How many of the answer's groups wait for the view: a waiting element (an inline height) is one
 * group, or a run of held groups standing in one element (`data-groups` says how many); and how
 * many elements that takes.
 */
export function waitingGroups(out: Element): { groups: number; elements: number } {
  const waiting = [...out.querySelectorAll(':scope > .aq-group[style]')] as HTMLElement[];
  return { groups: waiting.reduce((sum, element) => sum + Number(element.dataset.groups ?? 1), 0), elements: waiting.length };
}

/** How many of the answer's groups are in the scroller's view, and how many of those still wait. */
export function groupsInView(scroller: Element, out: Element): { inView: number; waitingInView: number } {
  const box = scroller.getBoundingClientRect();
  const inView = [...out.querySelectorAll(':scope > .aq-group')].filter((group) => {
    const rect = group.getBoundingClientRect();
    return rect.bottom > box.top && rect.top < box.bottom;
  });
  return { inView: inView.length, waitingInView: inView.filter((group) => group.hasAttribute('style')).length };
}


/**
 * Makes the page's clock run `times` fast from now on (to a renderer, every piece of work then
 * takes that much longer: a slow page); returns what gives the page its own clock back.
 */
export function fastClock(times: number): () => void {
  const realNow = performance.now.bind(performance);
  const start = realNow();
  performance.now = () => start + (realNow() - start) * times;
  return () => {
    performance.now = realNow;
  };
}

/**
 * How the page's clock moves while a {@link onPageClock} renderer renders: real time (times
 * `slowdown`), or, with `msPerKChar`, only by the work done (that many ms per thousand characters
 * parsed), so that its budget and its pace are the same on an idle and on a busy test machine.
 * `busyMs` is added before each frame either way (the page's own layout, paint and tasks).
 * A test may change `msPerKChar` between frames (a page that gets busier or less busy).
 */
export interface PageClock {
  readonly slowdown?: number;
  readonly busyMs: number;
  msPerKChar?: number;
}

/** A renderer driven frame by frame on a page clock of its own (see {@link onPageClock}). */
export interface ClockedRenderer {
  readonly renderer: IncrementalRenderer;
  /** Runs the frames the renderer asked for; returns the characters parsed in them. */
  readonly frame: () => number;
  /** Whether the renderer asked for a frame. */
  readonly pending: () => boolean;
  /** Gives the page its own clock back. */
  readonly restore: () => void;
  /**
   * Appends the rest of the answer at once, ends it, and runs frames until it is done (at most
   * 100): the characters parsed in each, and how many groups wait for the view then.
   */
  readonly end: (rest: string) => { parsed: number[]; waiting: number };
}

/** A renderer of `out` whose frames run when `frame()` is called, in a page whose clock moves as `clock` says. */
export function onPageClock(out: HTMLElement, clock: PageClock): ClockedRenderer {
  const realNow = performance.now.bind(performance);
  const start = realNow();
  let busy = 0;
  /** The time the work of earlier frames took, at the cost of each. */
  let worked = 0;
  const slowdown = clock.slowdown ?? 1;
  const cost = (): number => clock.msPerKChar ?? 0;
  performance.now = clock.msPerKChar === undefined ? () => start + (realNow() - start) * slowdown + busy : () => start + busy + worked + (work.parsed * cost()) / 1000;
  let pending: Array<() => void> = [];
  const renderer = new IncrementalRenderer(out, { scheduleFrame: (callback) => void pending.push(callback) });
  const frame = (): number => {
    worked += (work.parsed * cost()) / 1000;
    work.parsed = 0;
    busy += clock.busyMs;
    const callbacks = pending;
    pending = [];
    for (const callback of callbacks) callback();
    return work.parsed;
  };
  return {
    renderer,
    frame,
    pending: () => pending.length > 0,
    restore: () => {
      performance.now = realNow;
    },
    end: (rest) => {
      renderer.append(rest);
      renderer.finish();
      const parsed: number[] = [];
      while (!renderer.done && parsed.length < 100) parsed.push(frame());
      return { parsed, waiting: out.querySelectorAll('.aq-group[style]').length };
    },
  };
}
