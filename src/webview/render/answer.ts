/**
 * Renders a streamed Markdown answer, with a bound on the work of each frame.
 *
 * The text after the last finished top-level block (the open text) is parsed again as it grows,
 * at most a window of it. A block is finished once the block after it has begun where nothing
 * later can change it (after a blank line, or right where the block before ended); finished
 * blocks are rendered once and never touched again. Only the open block is rendered again, and
 * only while it is shorter than the window: a longer one streams through a long block
 * (longBlocks.ts), which renders its own finished parts once and shows the rest as plain text.
 * Each frame works until its deadline (frames.ts) and goes on in the next. A definition of a link
 * reference renders again the finished text that may use it. Past FOLD_AT characters, the oldest
 * blocks fold into one labelled row that shows them on demand. Once `finish()` has been called and
 * `done` is true, the answer's nodes are exactly what `renderMarkdownOnce` makes of its text.
 */
import { TextNormalizer } from '../../shared/answer/blocks';
import { formatBytes } from '../../shared/format';
import { button, h } from '../dom';
import { cancelFrame, FRAME_BUDGET_MS, requestFrame, type FrameClient } from './frames';
import { lastCut, parseBlocks } from './blockCuts';
import { lastFoldCut } from './floodCuts';
import { startLongBlock, type BlockContext, type LongBlock } from './longBlocks';
import { md, renderMarkup, sanitizeToNodes, type References } from './markdown';

/** How a renderer gets its updates onto the screen. */
export interface RendererOptions {
  /** Runs a render: by default in the page's next animation frame (frames.ts); tests pass a synchronous one (no deadline). */
  readonly scheduleFrame?: (render: () => void) => void;
  /** Called after every change of the DOM (e.g. to keep a transcript scrolled to its end). */
  readonly onRender?: () => void;
  /** Called once the answer has ended and all of it is rendered (see `done`). */
  readonly onDone?: () => void;
  /** The fold's "Open as Markdown": opens the whole answer in an editor. */
  readonly openWhole?: () => void;
}

/** The most open text parsed at once; an open block longer than this streams as a long block. */
const WINDOW = 16 * 1024;
/** Past this many characters rendered, the oldest blocks fold until FOLD_KEEP are left. */
const FOLD_AT = 6 * 1024 * 1024;
const FOLD_KEEP = 4 * 1024 * 1024;
/**
 * Once this much text waits to be rendered (an answer that comes far faster than the page renders
 * it), the oldest of it folds unrendered, at block boundaries (found by a line scan where it can,
 * floodCuts.ts), until FLOOD_KEEP is left: the page
 * then renders the newest text, and what folded is rendered only if the reader asks for it. In
 * the workbench the page shares its main thread with the workbench and renders slower than a
 * service can send: the text left waiting at an answer's end is what the reader waits for. Text
 * the host says it still holds (`queued`) counts as waiting: there a flood waits mostly at the
 * host, because the page's frames hold up the main thread that carries the host's messages, and a
 * page that counted only the text it had would go on rendering and keep both slow.
 */
const FLOOD_AT = 512 * 1024;
const FLOOD_KEEP = 64 * 1024;
/** The most flooded text a step scans for where to fold it (floodCuts.ts): a line scan, linear in it, so a step stays short. */
const FLOOD_STEP = 256 * 1024;
/** Text reduced so that a reference label used in it is a substring (labels match case-folded, without whitespace). */
function squash(text: string): string {
  return text.toLowerCase().toUpperCase().replace(/[\s>]+/g, '');
}

/** Rendered text that may use a reference definition: how to find and render it again. */
interface ReferenceUser {
  readonly squashed: string;
  readonly render: (references: References) => void;
}

/** Finished blocks in the page: their nodes and how much text they are. */
interface FinishedPart {
  readonly nodes: readonly ChildNode[];
  readonly length: number;
}

