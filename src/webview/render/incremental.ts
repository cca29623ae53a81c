import { GROUP_SIZE, Grouper, replacePlacement, type Placement } from './groups';
import { LazyGroups } from './lazy';
import {
  GROUP_SHELL,
  parseBlocks,
  parseMarkdown,
  renderFragment,
  type MdToken,
  type References,
  type RenderEnv,
} from './markdown';
import { FenceStream } from './fence';
import { appendGroup, ContainerStream, ownCopy, ParagraphStream, type BlockStream, type FrozenChunk, type StreamHost } from './streams';

/** How a renderer gets its updates onto the screen. */
export interface RendererOptions {
  /** Runs a render later; defaults to `requestAnimationFrame`. Tests pass a synchronous one. */
  readonly scheduleFrame?: (callback: () => void) => void;
  /** Called after every update of the DOM (e.g. to keep a transcript scrolled to the bottom). */
  readonly onRender?: () => void;
}

/** The text parsed at once, unless a longer open block needs more (then it doubles). */
const BASE_WINDOW = 4 * 1024;
/** A frame parses windows one after the other until it has taken this long; the rest waits for the next. */
const FRAME_BUDGET_MS = 20;
/** An open block longer than this streams through a {@link BlockStream}: its finished parts are never rendered again. */
const STREAM_AT = 8 * 1024;
/** An open block no stream handles is rendered again only when it has grown by this factor. */
const REGROW = 1.5;
/**
 * When the text not yet rendered grows past LAZY_AT (it arrives much faster than it renders), or
 * past twice LAZY_KEEP once the answer has ended (it came at once, or was restored), whole groups
 * of top-level blocks before the newest LAZY_KEEP wait as text until they come near the view
 * (see lazy.ts). The view follows the newest text while it streams.
 */
const LAZY_AT = 256 * 1024;
const LAZY_KEEP = 16 * 1024;
/** The text parsed (blocks only) at once when groups are made to wait. */
const LAZY_WINDOW = 64 * 1024;
const LINE_BREAK = /\n/g;
const BLANK = /^[ \t]*$/;
const LINE_BREAKS = /\r\n?/g;
const NUL = /\0/g;

function defaultSchedule(callback: () => void): void {
  requestAnimationFrame(() => callback());
}

/** Start offsets of every line of `text` (already normalized: line breaks are `\n`). */
function lineStarts(text: string): number[] {
  const starts = [0];
  LINE_BREAK.lastIndex = 0;
  for (let m = LINE_BREAK.exec(text); m !== null; m = LINE_BREAK.exec(text)) {
    starts.push(m.index + 1);
  }
  return starts;
}

/**
 * Finds the last place in a parsed tail before which nothing can change any more, whatever text
 * follows: the start of a top-level block whose first line is complete and that follows a blank
 * line or a closed fence. Markdown's block structure is decided line by line, a blank line closes
 * paragraphs (no lazy continuation, no setext underline, no table header, no multi-line reference
 * title), so does a closing fence, and a block that started on a complete line after either means
 * every container before it has ended. Returns the token index and the character offset, or undefined.
 */
function findBoundary(tokens: readonly MdToken[], text: string, starts: readonly number[]): { index: number; offset: number } | undefined {
  for (let i = tokens.length - 1; i > 0; i--) {
    const offset = boundaryAt(tokens, i, text, starts);
    if (offset !== undefined) {
      return { index: i, offset };
    }
  }
  return undefined;
}

/** The offset where token `i` starts, if it is a top-level block starting at a boundary (see findBoundary). */
function boundaryAt(tokens: readonly MdToken[], i: number, text: string, starts: readonly number[]): number | undefined {
  const token = tokens[i];
  if (i < 1 || token.level !== 0 || token.nesting === -1 || token.map === null) {
    return undefined;
  }
  const line = token.map[0];
  if (line < 1 || line + 1 >= starts.length) {
    return undefined;
  }
  const previous = text.slice(starts[line - 1], starts[line] - 1);
  // A fence followed by another block is closed, on the line before it.
  const closedFence = tokens[i - 1].type === 'fence' && tokens[i - 1].map?.[1] === line;
  return BLANK.test(previous) || closedFence ? starts[line] : undefined;
}

