/**
 * Groups of an answer's top-level blocks that wait, as text, until they come near the view. When
 * an answer arrives much faster than it renders (megabytes at full speed, a long restored
 * conversation), the renderer places whole groups (see groups.ts) of the text far behind the
 * stream as empty group elements holding their source, and renders each one only when it comes
 * within a screen of the view. A rendered group holds exactly what a one-shot render puts in it.
 * Groups the extension host held back (it passed the stream on faster than the view could take
 * it, see shared/answer/heldText.ts) wait the same way, and their text is asked for when they come near.
 */

import { boundaryAt, countLines, estimatedHeight, startsElement } from '../../shared/answer/blocks';
import type { HeldGroup } from '../../shared/protocol';
import { parseBlocksAndLines, type References } from './parse';
import type { BlockStream } from './streams';
import { groupsAfter, replacePlacement } from './groups';

/**
 * Text that waits for the view: whole groups of an answer's top-level blocks (incremental.ts) and
 * of a long bulleted list's items (streams.ts) far behind the stream wait as text, and only the
 * newest LAZY_KEEP is rendered. The view follows the newest text while it streams, so text that
 * only streamed past is never rendered, and an answer that ends far behind is final at once.
 * Far behind: more than LAZY_AT not rendered yet; or more than LOSING_AT while the renderer loses
 * ground (the text not rendered grew in each of LOSING_FRAMES frames: it comes faster than this
 * renderer renders it, as four answers at 1 MiB/s do in one Compare panel, or one in a slow page);
 * or, once the answer has ended, more than twice LAZY_KEEP.
 */
const LAZY_AT = 256 * 1024;
const LOSING_AT = 32 * 1024;
const LOSING_FRAMES = 3;
export const LAZY_KEEP = 4 * 1024;
/** The text parsed (blocks only) at once when groups are made to wait. */
export const LAZY_WINDOW = 64 * 1024;

/** How far behind the stream a renderer's text is, frame after frame (see LAZY_AT). */
export class Backlog {
  private last = 0;
  private growing = 0;

  /** A frame's render starts with `behind` code units not rendered yet. */
  frame(behind: number): void {
    this.growing = behind > this.last ? this.growing + 1 : 0;
    this.last = behind;
  }

  /** Whether whole groups of the `behind` code units not rendered yet wait for the view; `complete`: no more text comes. */
  far(behind: number, complete: boolean): boolean {
    if (complete) {
      return behind > 2 * LAZY_KEEP;
    }
    return behind > LAZY_AT || this.losing(behind);
  }

  /** Whether the renderer loses ground: more than LOSING_AT of the `behind` code units, and further behind in each of LOSING_FRAMES frames. */
  losing(behind: number): boolean {
    return behind > LOSING_AT && this.growing >= LOSING_FRAMES;
  }
}

/** Renders a waiting group's markdown, with the definitions known now, into the group's children. */
export type GroupRender = (source: string, references: References) => DocumentFragment;

/**
 * Starts rendering a long fenced code block (`text`: from its opening line to where the next
 * block starts) at the end of a group's `element`, the way the answer's open block streams: its
 * code highlighted in the page's worker or a piece a frame (fence.ts), never all in one frame.
 * Undefined if it cannot.
 */
export type FenceRender = (element: HTMLElement, text: string) => BlockStream | undefined;

/**
 * A fenced code block in a waiting group longer than this is rendered over frames (FenceRender)
 * instead of in one piece: highlighted whole, a long block froze the view for several frames as
 * the reader scrolled back to it.
 */
const LONG_FENCE = 8 * 1024;
/** A long code block shown on makes at least this much headway (ms), however late in the frame: one piece of its code. */
const LEAST_FENCE_MS = 1;

/**
 * A group that comes into view is rendered in pieces of at least this much text, each ending
 * where text can be cut, as many in a frame as its budget allows (at least one): a group of
 * GROUP_SIZE long blocks would otherwise take a whole frame and more.
 */
const PIECE = 4 * 1024;