export class IncrementalRenderer implements FrameClient {
  private normalizer = new TextNormalizer();
  /** Text received and not taken yet. */
  private incoming: string[] = [];
  private incomingLength = 0;
  /** The text after the finished blocks (while no long block streams). */
  private open = '';
  private long: LongBlock | undefined;
  /** The text given to the long block so far. */
  private longLength = 0;
  /** The nodes of the open text's render, and the text they show. */
  private openNodes: ChildNode[] = [];
  private shownOpen = '';
  /** Definitions made by finished text, and by the open text after it when it was last rendered. */
  private finishedRefs: References = {};
  private openRefs: References = {};
  private shownRefs: References = {};
  private shownRefsKey = '{}';
  private users: ReferenceUser[] = [];
  private parts: FinishedPart[] = [];
  private keptLength = 0;
  private fold: Fold | undefined;
  private ended = false;
  /** Text floods in: the oldest folds unrendered (see FLOOD_AT). */
  private skipping = false;
  /** How much more of the answer the host holds, to come after what arrived (see FLOOD_AT). */
  private queued = 0;
  /** How much more text is taken before the line scan for a fold cut tries again (it found none in that text). */
  private scanAgainIn = 0;
  private disposed = false;
  private saidDone = false;
  private readonly context: BlockContext = {
    references: () => this.references(),
    usesReferences: (source, render) => this.users.push({ squashed: squash(source), render }),
    renderBlocks: (source) => this.renderFinished(source),
    renderKept: (source, render) => this.renderKept(source, render),
  };

  /** See BlockContext.renderKept: the one place rendered text is kept current with the definitions. */
  private renderKept(source: string, render: () => ChildNode[]): ChildNode[] {
    let nodes = render();
    if (source.includes('[')) {
      this.users.push({
        squashed: squash(source),
        render: () => {
          const again = render();
          nodes[0]?.before(...again);
          for (const node of nodes) node.remove();
          nodes = again;
        },
      });
    }
    return nodes;
  }

  constructor(private readonly container: HTMLElement, private readonly options: RendererOptions = {}) {}

  /** Whether the answer has ended and all of it is rendered. */
  get done(): boolean {
    return this.ended && this.incoming.length === 0 && this.long === undefined && this.open === '';
  }

  /** Replaces the answer with `text` (a whole state) and goes on streaming after it. */
  reset(text: string): void {
    cancelFrame(this);
    this.container.replaceChildren();
    this.normalizer = new TextNormalizer();
    this.incoming = [];
    this.incomingLength = 0;
    this.open = '';
    this.long = undefined;
    this.openNodes = [];
    this.shownOpen = '';
    this.finishedRefs = {};
    this.openRefs = {};
    this.shownRefs = {};
    this.shownRefsKey = '{}';
    this.users = [];
    this.parts = [];
    this.keptLength = 0;
    this.fold = undefined;
    this.skipping = false;
    this.queued = 0;
    this.scanAgainIn = 0;
    this.ended = false;
    this.saidDone = false;
    this.append(text);
  }

  /** More of the answer arrived: it is rendered in a frame (several appends before it make one render). */
  append(text: string, queued = 0): void {
    this.queued = queued;
    const normalized = this.normalizer.normalize(text);
    if (normalized === '') return;
    this.incoming.push(normalized);
    this.incomingLength += normalized.length;
    this.saidDone = false;
    this.schedule();
  }

  /** The answer ended: what is left is rendered, as final, in the next frames. */
  finish(): void {
    this.ended = true;
    this.queued = 0;
    this.schedule();
  }

  /** Renders everything now (tests and the bench). */
  flush(): void {
    while (this.renderFrame(Number.POSITIVE_INFINITY));
  }

  /** The answer is gone: nothing more is rendered. */
  dispose(): void {
    this.disposed = true;
    cancelFrame(this);
  }

  private schedule(): void {
    if (this.disposed) return;
    if (this.options.scheduleFrame !== undefined) this.options.scheduleFrame(() => this.flush());
    else requestFrame(this);
  }

  renderFrame(deadline: number): boolean {
    if (this.disposed) return false;
    const { changed, more } = this.work(deadline);
    this.showReferences();
    this.foldOldest();
    if (changed) this.options.onRender?.();
    if (this.done && !this.saidDone) {
      this.saidDone = true;
      this.options.onDone?.();
    }
    return more;
  }