/** Whether a token starts a top-level element of the answer (as rendered: every block is one element). */
function startsElement(token: MdToken): boolean {
  return token.level === 0 && token.nesting !== -1;
}

/**
 * A text reduced so that a reference label used in it is a substring: case folded like
 * markdown-it's label normalization, without whitespace and blockquote markers (which container
 * blocks strip from the inline text).
 */
function squash(text: string): string {
  return text.toLowerCase().toUpperCase().replace(/[\s>]+/g, '');
}

/** Renders markdown text into sanitized nodes (a frozen top-level chunk's renderer). */
function renderBlocks(source: string, references: References): DocumentFragment {
  const env: RenderEnv = { references: { ...references } };
  return renderFragment(parseMarkdown(source, env, 'blocks'), env).build();
}

/** The answer's top-level blocks, grouped (see groups.ts). */
function blockGrouper(container: HTMLElement): Grouper {
  return new Grouper({ root: container, addGroup: () => appendGroup(container, GROUP_SHELL) });
}

/**
 * Renders a streamed markdown answer. Finished blocks are rendered once into their own nodes and
 * never parsed again; only the open tail is re-rendered, at most once per frame. A long open block
 * (a code block, paragraph, list, table or quote) streams through a {@link BlockStream} that
 * freezes its finished lines, items, rows or words, so the work per frame follows the new text,
 * not the block's length. Each frame works for at most about FRAME_BUDGET_MS (plus the block at
 * hand), so an answer that comes faster than it renders is caught up over the next frames instead
 * of freezing the page. Once `finish()` has been called and `done` is true (or after `flush()`),
 * the container holds exactly what
 * `renderMarkdownOnce(fullText)` produces.
 */
export class IncrementalRenderer {
  /** The text after the frozen chunks, line breaks normalized (the frozen text itself is not kept). */
  private tail = '';
  private received = 0;
  /** The last text received ended with CR: a LF that comes next belongs to it. */
  private pendingCr = false;
  /** Definitions made by the frozen text. */
  private frozenRefs: References = {};
  /** The definitions the DOM reflects, and their JSON. */
  private refs: References = {};
  private refsSignature = '{}';
  private chunks: FrozenChunk[] = [];
  /** Places the top-level blocks. */
  private blocks: Grouper;
  private tailPlacement: Placement = [];
  private tailKey = '';
  private renderedLength = -1;
  private window = BASE_WINDOW;
  /** The stream rendering the open block at the start of the tail, if any. */
  private stream: BlockStream | undefined;
  /** No stream takes the open block: it is rendered again once the tail is this long. */
  private regrowAt = 0;
  /** Groups of blocks that wait as text until they come near the view. */
  private lazy: LazyGroups;
  /** No group could wait last time: not tried again before this many top-level elements are placed. */
  private lazyRetryAt = 0;
  private scheduled = false;
  private generation = 0;
  /** No more text comes (`finish()`); `settled`: and all of it is rendered. */
  private finished = false;
  private settled = false;
  private readonly schedule: (callback: () => void) => void;
  private readonly host: StreamHost = {
    frozenReferences: () => this.frozenRefs,
    learnReferences: (source) => this.learnReferences(source),
    seeReferences: (references) => void this.applyReferences(references),
    references: () => this.refs,
    register: (chunk) => void this.chunks.push(chunk),
    place: (fragment) => this.blocks.append(fragment),
  };

  constructor(
    private readonly container: HTMLElement,
    private readonly options: RendererOptions = {},
  ) {
    this.schedule = options.scheduleFrame ?? defaultSchedule;
    this.blocks = blockGrouper(container);
    this.lazy = this.lazyGroups();
  }

  /** How many UTF-16 code units have been received. */
  get length(): number {
    return this.received;
  }

  /** Adds streamed text; the DOM catches up on the next frame. */
  append(text: string): void {
    if (text === '') {
      return;
    }
    this.received += text.length;
    this.tail += this.normalize(text);
    this.requestFrame();
  }

  /**
   * The stream ended: what is left is rendered now, within one frame's budget, and if that is not
   * enough, over the next frames (see `done`).
   */
  finish(): void {
    this.finished = true;
    this.update(false);
  }

  /**
   * Whether the answer has ended and all of it is rendered, but for groups far from the view that
   * wait to be rendered until they come near it.
   */
  get done(): boolean {
    return this.settled;
  }