/**
 * A group element of the answer and the markdown of its blocks: here, or (a held group) still at
 * the extension host until it is asked for.
 */
interface LazyGroup {
  readonly element: HTMLElement;
  /** Held groups that stand in this one element until the view comes near them (see `addHeldRun`). */
  readonly run?: HeldRun;
  source: string | undefined;
  /** Renders the group's source (a list's items, where the answer's blocks are rendered by default). */
  readonly render?: GroupRender;
  /** A held group's id; whether its text was asked for. */
  readonly held?: number;
  asked: boolean;
  /** How much of the source is rendered into the element so far (in pieces, see PIECE). */
  shown: number;
  /** Where the source can be cut, and where its long fenced code blocks start (see LONG_FENCE), once a piece has been asked for. */
  cuts?: readonly number[];
  fences?: readonly number[];
  /** A long fenced code block being rendered over frames (see FenceRender), and its text. */
  fence?: { readonly stream: BlockStream; readonly text: string };
}

/** Held groups in one element, in order, and their estimated heights (em). */
interface HeldRun {
  readonly groups: readonly HeldGroup[];
  readonly heights: readonly number[];
}

/**
 * While the view is within a screen of the end of what scrolls it, only the newest waiting groups
 * can come near it: only this many are watched then. Each watched group costs the browser work in
 * every frame the view scrolls (thousands of them cost a sizeable part of each frame while an
 * answer streams in and the view follows it). Elsewhere, and until a scroll has shown where the view
 * is, every waiting group is watched.
 */
const WATCHED_NEWEST = 16;

/** The groups of one answer that wait to be rendered, and those that came into view. */
export class LazyGroups {
  private readonly waiting = new Map<Element, LazyGroup>();
  /** The groups with a renderer of their own, waiting or not (see `renderAgain`). */
  private readonly ownRender = new Map<Element, LazyGroup>();
  /** Groups near the view, in the order they came. */
  private readonly due = new Set<LazyGroup>();
  /** Every group whose text could use a link reference definition (has a `]`). */
  private readonly referencing: LazyGroup[] = [];
  /** Held groups by id. */
  private readonly held = new Map<number, LazyGroup>();
  /** Groups whose long code block is being rendered over frames (see FenceRender). */
  private readonly fencing = new Set<LazyGroup>();
  private observer: IntersectionObserver | undefined;
  /** The newest waiting groups (see WATCHED_NEWEST). */
  private readonly newest: HTMLElement[] = [];
  /** Whether only the newest are watched (the view is near the end). */
  private newestOnly = false;
  /** The document whose scrolling tells where the view is. */
  private listening: Document | undefined;
  private readonly onScroll = (event: Event): void => this.scrolled(event);

  /**
   * `render` renders a group's source with link reference definitions, `references` says which
   * are known now, `wake` asks for a frame in which `renderDue` runs, `want` asks the
   * extension host for held groups' text (it comes back through `provide`), and `shell` makes an
   * empty group's nodes (a run of held groups is split into such groups).
   */
  constructor(
    private readonly render: GroupRender,
    private readonly references: () => References,
    private readonly wake: () => void,
    private readonly want: (ids: readonly number[]) => void,
    private readonly shell: () => DocumentFragment,
    private readonly fence?: FenceRender,
  ) {}

  /** Whether groups that came into view wait to be rendered (and have their text). */
  get pending(): boolean {
    for (const group of this.due) {
      if (group.source !== undefined) return true;
    }
    return false;
  }

  /**
   * Makes `element` (an empty group, already in the document) hold `source` until it comes near
   * the view; `render`: how its source is rendered, if not as the answer's blocks.
   */
  add(element: HTMLElement, source: string, render?: GroupRender): void {
    const group: LazyGroup = { element, source, render, asked: false, shown: 0 };
    if (render !== undefined) {
      this.ownRender.set(element, group);
    }
    this.wait(group, estimatedHeight(countLines(source), source.length), true);
  }

