import { BLANK, boundaryAt, findBoundary, GROUP_SIZE, lineStarts, mayHoldCut, startsElement, TextNormalizer } from '../../shared/answer/blocks';
import type { HeldGroup } from '../../shared/protocol';
import { BlockLane } from './blockLane';
import { Grouper, insertPlaced, replacePlacement, type Placement } from './groups';
import { Backlog, LAZY_KEEP, LAZY_WINDOW, LazyGroups } from './lazy';
import { renderFragment, sanitizeToFragment } from './markdown';
import { GROUP_SHELL, parseBlocks, parseBlocksAndLines, parseMarkdown, type MdToken, type References, type RenderEnv } from './parse';
import { FenceStream } from './fence';
import { finishesBy, FramePacer, FULL_BUDGET_MS, pageFrames, WindowPace, type FrameClient } from './pacer';
import { appendGroup, ContainerStream, groupShell, ownCopy, ParagraphStream, type BlockStream, type FrozenChunk, type StreamHost } from './streams';

/** How a renderer gets its updates onto the screen. */
export interface RendererOptions {
  /**
   * Runs a render later, with a frame budget of the renderer's own. By default the renderer is one
   * client of the page's frame loop (pacer.ts), which shares one budget among the page's renderers.
   * Tests pass a synchronous one.
   */
  readonly scheduleFrame?: (callback: () => void) => void;
  /**
   * Called after every update of the DOM (e.g. to keep a transcript scrolled to the bottom), and
   * when the answer has become all rendered (see `done`).
   */
  readonly onRender?: () => void;
  /**
   * Called once the answer has become all rendered (see `done`), in the render that made it so:
   * `onRender` may come a frame later, when renderers share the page's frames (see FrameLoop).
   */
  readonly onDone?: () => void;
  /** Asks the extension host for held groups' text (see {@link IncrementalRenderer.hold}); it comes back through `provideHeld`. */
  readonly wantHeld?: (ids: readonly number[]) => void;
  /**
   * Whether streamed code may be cut and highlighted by the page's worker, when it is up (see
   * worker.ts). By default, when frames come from the page's frame loop; a renderer with its
   * own `scheduleFrame` says so itself. A synchronous one must not: its render cannot wait.
   */
  readonly offThread?: boolean;
  /**
   * Whether the answer's text may be cut and rendered by the page's worker, when code may go
   * there too: its whole blocks (see blockLane.ts) and long paragraphs (see streams.ts,
   * ParagraphStream). By default, yes.
   */
  readonly textOffThread?: boolean;
}

/** A held group after the tail, and its text if it had to be asked for to be rendered in line. */
interface Queued {
  readonly group: HeldGroup;
  text?: string;
}

/** The text parsed at once, unless a longer open block needs more (then it doubles). */
const BASE_WINDOW = 4 * 1024;
/**
 * A window may shrink to what fits in the frame's budget left, at the pace the last windows were
 * rendered (a page that is slow for a while, starting cold or sharing the processor with the
 * rest of the workbench, then does not overrun its frame by a whole window), but not below this.
 */