  /** Renders what is pending now, all of it (groups waiting for the view too), instead of over the next frames. */
  flush(): void {
    this.update(true);
    this.lazy.renderAll();
  }

  /** Starts over, showing `text` (within this frame's budget, the rest over the next frames); the stream may continue with `append`. */
  reset(text = ''): void {
    this.generation++;
    this.scheduled = false;
    this.pendingCr = false;
    this.tail = this.normalize(text);
    this.received = text.length;
    this.finished = false;
    this.settled = false;
    this.frozenRefs = {};
    this.refs = {};
    this.refsSignature = '{}';
    this.chunks = [];
    this.tailPlacement = [];
    this.tailKey = '';
    this.renderedLength = -1;
    this.window = BASE_WINDOW;
    this.stream = undefined;
    this.regrowAt = 0;
    this.lazy.dispose();
    this.lazy = this.lazyGroups();
    this.lazyRetryAt = 0;
    this.container.replaceChildren();
    this.blocks = blockGrouper(this.container);
    // A long text (a restored conversation) is rendered over frames like any other.
    this.update(false);
  }

  /** Line breaks and NULs as markdown-it normalizes them, across chunk boundaries (a CR then a LF). */
  private normalize(text: string): string {
    const skipLf = this.pendingCr && text.charCodeAt(0) === 10;
    this.pendingCr = text.charCodeAt(text.length - 1) === 13;
    return (skipLf ? text.slice(1) : text).replace(LINE_BREAKS, '\n').replace(NUL, '\uFFFD');
  }

  private requestFrame(): void {
    if (this.scheduled) {
      return;
    }
    this.scheduled = true;
    const generation = this.generation;
    this.schedule(() => {
      if (generation === this.generation && this.scheduled) {
        this.scheduled = false;
        this.update(false);
      }
    });
  }

  /**
   * One render pass: `all` renders everything pending (no budget); otherwise windows of the tail
   * until the frame's budget is spent. After `finish()`, the pass that reaches the end of the text
   * renders the last blocks as final.
   */
  private update(all: boolean): void {
    this.scheduled = false;
    const complete = this.finished;
    const deadline = all ? Number.POSITIVE_INFINITY : performance.now() + FRAME_BUDGET_MS;
    // Groups that came into view go first: the reader is looking at them.
    let changed = this.lazy.pending && this.lazy.renderDue(deadline);
    if (this.settled || (this.renderedLength === this.received && !complete && this.stream?.pending !== true)) {
      this.afterUpdate(changed);
      return;
    }
    let more = false;
    let reachedEnd = false;
    for (;;) {
      if (this.stream !== undefined) {
        const result = this.stream.advance(this.tail, all, complete);
        changed = true;
        if (result === 'open') {
          more = this.stream.pending;
          break;
        }
        this.endStream(result);
        continue;
      }
      if (this.tail.length === 0 || (!complete && !all && this.tail.length < this.regrowAt)) {
        break;
      }
      if (performance.now() >= deadline) {
        more = true;
        break;
      }
      if (!all && this.tail.length > (complete ? 2 * LAZY_KEEP : LAZY_AT) && this.blocks.count >= this.lazyRetryAt && this.makeGroupsWait()) {
        changed = true;
        continue;
      }
      const end = all ? this.tail.length : Math.min(this.tail.length, this.window);
      const last = end === this.tail.length;
      changed = this.renderWindow(end, all || (complete && last), last) || changed;
      if (last && this.stream === undefined) {
        reachedEnd = true;
        break;
      }
    }
    // With work left for later frames, the text received is not all rendered yet.
    this.renderedLength = more ? -1 : this.received;
    if (complete && !more && this.stream === undefined && (reachedEnd || this.tail.length === 0)) {
      this.settled = true;
    }
    if (!this.settled && (more || (complete && !all))) {
      this.requestFrame();
    }
    this.afterUpdate(changed);
  }

  private afterUpdate(changed: boolean): void {
    if (this.lazy.pending) {
      this.requestFrame();
    }
    if (changed) {
      this.options.onRender?.();
    }
  }

  private lazyGroups(): LazyGroups {
    return new LazyGroups(
      renderBlocks,
      // The definitions frozen text made come first (the first definition wins), then those seen since.
      () => ({ ...this.refs, ...this.frozenRefs }),
      () => this.requestFrame(),
    );
  }