  /** Renders again what is rendered of the groups among `elements` (their renderer's output changed: a list turned loose). */
  renderAgain(elements: readonly Element[]): void {
    for (const element of elements) {
      const group = this.ownRender.get(element);
      if (group?.source !== undefined && group.shown > 0) {
        this.stopFence(group);
        group.element.replaceChildren(this.renderOf(group)(group.source.slice(0, group.shown), this.references()));
      }
    }
  }

  private renderOf(group: LazyGroup): GroupRender {
    return group.render ?? this.render;
  }

  /**
   * Makes `element` stand for `groups`, consecutive groups held at the extension host, until the
   * view comes near it (one group: it is that group's element); the groups near the view then get
   * elements of their own (see `split`).
   * Thousands of held groups come in a flood, each placed as an element of its own they cost the
   * page's main thread about half its time (style, layout, hit tests and the observer each go
   * over every one of them in every frame, and each is placed); in runs, a few dozen elements.
   */
  addHeldRun(element: HTMLElement, groups: readonly HeldGroup[]): void {
    if (groups.length === 1) {
      this.waitHeld(element, groups[0], true);
    } else {
      this.waitRun(element, groups, true);
    }
  }

  private waitHeld(element: HTMLElement, held: HeldGroup, newest: boolean): LazyGroup {
    const group: LazyGroup = { element, source: undefined, held: held.id, asked: false, shown: 0 };
    this.held.set(held.id, group);
    this.wait(group, estimatedHeight(held.lines, held.length), newest);
    return group;
  }

  private waitRun(element: HTMLElement, groups: readonly HeldGroup[], newest: boolean, heights = groups.map((held) => estimatedHeight(held.lines, held.length))): LazyGroup {
    const group: LazyGroup = { element, source: undefined, asked: false, shown: 0, run: { groups, heights } };
    element.dataset.groups = String(groups.length);
    this.wait(group, heights.reduce((sum, height) => sum + height, 0), newest);
    return group;
  }

  /** The text of held group `id` arrived. */
  provide(id: number, source: string): void {
    const group = this.held.get(id);
    if (group === undefined || group.source !== undefined) {
      return;
    }
    group.source = source;
    if (source.includes(']')) {
      this.referencing.push(group);
    }
    if (this.due.has(group)) {
      this.wake();
    }
  }

  /** Renders the groups that came into view, at least a piece of one, until `deadline` (a `performance.now()` time). */
  renderDue(deadline: number): boolean {
    let rendered = false;
    for (const group of this.due) {
      if (rendered && performance.now() >= deadline) {
        break;
      }
      if (group.source !== undefined) {
        this.show(group, group.source, deadline);
        rendered = true;
      }
    }
    return rendered;
  }

  /** Renders every group still waiting (held groups whose text has not come yet are asked for). */
  renderAll(): void {
    for (const group of [...this.waiting.values()]) {
      if (group.run !== undefined) {
        this.split(group, 0, group.run.groups.length);
      }
    }
    for (const group of [...this.waiting.values()]) {
      if (group.source !== undefined) {
        this.show(group, group.source, Number.POSITIVE_INFINITY);
      }
    }
    this.ask([...this.waiting.values()]);
  }

  /** Whether held groups wait for their text. */
  get asking(): boolean {
    for (const group of this.held.values()) {
      if (group.source === undefined) return true;
    }
    for (const group of this.waiting.values()) {
      if (group.run !== undefined) return true;
    }
    return false;
  }

  /** `group` waits for the view, `height` em high; `newest`: it is the newest waiting group (not one split off an older run). */
  private wait(group: LazyGroup, height: number, newest: boolean): void {
    group.element.style.height = `${height}em`;
    this.waiting.set(group.element, group);
    if (group.source?.includes(']') === true) {
      this.referencing.push(group);
    }
    const document = group.element.ownerDocument;
    this.observer ??= new IntersectionObserver((entries) => this.seen(entries), {
      // The webview's own document: the margin then counts (an implicit root in a frame ignores it).
      root: document,
      rootMargin: '100% 0px',
    });
    this.observer.observe(group.element);
    if (this.listening === undefined) {
      this.listening = document;
      // Scroll events do not bubble: the capture sees those of every scrolling element.
      document.addEventListener('scroll', this.onScroll, { capture: true, passive: true });
    }
    if (newest) {
      this.newest.push(group.element);
      this.trimNewest();
    }
  }