  /**
   * Works until `deadline`: finishes blocks, streams a long one, and (once all the text received
   * is taken) renders the open text, which is short, whatever the time. Returns whether the DOM
   * changed, and whether work is left for another frame.
   */
  private work(deadline: number): { changed: boolean; more: boolean } {
    let changed = false;
    for (;;) {
      if (changed && performance.now() >= deadline && (this.incoming.length > 0 || this.long !== undefined || this.ended)) {
        return { changed, more: true };
      }
      if (this.long !== undefined) {
        if (this.incoming.length > 0) {
          const text = this.take(WINDOW);
          this.longLength += text.length;
          this.long.push(text);
        }
        const rest = this.long.advance(this.ended && this.incoming.length === 0, deadline);
        changed = true;
        if (rest === undefined) {
          // Waiting for text, or out of time (then another frame goes on).
          if (this.incoming.length === 0) return { changed, more: performance.now() >= deadline };
          continue;
        }
        this.finished(this.long.nodes, this.longLength - rest.length);
        this.long = undefined;
        this.open = rest;
        continue;
      }
      // Far behind: fold a step of text at a time where a line scan finds a cut, without parsing it,
      // keeping FLOOD_KEEP to render with what the host still holds.
      const keep = Math.max(0, FLOOD_KEEP - this.queued);
      if (this.scanAgainIn === 0 && this.incomingLength > keep && this.flooded()) {
        const text = this.open + this.take(Math.min(FLOOD_STEP, this.incomingLength - keep));
        const foldCut = lastFoldCut(text);
        this.clearOpen();
        this.open = '';
        this.giveBack(text.slice(foldCut));
        if (foldCut > 0) {
          this.foldUnrendered(text.slice(0, foldCut));
          changed = true;
          continue;
        }
        this.scanAgainIn = text.length;
      }
      if (this.open.length < WINDOW && this.incoming.length > 0) this.open += this.take(WINDOW - this.open.length);
      const cut = lastCut(this.open);
      if (cut > 0 && this.flooded()) {
        this.foldUnrendered(this.open.slice(0, cut));
        this.open = this.open.slice(cut);
        changed = true;
        continue;
      }
      if (cut > 0) {
        this.clearOpen();
        this.finished(this.insert(this.renderFinished(this.open.slice(0, cut))), cut);
        this.open = this.open.slice(cut);
        changed = true;
        continue;
      }
      if (this.open.length >= WINDOW) {
        this.clearOpen();
        this.long = startLongBlock(this.open, this.context);
        this.longLength = this.open.length;
        this.insert(this.long.nodes);
        this.open = '';
        changed = true;
        continue;
      }
      if (this.ended) {
        this.clearOpen();
        if (this.open !== '') this.finished(this.insert(this.renderFinished(this.open)), this.open.length);
        this.open = '';
        return { changed: true, more: false };
      }
      if (this.open !== this.shownOpen) {
        this.renderOpen();
        changed = true;
      }
      return { changed, more: false };
    }
  }

  /** Takes up to `most` code units of the received text. */
  private take(most: number): string {
    let taken = '';
    while (this.incoming.length > 0 && taken.length < most) {
      const piece = this.incoming[0];
      const room = most - taken.length;
      if (piece.length <= room) {
        taken += piece;
        this.incoming.shift();
      } else {
        // Never between the halves of a surrogate pair.
        const end = piece.charCodeAt(room - 1) >= 0xd800 && piece.charCodeAt(room - 1) <= 0xdbff ? room + 1 : room;
        taken += piece.slice(0, end);
        this.incoming[0] = piece.slice(end);
      }
    }
    this.incomingLength -= taken.length;
    this.scanAgainIn = Math.max(0, this.scanAgainIn - taken.length);
    return taken;
  }

  /** Puts text taken back in front of the received text. */
  private giveBack(text: string): void {
    if (text === '') return;
    this.incoming.unshift(text);
    this.incomingLength += text.length;
  }

  /** The definitions known now: the finished text's, then the open text's. */
  private references(): References {
    return { ...this.openRefs, ...this.finishedRefs };
  }

  /** Renders finished blocks into sanitized nodes, learning their definitions. */
  private renderFinished(source: string): DocumentFragment {
    if (source.includes(']:')) parseBlocks(source, { references: this.finishedRefs });
    const fragment = document.createDocumentFragment();
    fragment.append(...this.renderKept(source, () => [...sanitizeToNodes(renderMarkup(source, { references: this.references() })).childNodes]));
    return fragment;
  }

  /** Places nodes after the finished ones; returns them. */
  private insert(nodes: DocumentFragment | readonly ChildNode[]): ChildNode[] {
    const list = nodes instanceof DocumentFragment ? [...nodes.childNodes] : [...nodes];
    this.container.append(...list);
    return list;
  }

  private finished(nodes: readonly ChildNode[], length: number): void {
    this.parts.push({ nodes, length });
    this.keptLength += length;
  }

  private clearOpen(): void {
    for (const node of this.openNodes) node.remove();
    this.openNodes = [];
    this.shownOpen = '';
  }

  /** Renders the open text again (it is shorter than WINDOW). */
  private renderOpen(): void {
    const env = { references: { ...this.finishedRefs } };
    const fragment = sanitizeToNodes(md.render(this.open, env));
    this.openRefs = env.references;
    for (const node of this.openNodes) node.remove();
    this.openNodes = this.insert(fragment);
    this.shownOpen = this.open;
  }