  /**
   * The text far behind the stream: its whole groups of top-level blocks wait as text (see
   * lazy.ts). Parses a window of the tail's blocks only; the blocks before the next group start
   * are rendered as usual, then every group that starts and ends at a boundary waits. Returns
   * whether any text was taken off the tail.
   */
  private makeGroupsWait(): boolean {
    // The open part at the tail's end is rendered again after this.
    this.removeTail();
    const text = this.tail.slice(0, Math.min(LAZY_WINDOW, this.tail.length - LAZY_KEEP));
    const tokens = parseBlocks(text);
    const starts = lineStarts(text);
    // Where each top-level element starts, and whether text can be cut there (undefined: no).
    const cuts: Array<number | undefined> = [];
    tokens.forEach((token, i) => {
      if (startsElement(token)) {
        cuts.push(cuts.length === 0 ? 0 : boundaryAt(tokens, i, text, starts));
      }
    });
    let element = this.blocks.untilGroup();
    let taken = element === 0 ? 0 : cuts[element];
    if (taken === undefined || element >= cuts.length) {
      this.lazyRetryAt = this.blocks.count + GROUP_SIZE;
      return false;
    }
    if (taken > 0) {
      const eagerText = text.slice(0, taken);
      this.placeFrozen(renderBlocks(eagerText, { ...this.refs, ...this.frozenRefs }), eagerText);
    }
    const eager = taken;
    for (; element + GROUP_SIZE < cuts.length; element += GROUP_SIZE) {
      const end = cuts[element + GROUP_SIZE];
      if (end === undefined) {
        break;
      }
      this.lazy.add(this.blocks.placeGroup() as HTMLElement, ownCopy(text.slice(taken, end)));
      taken = end;
    }
    if (taken === 0) {
      this.lazyRetryAt = this.blocks.count + GROUP_SIZE;
      return false;
    }
    const waited = text.slice(eager, taken);
    if (waited.includes(']:')) {
      this.learnReferences(waited);
    }
    this.tail = this.tail.slice(taken);
    return true;
  }

  /** Places rendered top-level blocks that end at a boundary (their markdown: `source`) as a frozen chunk. */
  private placeFrozen(fragment: DocumentFragment, source: string): void {
    const placement = this.blocks.append(fragment);
    this.chunks.push({ placement, source: source.includes(']') ? ownCopy(source) : undefined, render: renderBlocks });
    if (source.includes(']:')) {
      this.learnReferences(source);
    }
  }

  /** The stream's block ended at `result` (an offset into the tail) or was not what it seemed. */
  private endStream(result: 'abandon' | number): void {
    const stream = this.stream;
    this.stream = undefined;
    if (stream === undefined) {
      return;
    }
    if (result === 'abandon') {
      this.blocks.remove(stream.placement);
      this.chunks = this.chunks.filter((chunk) => chunk.owner !== stream);
      // Rendered as a whole from now on, less often as it grows.
      this.regrowAt = -1;
      return;
    }
    this.chunks.push({ placement: stream.placement, source: undefined, render: renderBlocks });
    this.tail = this.tail.slice(result);
    this.regrowAt = 0;
    this.window = BASE_WINDOW;
  }

  /**
   * Parses the first `end` code units of the tail, freezes what is finished, and (if `show`)
   * renders the rest again. `all`: render an open block however long it is.
   */
  private renderWindow(end: number, all: boolean, show: boolean): boolean {
    const complete = end === this.tail.length;
    const tail = complete ? this.tail : this.tail.slice(0, end);
    const env: RenderEnv = { references: { ...this.frozenRefs } };
    const tokens = parseMarkdown(tail, env, 'blocks');
    const starts = lineStarts(tail);
    const boundary = findBoundary(tokens, tail, starts);
    let changed = this.applyReferences(env.references ?? {});
    let tailTokens = tokens;
    if (boundary !== undefined) {
      this.window = BASE_WINDOW;
      this.regrowAt = 0;
      this.removeTail();
      this.placeFrozen(renderFragment(tokens.slice(0, boundary.index), env).build(), tail.slice(0, boundary.offset));
      this.tail = this.tail.slice(boundary.offset);
      tailTokens = tokens.slice(boundary.index);
      changed = true;
    } else if (!complete) {
      // An open block longer than the window: look further next time.
      this.window *= 2;
    }
    const rest = boundary === undefined ? tail : tail.slice(boundary.offset);
    if (this.regrowAt === 0 && rest.length >= STREAM_AT && this.startStream(tailTokens, rest, boundary === undefined ? 0 : starts.indexOf(boundary.offset))) {
      return true;
    }
    if (rest.length >= STREAM_AT && !all) {
      this.regrowAt = Math.max(this.regrowAt, Math.ceil(this.tail.length * REGROW));
    }
    if (!show) {
      // More of the text comes in this pass: the open part is shown once the pass stops.
      return changed;
    }
    const rendered = renderFragment(tailTokens, env);
    if (rendered.key !== this.tailKey || boundary !== undefined) {
      this.removeTail();
      this.tailPlacement = this.blocks.append(rendered.build());
      this.tailKey = rendered.key;
      changed = true;
    }
    return changed;
  }