  /** Keeps the newest WATCHED_NEWEST waiting groups in `newest`; those that leave it are no longer watched while only the newest are. */
  private trimNewest(): void {
    while (this.newest.length > WATCHED_NEWEST) {
      const older = this.newest.shift() as HTMLElement;
      if (this.newestOnly) {
        this.unwatch(older);
      }
    }
  }

  /** Something scrolled: near the end of its scroller, only the newest groups are watched; elsewhere, all. */
  private scrolled(event: Event): void {
    const any = this.waiting.keys().next().value;
    if (any === undefined || !any.isConnected) {
      // None wait any more, or the answer is gone: nothing to watch (a new waiting group listens again).
      this.stopListening();
      return;
    }
    const target = event.target;
    const scroller = target instanceof Element ? target : this.listening?.scrollingElement;
    // A block that scrolls sideways (a long line of code) says nothing about where the view is.
    if (scroller === null || scroller === undefined || scroller.scrollHeight <= scroller.clientHeight) {
      return;
    }
    const nearEnd = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= scroller.clientHeight;
    if (nearEnd === this.newestOnly || this.observer === undefined) {
      return;
    }
    this.newestOnly = nearEnd;
    const newest = new Set<Element>(this.newest);
    for (const element of this.waiting.keys()) {
      if (!newest.has(element)) {
        if (nearEnd) {
          this.unwatch(element);
        } else {
          this.observer.observe(element);
        }
      }
    }
  }

  /**
   * Stops watching a waiting group that is far from the view (an older one, while the view is near
   * the end). Had it come near the view before, it is no longer due: no notice would come that
   * the view left it, and it would be rendered out of sight, before the groups the reader looks at.
   */
  private unwatch(element: Element): void {
    this.observer?.unobserve(element);
    const group = this.waiting.get(element);
    if (group !== undefined) {
      this.due.delete(group);
    }
  }

  private stopListening(): void {
    this.listening?.removeEventListener('scroll', this.onScroll, { capture: true });
    this.listening = undefined;
    // Until a scroll shows where the view is, all are watched.
    this.newestOnly = false;
  }

  /** Asks for the text of the held groups among `groups` not asked for yet. */
  private ask(groups: readonly LazyGroup[]): void {
    const ids: number[] = [];
    for (const group of groups) {
      if (group.held !== undefined && group.source === undefined && !group.asked) {
        group.asked = true;
        ids.push(group.held);
      }
    }
    if (ids.length > 0) {
      this.want(ids);
    }
  }

  /**
   * Definitions changed to `references`: groups rendered (or in part) whose text `mentions` an
   * affected label render again (the waiting ones will use the new definitions anyway). Returns
   * whether any did.
   */
  refresh(mentions: (source: string) => boolean, references: References): boolean {
    let changed = false;
    for (const group of this.referencing) {
      if (group.shown > 0 && group.source !== undefined && mentions(group.source)) {
        this.stopFence(group);
        group.element.replaceChildren(this.renderOf(group)(group.source.slice(0, group.shown), references));
        changed = true;
      }
    }
    return changed;
  }

  /** Stops watching (the answer starts over), and the worker does nothing more for its code blocks. */
  dispose(): void {
    for (const group of [...this.fencing]) {
      this.stopFence(group);
    }
    this.stopListening();
    this.observer?.disconnect();
    this.observer = undefined;
    this.newest.length = 0;
    this.waiting.clear();
    this.ownRender.clear();
    this.due.clear();
    this.held.clear();
  }