const MIN_WINDOW = 1024;
/** An open block longer than this streams through a {@link BlockStream}: its finished parts are never rendered again. */
const STREAM_AT = 8 * 1024;
/** An open block no stream handles is rendered again only when it has grown by this factor. */
const REGROW = 1.5;

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
  private normalizer = new TextNormalizer();
  /** Definitions made by the frozen text. */
  private frozenRefs: References = {};
  /** The definitions the DOM reflects, and their JSON. */
  private refs: References = {};
  private refsSignature = '{}';
  private chunks: FrozenChunk[] = [];
  /** What came after the tail, in order: held groups (see `hold`) and the text after them. */
  private queue: Array<Queued | string> = [];
  /** Places the top-level blocks. */
  private blocks: Grouper;
  private tailPlacement: Placement = [];
  private tailKey = '';
  private renderedLength = -1;
  private window = BASE_WINDOW;
  /** The pace of this renderer's windows. */
  private readonly pace = new WindowPace(MIN_WINDOW);
  /** A window cut short to fit the frame found no end of a block: its length (the next is twice as long); 0: none. */
  private shortEnd = 0;
  /** The stream rendering the open block at the start of the tail, if any. */
  private stream: BlockStream | undefined;
  /** The text appended to the tail since the stream last saw it (see BlockStream.advance). */
  private fresh = '';
  /** No stream takes the open block: it is rendered again once the tail is this long. */
  private regrowAt = 0;
  /** Groups of blocks that wait as text until they come near the view. */
  private lazy: LazyGroups;
  /** The worker's lane that cuts and renders the answer's whole blocks, while it does (see blockLane.ts). */
  private lane: BlockLane | undefined;
  /** No group could wait last time: not tried again before this many top-level elements are placed. */
  private lazyRetryAt = 0;
  /** How far the tail is behind the stream, frame after frame (whether groups of it wait). */
  private backlog = new Backlog();
  private scheduled = false;
  /** How long each frame's render may work (see pacer.ts). */
  private readonly pacer = new FramePacer();
  /** When the last render pass had updated the DOM, before `onRender`. */
  private renderedAt = 0;
  /**
   * Counts frame requests: only the latest scheduled callback renders. A render outside a frame
   * (`finish`, `reset`) can ask for a frame while an earlier one is still pending; without this,
   * both would run, and from then on every frame would render twice, each with a full budget.
   */
  private frameRequest = 0;
  /** Its answer is gone (see `dispose`). */
  private disposed = false;
  /** Inside a render of the page's frame loop: `onRender` waits for every renderer of the frame (see `rendered`). */
  private inPageFrame = false;
  /** The DOM changed in the page frame's render: `onRender` is due when the frame's renders are done. */
  private renderDue = false;
  /** How this renderer takes part in the page's frame loop (when no `scheduleFrame` was given). */
  private readonly frameClient: FrameClient = {
    render: (budgetMs) => {
      if (!this.scheduled) {
        // A render outside the frame (`reset`, `flush`) did the work since it asked.
        return;
      }
      this.inPageFrame = true;
      try {
        this.update(false, budgetMs);
      } finally {
        this.inPageFrame = false;
      }
    },
    rendered: () => {
      if (this.renderDue) {
        this.renderDue = false;
        this.options.onRender?.();
      }
    },
    ending: () => this.finished && !this.settled,
  };
  /** No more text comes (`finish()`); `settled`: and all of it is rendered. */
  private finished = false;
  private settled = false;
  private readonly schedule: ((callback: () => void) => void) | undefined;
  private readonly host: StreamHost = {
    frozenReferences: () => this.frozenRefs,
    learnReferences: (source) => this.learnReferences(source),
    seeReferences: (references) => void this.applyReferences(references),
    references: () => this.refs,
    register: (chunk) => void this.chunks.push(chunk),
    place: (fragment) => this.blocks.append(fragment),
    wake: () => this.requestFrame(),
    offThread: () => this.options.offThread ?? this.options.scheduleFrame === undefined,
    textOffThread: () => this.host.offThread() && this.options.textOffThread !== false,
    wait: (element, source, render) => this.lazy.add(element, source, render),
    renderAgain: (elements) => this.lazy.renderAgain(elements),
  };

  constructor(
    private readonly container: HTMLElement,
    private readonly options: RendererOptions = {},
  ) {
    this.schedule = options.scheduleFrame;
    this.blocks = blockGrouper(container);
    this.lazy = this.lazyGroups();
    this.lane = this.blockLane();
  }

  /** A lane of the page's worker for the answer's blocks, if the renderer may wait for it and it is up. */
  private blockLane(): BlockLane | undefined {
    if (!this.host.textOffThread()) {
      return undefined;
    }
    const lane = new BlockLane(() => this.requestFrame());
    return lane.active ? lane : undefined;
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
    const normalized = this.normalizer.normalize(text);
    const last = this.queue.length - 1;
    if (last < 0) {
      this.lane?.add(normalized, this.tail.length);
      this.tail += normalized;
      if (this.stream !== undefined) {
        this.fresh += normalized;
      }
    } else if (typeof this.queue[last] === 'string') {
      this.queue[last] += normalized;
    } else {
      this.queue.push(normalized);
    }
    this.requestFrame();
  }

  /**
   * Groups of top-level blocks that the extension host kept (see shared/answer/heldText.ts) follow the text
   * so far: each becomes a waiting group, and its text is asked for when it comes near the view.
   * The text before them ends where a group starts, as the host cut it.
   */
  hold(groups: readonly HeldGroup[]): void {
    // The worker's offsets are into the text as it came: the page renders the rest of this answer.
    // (A lane for each stretch after a group that waits was tried: the page's time and stalls did
    // not change, and a flood's end came later; README, "The text between held groups".)
    this.lane?.drop();
    this.lane = undefined;
    this.queue.push(...groups.map((group) => ({ group })));
    this.requestFrame();
  }

  /** The text of a held group arrived (normalized: the host cut it from normalized text). */
  provideHeld(id: number, normalized: string): void {
    const queued = this.queue.find((item): item is Queued => typeof item !== 'string' && item.group.id === id);
    if (queued !== undefined) {
      queued.text = normalized;
      this.requestFrame();
    } else {
      this.lazy.provide(id, normalized);
    }
  }

  /**
   * The stream ended: what is left is rendered in the next frame, and if one frame's budget is not
   * enough, over the frames after it (see `done`). Not at once: the message that ends an answer
   * comes between frames, and rendering there would add to the next frame's wait.
   */
  finish(): void {
    this.finished = true;
    this.requestFrame();
  }

  /**
   * Whether the answer has ended and all of it is rendered, but for groups far from the view that
   * wait to be rendered until they come near it.
   */
  get done(): boolean {
    return this.settled;
  }

  /** Whether held groups still wait for their text from the extension host (see `hold`). */
  get asking(): boolean {
    return this.lazy.asking || this.queue.some((item) => typeof item !== 'string' && item.text === undefined);
  }

  /** Renders what is pending now, all of it (groups waiting for the view too), instead of over the next frames. */
  flush(): void {
    this.update(true);
    this.lazy.renderAll();
  }

  /** Starts over, showing `text` (within this frame's budget, the rest over the next frames); the stream may continue with `append`. */
  reset(text = ''): void {
    this.frameRequest++;
    this.scheduled = false;
    this.normalizer = new TextNormalizer();
    this.tail = this.normalizer.normalize(text);
    this.received = text.length;
    this.finished = false;
    this.settled = false;
    this.frozenRefs = {};
    this.refs = {};
    this.refsSignature = '{}';
    this.chunks = [];
    this.queue = [];
    this.tailPlacement = [];
    this.tailKey = '';
    this.renderedLength = -1;
    this.window = BASE_WINDOW;
    this.shortEnd = 0;
    this.stream = undefined;
    this.fresh = '';
    this.regrowAt = 0;
    this.lazy.dispose();
    this.lazy = this.lazyGroups();
    this.lazyRetryAt = 0;
    this.backlog = new Backlog();
    this.lane?.drop();
    this.lane = this.blockLane();
    this.lane?.add(this.tail, 0);
    this.container.replaceChildren();
    this.blocks = blockGrouper(this.container);
    // A long text (a restored conversation) is rendered over frames like any other.
    this.update(false);
  }

  /**
   * Its answer is gone (a state replaced the turns, or a turn was built again): nothing more is
   * rendered into it, its waiting groups are no longer watched, and the worker does nothing more for
   * it. An answer of 3,000 sections replaced while it rendered was rendered on into the detached
   * answer: 11,736 changes to its DOM in the next 30 frames, each frame's budget spent on it.
   */
  dispose(): void {
    this.disposed = true;
    this.frameRequest++;
    this.scheduled = false;
    this.queue = [];
    this.tail = '';
    this.stream?.drop?.();
    this.stream = undefined;
    this.lazy.dispose();
    this.lane?.drop();
    this.lane = undefined;
  }

  private requestFrame(): void {
    if (this.scheduled || this.disposed) {
      return;
    }
    this.scheduled = true;
    if (this.schedule === undefined) {
      pageFrames.request(this.frameClient);
      return;
    }
    const request = ++this.frameRequest;
    this.schedule(() => {
      if (request === this.frameRequest && this.scheduled) {
        this.scheduled = false;
        const start = performance.now();
        this.update(false, this.pacer.budget(start));
        this.pacer.ended(start, this.renderedAt, this.scheduled);
      }
    });
  }

  /**
   * One render pass: `all` renders everything pending (no budget); otherwise windows of the tail
   * until `budgetMs` is spent. After `finish()`, the pass that reaches the end of the text renders
   * the last blocks as final.
   */
  private update(all: boolean, budgetMs = FULL_BUDGET_MS): void {
    this.scheduled = false;
    const begun = performance.now();
    const deadline = all ? Number.POSITIVE_INFINITY : begun + budgetMs;
    // An answer that has ended may finish past a budget smaller than a whole frame's (see finishesNow).
    const finishBy = begun + Math.max(budgetMs, FULL_BUDGET_MS);
    // Groups that came into view go first: the reader is looking at them. Once the answer has
    // ended, its last text goes first: the view that followed the answer shows it, and the groups
    // near it are above it (they are rendered after it, in this frame if there is time).
    const dueFirst = !this.finished || this.settled;
    let changed = dueFirst && this.lazy.pending && this.lazy.renderDue(deadline);
    if (this.settled || (this.renderedLength === this.received && !this.finished && this.queue.length === 0 && this.stream?.pending !== true)) {
      this.afterUpdate(changed);
      return;
    }
    let more = false;
    /** The next held group is to be rendered in line and its text has not come yet. */
    let waiting = false;
    if (!all) {
      this.backlog.frame(this.tail.length);
    }
    for (;;) {
      // No more text comes to the tail once the answer has ended or held groups follow it.
      const complete = this.finished || this.queue.length > 0;
      if (this.stream !== undefined) {
        const result = this.stream.advance(this.tail, all, complete, deadline, this.fresh);
        this.fresh = '';
        changed = true;
        if (result === 'open') {
          more = this.stream.pending;
          break;
        }
        this.endStream(result);
        continue;
      }
      if (this.lane?.active === true && !all && this.tail.length > 0) {
        if (performance.now() >= deadline) {
          more = true;
          break;
        }
        const offset = this.lane.offset(this.tail.length);
        const piece = this.lane.take(offset, offset + this.tail.length);
        if (piece !== undefined) {
          this.placeFromWorker(piece.html, piece.references, this.tail.slice(0, piece.length));
          changed = true;
          continue;
        }
        // Text that cannot end a block (the open block growing, or the answer's first words) is not waited for.
        if (mayHoldCut(this.tail) && this.lane.waits(offset)) {
          more = true;
          break;
        }
      }
      if (this.tail.length > 0 && (complete || all || this.tail.length >= this.regrowAt)) {
        // An answer that has ended far behind makes its groups wait for up to a whole frame's
        // budget (`finishBy`): that costs a parse of their blocks only, and its end is final in
        // this frame instead of after one window a frame.
        const waitBy = this.finished ? finishBy : deadline;
        if (!all && this.backlog.far(this.tail.length, complete) && this.blocks.count >= this.lazyRetryAt && performance.now() < waitBy && this.makeGroupsWait(waitBy)) {
          changed = true;
          continue;
        }
        const past = performance.now() >= deadline;
        if (past && !this.finishesNow(finishBy)) {
          more = true;
          break;
        }
        const whole = Math.min(this.tail.length, this.window);
        const end = all ? this.tail.length : Math.min(whole, this.windowBefore(past ? finishBy : deadline));
        const last = end === this.tail.length;
        const started = performance.now();
        changed = this.renderWindow(end, all || (complete && last), last, end < whole) || changed;
        this.pace.learn(performance.now() - started, end);
        if (!last || this.stream !== undefined) {
          continue;
        }
      }
      // The tail is rendered to its end (or waits to grow).
      if (this.queue.length === 0) {
        break;
      }
      const placing = this.placeQueued(deadline);
      if (placing === 'waiting') {
        waiting = true;
        break;
      }
      changed = true;
      if (placing === 'later') {
        more = true;
        break;
      }
    }
    if (this.stream === undefined) {
      // Text the page rendered itself: the worker goes on after it.
      this.lane?.follow(this.lane.offset(this.tail.length), this.frozenRefs, !more);
    }
    // With work left for later frames, the text received is not all rendered yet.
    this.renderedLength = more ? -1 : this.received;
    if (!this.settled && this.finished && !more && !waiting && this.stream === undefined && this.queue.length === 0) {
      this.settled = true;
      // The worker keeps nothing for an answer that is all rendered.
      this.lane?.drop();
      this.lane = undefined;
      this.options.onDone?.();
    }
    if (!dueFirst && this.lazy.pending && performance.now() < deadline) {
      changed = this.lazy.renderDue(deadline) || changed;
    }
    if (!this.settled && !waiting && (more || (this.finished && !all))) {
      this.requestFrame();
    }
    // Becoming all rendered is news to the view even when the DOM did not change.
    this.afterUpdate(changed || (this.finished && this.settled));
  }

  /**
   * The tail is rendered to its end, where held groups begin: places each as a waiting group
   * (see lazy.ts) and takes the text after them as the new tail. Returns 'waiting' while the next
   * one waits for its text, to be rendered in line (only if the host's cut did not fall where a
   * group starts here, which a shared count of blocks rules out), and 'later' if `deadline` came
   * before all were placed (thousands can come at once: each costs a little).
   */
  private placeQueued(deadline: number): 'placed' | 'waiting' | 'later' {
    this.keepTail();
    let placed = false;
    let result: 'placed' | 'later' = 'placed';
    // Consecutive held groups go in as one element (see addHeldRun in lazy.ts).
    const run: HeldGroup[] = [];
    while (this.queue.length > 0) {
      const next = this.queue[0];
      if (typeof next === 'string' || next.text !== undefined) {
        this.tail += typeof next === 'string' ? next : next.text;
        this.queue.shift();
        continue;
      }
      if (this.tail.length > 0) {
        break;
      }
      if (this.blocks.untilGroup() !== 0) {
        this.options.wantHeld?.([next.group.id]);
        return 'waiting';
      }
      if (placed && performance.now() >= deadline) {
        result = 'later';
        break;
      }
      this.queue.shift();
      if (Object.keys(next.group.references).length > 0) {
        // Definitions made earlier win.
        this.frozenRefs = { ...next.group.references, ...this.frozenRefs };
      }
      run.push(next.group);
      placed = true;
    }
    if (run.length > 0) {
      this.lazy.addHeldRun(this.blocks.placeGroups(run.length) as HTMLElement, run);
    }
    if (placed) {
      // Frozen text may use a definition the held groups make.
      this.applyReferences({ ...this.frozenRefs });
    }
    return result;
  }

  /** The tail as rendered is final (it ended where held groups begin): it stays as a frozen chunk. */
  private keepTail(): void {
    if (this.tail.length > 0) {
      this.chunks.push({ placement: this.tailPlacement, source: this.tail.includes(']') ? ownCopy(this.tail) : undefined, render: renderBlocks });
      if (this.tail.includes(']:')) {
        this.learnReferences(this.tail);
      }
    }
    this.tail = '';
    this.tailPlacement = [];
    this.tailKey = '';
  }

  private afterUpdate(changed: boolean): void {
    // What `onRender` does after this (e.g. a layout to follow the new text) is the page's share of the frame.
    this.renderedAt = performance.now();
    if (this.lazy.pending) {
      this.requestFrame();
    }
    if (changed && this.inPageFrame) {
      this.renderDue = true;
    } else if (changed) {
      this.options.onRender?.();
    }
  }

  private lazyGroups(): LazyGroups {
    return new LazyGroups(
      renderBlocks,
      // The definitions frozen text made come first (the first definition wins), then those seen since.
      () => ({ ...this.refs, ...this.frozenRefs }),
      () => this.requestFrame(),
      (ids) => this.options.wantHeld?.(ids),
      () => groupShell(GROUP_SHELL),
      (element, text) => this.groupFence(element, text),
    );
  }

  /**
   * A long fenced code block of a waiting group (see FenceRender in lazy.ts), rendered into the
   * group's `element` as the answer's open code block streams: by a FenceStream whose text is
   * all there.
   */
  private groupFence(element: HTMLElement, text: string): BlockStream | undefined {
    const token = parseMarkdown(text.slice(0, text.indexOf('\n') + 1), {}, 'blocks')[0] as MdToken | undefined;
    if (token?.type !== 'fence' || !FenceStream.canStart(text)) {
      return undefined;
    }
    const host: StreamHost = { ...this.host, place: (fragment) => insertPlaced(element, fragment) };
    return new FenceStream(host, text, token);
  }

  /**
   * The text far behind the stream: its whole groups of top-level blocks wait as text (see
   * lazy.ts). Parses a window of the tail's blocks only; the blocks before the next group start
   * are rendered as usual (as many as fit before `deadline`, the rest in the next pass), then
   * every group that starts and ends at a boundary waits. Returns whether any text was taken off
   * the tail.
   */
  private makeGroupsWait(deadline: number): boolean {
    // The open part at the tail's end is rendered again after this.
    this.removeTail();
    const text = this.tail.slice(0, Math.min(LAZY_WINDOW, this.tail.length - LAZY_KEEP));
    const { tokens, starts } = parseBlocksAndLines(text);
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
      // Up to 63 blocks: only those that fit in the frame's time left, if they end where text can be cut.
      const fits = this.pace.fits(deadline - performance.now());
      let part = element - 1;
      while (taken > fits && part > 0 && (cuts[part] === undefined || (cuts[part] as number) > fits)) {
        part--;
      }
      if (taken > fits && part > 0) {
        const partText = text.slice(0, cuts[part]);
        this.placeFrozen(renderBlocks(partText, { ...this.refs, ...this.frozenRefs }), partText);
        this.tail = this.tail.slice(partText.length);
        return true;
      }
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

  /**
   * Places whole blocks the worker cut and rendered (`source`: their markdown, the tail's start);
   * rendered again here if they could use a definition and were rendered with others than the DOM reflects.
   */
  private placeFromWorker(html: string, references: string, source: string): void {
    this.removeTail();
    const current = references === this.refsSignature || !source.includes(']');
    this.placeFrozen(current ? sanitizeToFragment(html) : renderBlocks(source, { ...this.refs, ...this.frozenRefs }), source);
    this.tail = this.tail.slice(source.length);
    this.window = BASE_WINDOW;
    this.shortEnd = 0;
    this.regrowAt = 0;
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
    this.shortEnd = 0;
  }

  /**
   * Whether an answer that has ended renders on past the frame's deadline (see `finishesBy`), and
   * its last words (MIN_WINDOW) even past `finishBy`.
   */
  private finishesNow(finishBy: number): boolean {
    if (!this.finished || this.queue.length > 0) {
      return false;
    }
    return this.tail.length <= MIN_WINDOW || finishesBy(finishBy);
  }

  /**
   * The next window's length: the base window, or less if the budget left before `deadline` does
   * not fit it at the pace seen so far (the smallest, until a window has shown the pace). A window
   * doubled for an open block longer than it is kept whole, so the block is always reached.
   */
  private windowBefore(deadline: number): number {
    if (this.window > BASE_WINDOW) {
      return this.window;
    }
    if (this.shortEnd > 0) {
      // Whatever the budget: each window that ends inside a block is followed by a longer one.
      return Math.min(this.window, 2 * this.shortEnd);
    }
    // Until the pace is known (the page may be cold), a small window measures it.
    return this.pace.fits(deadline - performance.now(), this.window);
  }

  /**
   * Parses the first `end` code units of the tail, freezes what is finished, and (if `show`)
   * renders the rest again. `all`: render an open block however long it is. `shortened`: the
   * window was cut short to fit the frame.
   */
  private renderWindow(end: number, all: boolean, show: boolean, shortened: boolean): boolean {
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
      this.shortEnd = 0;
      this.regrowAt = 0;
      this.removeTail();
      this.placeFrozen(renderFragment(tokens.slice(0, boundary.index), env).build(), tail.slice(0, boundary.offset));
      this.tail = this.tail.slice(boundary.offset);
      tailTokens = tokens.slice(boundary.index);
      changed = true;
    } else if (shortened) {
      // No block ends in a window cut short: twice as long next time, up to the whole window (then it doubles as usual).
      this.shortEnd = end;
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
    this.fresh = '';
    this.lane?.pause();
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