  /** Renders again the finished text that may use a definition that came, changed or went. */
  private showReferences(): void {
    const now = this.references();
    const key = JSON.stringify(now);
    if (key === this.shownRefsKey) return;
    const changed = new Set([...Object.keys(now), ...Object.keys(this.shownRefs)].filter((label) => JSON.stringify(now[label]) !== JSON.stringify(this.shownRefs[label])).map(squash));
    this.shownRefs = now;
    this.shownRefsKey = key;
    for (const user of this.users) {
      for (const label of changed) {
        if (user.squashed.includes(label)) {
          user.render(now);
          break;
        }
      }
    }
    // The open text was rendered with them already.
  }

  /** Whether text waits far behind (see FLOOD_AT): its oldest folds unrendered. */
  private flooded(): boolean {
    if (this.fold?.shown === true) return false;
    const waiting = this.incomingLength + this.open.length + this.queued;
    if (waiting > FLOOD_AT) this.skipping = true;
    if (waiting <= FLOOD_KEEP) this.skipping = false;
    return this.skipping;
  }

  /** Folds finished blocks unrendered (all the blocks before them fold first, so the fold keeps the answer's order). */
  private foldUnrendered(source: string): void {
    this.fold ??= new Fold(this.container, this.options.openWhole, (text) => this.renderFinished(text));
    for (const part of this.parts) this.fold.add(part.nodes, part.length);
    this.parts = [];
    this.keptLength = 0;
    // Its definitions still count for the text around it.
    if (source.includes(']:')) parseBlocks(source, { references: this.finishedRefs });
    this.fold.addSource(source);
  }

  /** Folds the oldest finished blocks once the answer is past FOLD_AT. */
  private foldOldest(): void {
    if (this.keptLength <= FOLD_AT || this.fold?.shown === true) return;
    this.fold ??= new Fold(this.container, this.options.openWhole, (text) => this.renderFinished(text));
    while (this.keptLength > FOLD_KEEP && this.parts.length > 1) {
      const part = this.parts.shift()!;
      this.fold.add(part.nodes, part.length);
      this.keptLength -= part.length;
    }
  }
}

/** The oldest blocks of a very long answer, out of the page until the reader asks for them: rendered ones, and text that flooded in, not rendered yet. */
class Fold {
  readonly element: HTMLElement;
  shown = false;
  private readonly held: Array<readonly ChildNode[] | string> = [];
  private readonly label: HTMLElement;
  private length = 0;

  constructor(container: HTMLElement, openWhole: (() => void) | undefined, private readonly render: (source: string) => DocumentFragment) {
    this.label = h('span', { className: 'aq-fold-label' });
    const show = button('show-folded', 'Show the folded start of this answer', 'unfold', () => this.show(), { text: 'Show', className: 'aq-button aq-button-secondary' });
    const open = openWhole === undefined ? [] : [button('open-answer', 'Open the whole answer as Markdown', 'markdown', openWhole, { text: 'Open as Markdown', className: 'aq-button aq-button-secondary' })];
    this.element = h('div', { className: 'aq-fold', attrs: { 'data-role': 'fold', role: 'note' } }, this.label, show, ...open);
    container.prepend(this.element);
  }

  add(nodes: readonly ChildNode[], length: number): void {
    for (const node of nodes) node.remove();
    this.held.push(nodes);
    this.grow(length);
  }

  /** Blocks that flooded in, not rendered (whole blocks, at most a window of them). */
  addSource(source: string): void {
    this.held.push(source);
    this.grow(source.length);
  }

  private grow(length: number): void {
    this.length += length;
    this.label.textContent = `The start of this long answer is folded (${formatBytes(this.length)} of text).`;
  }

  /** Puts the folded blocks back before the row, rendering those not rendered yet a few each frame; the row goes once all are back. */
  private show(): void {
    if (this.shown) return;
    this.shown = true;
    this.label.textContent = 'Showing the start of this answer…';
    for (const action of this.element.querySelectorAll('button')) action.disabled = true;
    const step = (): void => {
      const deadline = performance.now() + FRAME_BUDGET_MS;
      while (this.held.length > 0 && performance.now() < deadline) {
        const part = this.held.shift()!;
        this.element.before(...(typeof part === 'string' ? [this.render(part)] : part));
      }
      if (this.held.length > 0) requestAnimationFrame(step);
      else this.element.remove();
    };
    step();
  }
}