  /** Where the next piece of `group` ends: the first place text can be cut at least PIECE on, or the end. */
  private pieceEnd(group: LazyGroup, source: string): number {
    if (source.length - group.shown <= 2 * PIECE) {
      return source.length;
    }
    const wanted = group.shown + PIECE;
    const { cuts, fences } = this.cutsOf(group, source);
    const cut = cuts.find((at) => at >= wanted);
    const end = cut === undefined || source.length - cut < PIECE ? source.length : cut;
    // A long code block is a piece of its own (see startFence).
    return fences.find((at) => at > group.shown && at < end) ?? end;
  }

  /** Where `group`'s source can be cut, and where its long fenced code blocks start (found once). */
  private cutsOf(group: LazyGroup, source: string): { cuts: readonly number[]; fences: readonly number[] } {
    if (group.cuts === undefined || group.fences === undefined) {
      const { tokens, starts } = parseBlocksAndLines(source);
      const cuts: number[] = [];
      const fences: number[] = [];
      let first = true;
      tokens.forEach((token, i) => {
        if (!startsElement(token)) {
          return;
        }
        // The first element is never a cut (nothing is before it), but may be a long code block.
        const at = first ? starts[token.map?.[0] ?? 0] : boundaryAt(tokens, i, source, starts);
        first = false;
        if (at === undefined) {
          return;
        }
        cuts.push(at);
        if (token.type === 'fence' && group.render === undefined && this.fence !== undefined) {
          fences.push(at);
        }
      });
      group.cuts = cuts;
      group.fences = fences.filter((at) => (cuts.find((cut) => cut > at) ?? source.length) - at > LONG_FENCE);
    }
    return { cuts: group.cuts, fences: group.fences };
  }

  /** Starts the long fenced code block at where `group` is shown to (its opening line), if one starts there (see FenceRender). */
  private startFence(group: LazyGroup, source: string): boolean {
    if (this.fence === undefined || group.render !== undefined || source.length - group.shown <= LONG_FENCE) {
      return false;
    }
    const { cuts, fences } = this.cutsOf(group, source);
    if (!fences.includes(group.shown)) {
      return false;
    }
    const text = source.slice(group.shown, cuts.find((at) => at > group.shown) ?? source.length);
    const stream = this.fence(group.element, text);
    if (stream === undefined) {
      return false;
    }
    group.fence = { stream, text };
    this.fencing.add(group);
    return true;
  }

  /** The worker does nothing more for `group`'s code block in progress; it starts again when the group is shown on. */
  private stopFence(group: LazyGroup): void {
    group.fence?.stream.drop?.();
    group.fence = undefined;
    this.fencing.delete(group);
  }

  private seen(entries: readonly IntersectionObserverEntry[]): void {
    const came: LazyGroup[] = [];
    for (const entry of entries) {
      const group = this.waiting.get(entry.target);
      if (group?.run !== undefined && entry.isIntersecting) {
        // The groups it reaches get elements of their own; the observer says of each (in its next
        // notice) whether it is in reach, as of any group: an estimate decides only where the run is cut.
        const [from, to] = nearView(group.run.heights, entry);
        this.split(group, from, to);
      } else if (group !== undefined && entry.isIntersecting) {
        this.due.add(group);
        came.push(group);
      } else if (group !== undefined) {
        // Scrolled past before its turn came: it waits again.
        this.due.delete(group);
      }
    }
    this.ask(came);
    if (came.some((group) => group.source !== undefined)) {
      this.wake();
    }
  }