  /**
   * Starts a stream for the tail's open block, when the tail is one block (after blank lines) of
   * a kind a stream handles. `tokens` are the tail's (`lineOffset`: their line numbers' start).
   */
  private startStream(tokens: readonly MdToken[], rest: string, lineOffset: number): boolean {
    const first = tokens[0];
    if (first?.map === null || first === undefined) {
      return false;
    }
    // The block must be all there is: nothing at the top level after its closing token.
    const close = first.nesting === 1 ? tokens.findIndex((token, i) => i > 0 && token.level === first.level && token.nesting === -1) : 0;
    if (close < 0 || close !== tokens.length - 1) {
      return false;
    }
    const startLine = first.map[0] - lineOffset;
    const starts = lineStarts(rest);
    if (startLine < 0 || startLine >= starts.length || !BLANK.test(rest.slice(0, starts[startLine]))) {
      return false;
    }
    const block = rest.slice(starts[startLine]);
    // `rest` is the start of the tail (a window of it may end before the tail does).
    const offset = starts[startLine];
    let stream: BlockStream | undefined;
    if (first.type === 'fence' && FenceStream.canStart(block)) {
      stream = new FenceStream(this.host, block, first);
    } else if (first.type === 'paragraph_open') {
      stream = new ParagraphStream(this.host, block);
    } else {
      const shifted = offset === 0 && startLine === 0 ? tokens : parseMarkdown(block, { references: { ...this.frozenRefs } }, 'blocks');
      stream = ContainerStream.create(block, shifted, this.host);
    }
    if (stream === undefined) {
      return false;
    }
    this.removeTail();
    this.tail = this.tail.slice(offset);
    this.stream = stream;
    return true;
  }

  private removeTail(): void {
    this.blocks.remove(this.tailPlacement);
    this.tailPlacement = [];
    this.tailKey = '';
  }

  /** Learns the definitions made by frozen text (first definition wins, as in a full parse). */
  private learnReferences(source: string): void {
    const env: RenderEnv = { references: { ...this.frozenRefs } };
    parseBlocks(source, env);
    this.frozenRefs = env.references ?? {};
  }

  /** A parse saw these definitions (frozen and tentative): frozen text that uses a changed one is rendered again. */
  private applyReferences(references: References): boolean {
    const signature = JSON.stringify(references);
    if (signature === this.refsSignature) {
      return false;
    }
    const changed = this.refreshReferences(this.refs, references);
    this.refs = references;
    this.refsSignature = signature;
    return changed;
  }

  /**
   * Definitions appeared, changed or went away (one can still be arriving): frozen chunks whose
   * text mentions an affected label are rendered again with the new definitions.
   */
  private refreshReferences(before: References, after: References): boolean {
    const labels = [...new Set([...Object.keys(before), ...Object.keys(after)])]
      .filter((label) => before[label]?.href !== after[label]?.href || before[label]?.title !== after[label]?.title)
      .map(squash);
    if (labels.length === 0) {
      return false;
    }
    const mentions = (source: string): boolean => {
      const text = squash(source);
      return labels.some((label) => text.includes(label));
    };
    let changed = this.lazy.refresh(mentions, after);
    for (const chunk of this.chunks) {
      if (chunk.source === undefined || !mentions(chunk.source)) {
        continue;
      }
      chunk.placement = replacePlacement(chunk.placement, chunk.render(chunk.source, after));
      changed = true;
    }
    return changed;
  }
}