  /**
   * Splits a run of held groups where the view came near it: groups `from` to `to` (those within
   * the observer's reach, by their estimated heights) get elements of their own, the groups before
   * and after them stay in runs (or alone); each part waits and is watched as a group is. The run's
   * element stays the first part's; the others are inserted after it, in order.
   */
  private split(group: LazyGroup, from: number, to: number): void {
    const run = group.run as HeldRun;
    const { element } = group;
    this.observer?.unobserve(element);
    this.waiting.delete(element);
    this.due.delete(group);
    delete element.dataset.groups;
    // Each part: [start, end) of the run's groups.
    const parts: Array<readonly [number, number]> = [];
    if (from > 0) parts.push([0, from]);
    for (let at = from; at < to; at++) parts.push([at, at + 1]);
    if (to < run.groups.length) parts.push([to, run.groups.length]);
    const elements = [element, ...groupsAfter(element, parts.length - 1, this.shell)];
    parts.forEach(([start, end], i) => {
      if (end - start === 1) this.waitHeld(elements[i], run.groups[start], false);
      else this.waitRun(elements[i], run.groups.slice(start, end), false, run.heights.slice(start, end));
    });
    // Where the run was among the newest waiting groups, its parts are (in its place, in order).
    const place = this.newest.indexOf(element);
    if (place >= 0) {
      this.newest.splice(place, 1, ...elements);
      this.trimNewest();
    } else if (this.newestOnly) {
      // An older run while only the newest are watched (its entry came before that): none is watched.
      for (const each of elements) {
        this.unwatch(each);
      }
    }
  }

  /**
   * Renders `group` (its text: `source`), a piece at a time until `deadline`, at least one
   * piece. Until all of it is, its estimated height stays as the least it takes.
   */
  private show(group: LazyGroup, source: string, deadline: number): void {
    const drain = deadline === Number.POSITIVE_INFINITY;
    do {
      if (group.fence !== undefined || this.startFence(group, source)) {
        const current = group.fence as { readonly stream: BlockStream; readonly text: string };
        // At least a piece of its code each time, however late in the frame (see renderDue).
        const result = current.stream.advance(current.text, drain, true, Math.max(deadline, performance.now() + LEAST_FENCE_MS));
        if (result === 'open') {
          // Its code is highlighted over the next frames (the worker's pieces ask for them).
          break;
        }
        group.fence = undefined;
        this.fencing.delete(group);
        if (result === 'abandon') {
          // Not something a fence does; the block renders whole instead of what it placed.
          replacePlacement(current.stream.placement, this.renderOf(group)(current.text, this.references()));
          group.shown += current.text.length;
        } else {
          group.shown += result;
        }
        continue;
      }
      const end = this.pieceEnd(group, source);
      group.element.append(this.renderOf(group)(source.slice(group.shown, end), this.references()));
      group.shown = end;
    } while (group.shown < source.length && performance.now() < deadline);
    const style = group.element.style;
    if (group.shown < source.length) {
      if (style.height !== '') {
        style.minHeight = style.height;
        style.removeProperty('height');
      }
      return;
    }
    this.due.delete(group);
    this.waiting.delete(group.element);
    this.observer?.unobserve(group.element);
    style.removeProperty('height');
    style.removeProperty('min-height');
    if (group.element.getAttribute('style') === '') {
      group.element.removeAttribute('style');
    }
  }
}

/**
 * Which of a run's groups (their heights in em, in order) the observer would see: those over the
 * part of the run's box it found in reach (`intersectionRect`: the view and its margin, clipped by
 * every scroller between, as the observer sees each group), by the run's box in the entry:
 * [from, to). At least one group: the one nearest that part, if rounding left none.
 */
function nearView(heights: readonly number[], entry: IntersectionObserverEntry): [number, number] {
  const box = entry.boundingClientRect;
  const total = heights.reduce((sum, height) => sum + height, 0);
  if (total <= 0 || box.height <= 0) {
    return [0, heights.length];
  }
  const perEm = box.height / total;
  const top = entry.intersectionRect.top;
  const bottom = entry.intersectionRect.bottom;
  let from = -1;
  let to = -1;
  let y = box.top;
  for (let at = 0; at < heights.length; at++) {
    const next = y + heights[at] * perEm;
    if (next > top && y < bottom) {
      if (from < 0) from = at;
      to = at + 1;
    }
    y = next;
  }
  if (from < 0) {
    // Within reach as the observer saw it, but no group by these sums: the end nearer that part.
    return box.top > bottom ? [0, 1] : [heights.length - 1, heights.length];
  }
  return [from, to];
}
