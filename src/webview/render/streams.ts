import { GROUP_SIZE, Grouper, insertPlaced, replacePlacement, type Group, type Placement } from './groups';
import { finishesBy, FULL_BUDGET_MS, WindowPace } from './pacer';
import { remoteText, WORKER_WAIT_MS, type RemoteText, type TextSink } from './worker';
import { sanitizeChildren, sanitizeToFragment, type PieceParent } from './markdown';
import type { RenderedPiece, TextPieces } from '../worker/protocol';
import { Backlog, LAZY_KEEP, LAZY_WINDOW, type GroupRender } from './lazy';
import {
  GROUP_SHELL,
  LONG_TABLE,
  TABLE_BODY_SHELL,
  parseBlocks,
  parseMarkdown,
  renderInlinePiece,
  renderTokens,
  LIVE_LIMIT,
  textChunk,
  TextCutter,
  type MdToken,
  type References,
  type RenderEnv,
} from './parse';

/** Rendered text that is final, and where its nodes are. */
export interface FrozenChunk {
  placement: Placement;
  /** Kept only when the text has a `]`, i.e. could use a reference definition that arrives later. */
  readonly source: string | undefined;
  /** Renders `source` again (with new definitions) into the nodes that replace the chunk's. */
  readonly render: (source: string, references: References) => DocumentFragment;
  /** The stream that froze it, if any. */
  readonly owner?: BlockStream;
}

/** What a stream needs from the renderer that owns it. */
export interface StreamHost {
  /** The definitions made by frozen text. */
  frozenReferences(): References;
  /** Text with definitions was frozen: learn them (first definition wins). */
  learnReferences(source: string): void;
  /** The definitions a parse of the open block saw (frozen and tentative ones). */
  seeReferences(references: References): void;
  /** The definitions the DOM reflects. */
  references(): References;
  /** Records a frozen piece, so that a later definition can render it again. */
  register(chunk: FrozenChunk): void;
  /** Appends a stream's block (its nodes) to the answer. */
  place(fragment: DocumentFragment): Placement;
  /** Asks for a render in the next frame: work came for the stream outside one (pieces from the render worker). */
  wake(): void;
  /** Whether streamed code may go to the page's worker (see RendererOptions.offThread). */
  offThread(): boolean;
  /** Whether the answer's text (a long paragraph) may go to the page's worker (see RendererOptions.textOffThread). */
  textOffThread(): boolean;
  /** Makes an empty group hold `source` until it comes near the view, rendered by `render` then (see lazy.ts). */
  wait(element: HTMLElement, source: string, render: GroupRender): void;
  /** Renders again what is rendered of these waiting groups (their `render` gives something else now). */
  renderAgain(elements: readonly Element[]): void;
}

/**
 * What a stream makes of the tail in one frame: the block goes on ('open'), ended where the next
 * block starts (an offset into the tail), or turned out to be something else ('abandon').
 */
export type StreamResult = 'open' | 'abandon' | number;

/** How a long open block is rendered as it streams: its finished parts once, the rest bounded. */
export interface BlockStream {
  /** Where the block's top-level nodes went. */
  readonly placement: Placement;
  /** Work is left (highlighting, text received) that later frames do even if no text comes. */
  readonly pending: boolean;
  /**
   * Takes the tail (which starts with the block). `drain`: do pending work (highlighting, all the text) now.
   * `complete`: no more text will come. `deadline`: when the frame's budget ends (a `performance.now()` time).
   * `fresh`: the text appended to the tail since the stream's last call (or since it was made), so
   * a stream can read the new text without reading the tail (see {@link ParagraphStream}).
   */
  advance(tail: string, drain: boolean, complete: boolean, deadline: number, fresh?: string): StreamResult;
  /** The answer is gone: the worker does nothing more for this block. */
  drop?(): void;
}

/**
 * A container's new text is parsed in windows of at most CONTAINER_WINDOW, each ending at a line
 * end, until the frame's budget is spent (at most a whole frame's, FULL_BUDGET_MS; at least one
 * window); the rest waits for the next frame. A container (or a paragraph the page renders) that
 * loses ground (see Backlog in lazy.ts) gets CATCH_UP_MS past the budget: with its share of a
 * Compare panel's frame in a busy page, a long list fell further behind every frame without them.
 * One that keeps up never takes them: taken in every frame, they made the list's and the table's
 * frames the longest of the shapes (`npm run bench renderer-shapes` and `renderer-compare`). Each window is
 * cut to what fits in the time left at the pace the container's windows have shown, not below
 * CONTAINER_LEAST_WINDOW, and no window starts that would not fit the least.
 * After a window that finishes no child, the next is twice as long whatever the time left (so a
 * long child is always reached).
 */
const CONTAINER_WINDOW = 4 * 1024;
const CONTAINER_LEAST_WINDOW = 1024;
const CATCH_UP_MS = 4;
/**
 * Until when a stream works in this frame: its frame's deadline, CATCH_UP_MS past it while it
 * loses ground (see `backlog`), and never past a whole frame's budget from now (`finishBy`).
 */
function streamDeadline(frameDeadline: number, backlog: Backlog, behind: number, finishBy = performance.now() + FULL_BUDGET_MS): number {
  return Math.min(finishBy, frameDeadline + (backlog.losing(behind) ? CATCH_UP_MS : 0));
}
/**
 * The most text a paragraph the page renders leaves for later frames (see ParagraphStream). Its
 * end freezes what is left at once, so this bounds that frame too. Half as much made a Compare
 * column that had waited frames for its share freeze far more than this in one long frame
 * (`npm run bench renderer-compare`, the longest frame).
 */
const PARAGRAPH_LAG = 48 * 1024;
/** While a paragraph lags, its text after the frozen chunks shows in plain blocks of about this many code units (see ParagraphStream.showLag). */
const LAG_PIECE = 8 * 1024;
const BLANK = /^[ \t]*$/;
const LINE_START_SAFE = /^ {0,3}[A-Za-z\u00c0-\uffff]/;

/** Start offsets of every line of `text`; `complete` is how many of them end with a line break. */
function lines(text: string): { starts: number[]; complete: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    starts.push(i + 1);
  }
  return { starts, complete: starts.length - 1 };
}

function removeAll(nodes: readonly ChildNode[]): void {
  for (const node of nodes) {
    node.remove();
  }
}

/** Places a sanitized block (its element and the line break after it); returns its element and where it went. */
export function placeBlock(host: StreamHost, html: string): { element: Element | null; placement: Placement } {
  const fragment = sanitizeToFragment(html);
  const element = fragment.firstElementChild;
  return { element, placement: host.place(fragment) };
}

/**
 * A stream's view of the tail (which starts with its block): the text from some offset on, kept
 * from the text each call appended. The renderer builds the tail by appending, and V8 copies such
 * a string whole at its first read: read every frame, a block of n characters cost n²/2 copied
 * (`npm run bench renderer-shapes`, total time at 2× size, shows it).
 * What a frame reads is near the end.
 */
export class TailText {
  /** The tail as the last call saw it (read only for text before what is kept). */
  private tail = '';
  private kept = '';
  private from: number;
  /** -1: nothing kept yet (the next call reads the tail once). */
  private end = -1;

  constructor(from: number) {
    this.from = from;
  }

  /**
   * The tail as a stream's `advance` got it, and `fresh` (see {@link BlockStream.advance}); text
   * before `needFrom` is not read any more. Adds `fresh` when it is what came since the last
   * call, else reads the tail (the first call, or a caller without `fresh`).
   */
  see(tail: string, fresh: string | undefined, needFrom: number): void {
    this.tail = tail;
    if (fresh !== undefined && this.end >= 0 && this.end + fresh.length === tail.length) {
      if (needFrom > this.from) {
        this.kept = this.kept.slice(needFrom - this.from);
        this.from = needFrom;
      }
      this.kept += fresh;
    } else {
      this.from = Math.min(needFrom, tail.length);
      this.kept = tail.slice(this.from);
    }
    this.end = tail.length;
  }

  /** The code unit at tail offset `at`: from the kept text when it holds it. */
  charCodeAt(at: number): number {
    return at >= this.from && at < this.end ? this.kept.charCodeAt(at - this.from) : this.tail.charCodeAt(at);
  }

  /** The tail's text from `from` to `to` (tail offsets): from the kept text when it holds it. */
  slice(from: number, to: number): string {
    if (from >= this.from && to <= this.end) {
      return this.kept.slice(from - this.from, Math.max(from, to) - this.from);
    }
    return this.tail.slice(from, to);
  }

  /** The tail offset of the first `search` that starts at or after `position` (not before the kept text) in the kept text; -1 if there is none there. */
  indexOf(search: string, position: number): number {
    const at = this.kept.indexOf(search, Math.max(0, position - this.from));
    return at < 0 ? -1 : at + this.from;
  }

  /** The tail offset of the last `search` that starts at or before `position` in the kept text; -1 if there is none there. */
  lastIndexOf(search: string, position: number): number {
    if (position < this.from) {
      return -1;
    }
    const at = this.kept.lastIndexOf(search, position - this.from);
    return at < 0 ? -1 : at + this.from;
  }
}

/**
 * A paragraph. Lines are checked once the next line is complete (a table header needs the line
 * after it); the inline text is frozen in chunks cut by {@link TextCutter}, which render alone as
 * they do in the whole paragraph and as a one-shot render cuts them. When the page's worker is up
 * (see worker.ts), it cuts and renders the chunks, and renders the text after them as it
 * stands; the page only places what comes back, and shows text the worker has not rendered within
 * WORKER_WAIT_MS as plain text. Without it (or once it fails), the page does that work, with the
 * same result. It freezes chunks until its share of the frame is spent: at least one a frame,
 * CATCH_UP_MS more while it loses ground (as a container does), and all it must to stay within
 * PARAGRAPH_LAG. While chunks are left for later frames, the text after the frozen ones shows as
 * plain text instead of being rendered again each frame. In a busy Compare panel of four answers,
 * a paragraph that froze all it could each frame (it had waited frames for its share) took most of
 * a panel's frame (`npm run bench renderer-compare`).
 */
export class ParagraphStream implements BlockStream, TextSink {
  readonly placement: Placement;
  private readonly paragraph: HTMLElement;
  /** Tail offset of the paragraph's first non-space. */
  private readonly start: number;
  /** Cuts the chunks on the page (without the worker, or after it is lost: from where its chunks end). */
  private cutter: TextCutter;
  /** Tail offset of the first line not yet known to continue the paragraph. */
  private checkFrom = 0;
  /** The complete text already checked (tail offset after its last line break). */
  private checkedTo = 0;
  private liveNodes: ChildNode[] = [];
  /** The unfinished text is rendered again once it is this long (see LIVE_LIMIT). */
  private nextLiveAt = 0;
  private plain: Text | undefined;
  /** Line breaks seen so far: the text is searched up to `scanned`; the last complete line ends at `completeTo`. */
  private scanned = 0;
  private completeTo = 0;
  private firstLineEnd = -1;
  /** The worker's lane that cuts and renders this paragraph's text, while it does. */
  private remote: RemoteText | undefined;
  /** The definitions the worker was last given, and their version (counted by this stream). */
  private remoteReferences: References;
  private version = 0;
  /** Tail offset up to which text went to the worker (known to continue the paragraph); the tentative text after it. */
  private sentTo: number;
  private sentTentative = '';
  /** The paragraph's end was given to the worker, which has not sent the last chunk yet: where it ends. */
  private closingAt: number | undefined;
  /** The worker's chunks not placed yet, with the definitions' version each was rendered with. */
  private readonly incoming: Array<{ readonly piece: RenderedPiece; readonly version: number }> = [];
  /** Tail offset where the worker's chunks received so far end. */
  private receivedEnd: number;
  /** The worker's latest rendering of the text after its chunks (from `from`), until it is shown. */
  private live: { readonly from: number; readonly piece: RenderedPiece } | undefined;
  /** The worker's rendered text shown spans these tail offsets; plain text shows what follows. */
  private liveFrom: number;
  private liveEnd: number;
  /** The tail's text from the frozen text's end on (see {@link TailText}). */
  private readonly tailText: TailText;
  /** Text is shown up to this tail offset (rendered, or plain: what is shown stays shown). */
  private shownTo: number;
  /** Since when text has waited for the worker's rendering, unshown (a `performance.now()` time). */
  private waitingSince: number | undefined;
  /** The worker's last chunk, once the paragraph's end came back. */
  private last: { readonly html: string; readonly version: number } | undefined;
  /** How far the page's frozen text is behind the text known to continue the paragraph, frame after frame. */
  private readonly backlog = new Backlog();
  /** The page stopped freezing for the frame's budget: chunks may be left for the next frame. */
  private lagging = false;
  /** While it lags, the text after the frozen chunks as plain text, in blocks (see LAG_PIECE), by tail offsets. */
  private lagPieces: Array<{ readonly block: HTMLElement; from: number; to: number }> = [];

  constructor(
    private readonly host: StreamHost,
    tail: string,
  ) {
    this.start = tail.length - tail.trimStart().length;
    this.cutter = new TextCutter(this.start);
    const { element, placement } = placeBlock(host, '<p></p>\n');
    this.placement = placement;
    this.paragraph = element instanceof HTMLElement ? element : document.createElement('p');
    this.sentTo = this.start;
    this.tailText = new TailText(this.start);
    this.receivedEnd = this.start;
    this.liveFrom = this.start;
    this.liveEnd = this.start;
    this.shownTo = this.start;
    this.remoteReferences = host.references();
    this.remote = host.textOffThread() ? remoteText(this.remoteReferences, this.version, this) : undefined;
  }

  /** Work is left that this frame or later ones can do (what the worker is still on is not, but for text waiting to be shown). */
  get pending(): boolean {
    return this.lagging || this.incoming.length > 0 || this.live !== undefined || this.last !== undefined || this.waitingSince !== undefined;
  }

  /** Tail offset where the frozen inline text ends. */
  private get frozenEnd(): number {
    return this.cutter.start;
  }

  receiveText(pieces: TextPieces): void {
    for (const piece of pieces.cuts) {
      this.incoming.push({ piece, version: pieces.version });
      this.receivedEnd += piece.length;
    }
    if (pieces.last !== undefined) {
      this.last = { html: pieces.last, version: pieces.version };
    } else {
      // Text too long to render each time comes as none rendered: it shows as plain text.
      this.live = { from: this.receivedEnd, piece: pieces.live ?? { length: 0, html: '' } };
    }
    this.host.wake();
  }

  lost(): void {
    this.remote = undefined;
    this.host.wake();
  }

  drop(): void {
    this.remote?.drop();
    this.remote = undefined;
  }

  advance(tail: string, drain: boolean, complete: boolean, deadline = Number.POSITIVE_INFINITY, fresh?: string): StreamResult {
    this.tailText.see(tail, fresh, this.frozenEnd);
    if (this.closingAt !== undefined) {
      return this.close(tail, this.closingAt, drain, deadline);
    }
    // Only the new text is searched for line breaks.
    const text = this.tailText;
    for (let at = text.indexOf('\n', this.scanned); at >= 0; at = text.indexOf('\n', at + 1)) {
      this.completeTo = at + 1;
      this.firstLineEnd = this.firstLineEnd < 0 ? this.completeTo : this.firstLineEnd;
    }
    this.scanned = tail.length;
    const completeTo = this.completeTo;
    if (completeTo > this.checkedTo) {
      const end = this.checkLines(completeTo);
      if (end !== undefined) {
        return this.close(tail, end, drain, deadline);
      }
    }
    if (complete) {
      return this.close(tail, tail.length, drain, deadline);
    }
    const limit = Math.max(this.checkFrom, this.firstLineEnd < 0 ? tail.length : this.firstLineEnd);
    // A chunk ends before a word whose first character is known to be in the paragraph.
    const known = Math.min(limit, tail.length);
    if (this.offThread(drain, deadline)) {
      this.send(known, this.tailText.slice(known, tail.length));
      this.showLive(tail);
      return 'open';
    }
    const behind = known - this.frozenEnd;
    if (!drain) {
      this.backlog.frame(behind);
    }
    const until = drain ? Number.POSITIVE_INFINITY : streamDeadline(deadline, this.backlog, behind);
    this.freeze(known, until);
    this.renderLive(tail.length, false);
    return 'open';
  }

  /**
   * Whether the worker renders this paragraph from here on. Its chunks received are placed first
   * (at least one, until `deadline`; all of them when the worker is gone or `drain` wants the
   * paragraph now, and then the page goes on from where they end).
   */
  private offThread(drain: boolean, deadline: number): boolean {
    if (this.remote !== undefined && drain) {
      this.remote.drop();
      this.remote = undefined;
    }
    const all = this.remote === undefined;
    for (let placed = 0; this.incoming.length > 0 && (all || placed === 0 || performance.now() < deadline); placed++) {
      const next = this.incoming.shift();
      if (next !== undefined) {
        this.placeChunk(next.piece, next.version);
      }
    }
    if (this.remote !== undefined) {
      return true;
    }
    if (this.liveEnd > this.start || this.live !== undefined || this.last !== undefined) {
      // The worker's rendering goes: the page renders the text after the chunks from now on.
      this.live = undefined;
      this.last = undefined;
      this.waitingSince = undefined;
      this.liveFrom = this.start;
      this.liveEnd = this.start;
      this.nextLiveAt = 0;
    }
    return false;
  }

  /** Gives the worker the text known to continue the paragraph up to `known`, and what follows it. */
  private send(known: number, tentative: string): void {
    const remote = this.remote;
    if (remote === undefined) {
      return;
    }
    const references = this.host.references();
    if (references !== this.remoteReferences) {
      this.remoteReferences = references;
      remote.references(references, ++this.version);
    }
    if (known > this.sentTo) {
      remote.add(this.tailText.slice(this.sentTo, known));
      this.sentTo = known;
    }
    if (tentative !== this.sentTentative) {
      this.sentTentative = tentative;
      remote.tentative(tentative);
    }
  }

  /** Places a chunk the worker cut; one rendered with definitions since replaced is rendered again here. */
  private placeChunk(piece: RenderedPiece, version: number): void {
    const from = this.frozenEnd;
    const source = this.sourceOf(from, piece.length);
    this.register(this.upToDate(piece.html, version, source), source);
    this.cutter = new TextCutter(from + piece.length);
  }

  /**
   * Markup the worker rendered for `source` with the definitions of `version`, or, if the page's
   * definitions have changed since and the text could use one, `source` rendered again here.
   */
  private upToDate(html: string, version: number, source: string | undefined): string {
    const current = version === this.version && this.remoteReferences === this.host.references();
    return current || source === undefined ? html : renderInlinePiece(source, this.host.references()).html;
  }

  /** The text of `length` code units at tail offset `from`, if it could use a definition (see FrozenChunk.source). */
  private sourceOf(from: number, length: number): string | undefined {
    const text = this.tailText.slice(from, from + length);
    return text.includes(']') ? ownCopy(text) : undefined;
  }

  /** Places a frozen chunk's markup before the text after it, and records it (see StreamHost.register). */
  private register(html: string, source: string | undefined, wrap: (inner: string) => string = textChunk): void {
    this.host.register({
      placement: insertPlaced(this.paragraph, sanitizeChildren(wrap(html), 'p'), this.lagPieces[0]?.block ?? this.liveNodes[0] ?? this.plain ?? null),
      source,
      render: (text, references) => sanitizeChildren(wrap(renderInlinePiece(text, references).html), 'p'),
      owner: this,
    });
  }

  /**
   * Places the paragraph's last chunk (the whole text when it has no other) in place of the text
   * after the chunks; recorded like the others, for a definition the answer makes later.
   */
  private placeLast(html: string, source: string | undefined): void {
    this.showLag(this.frozenEnd);
    removeAll(this.liveNodes);
    this.liveNodes = [];
    this.showPlain('');
    this.register(html, source, this.frozenEnd > this.start ? textChunk : (inner) => inner);
  }

  /**
   * Shows the text after the chunks placed: the worker's rendering of it when that starts where
   * they end, then as plain text what was shown before and what the worker has not rendered
   * within WORKER_WAIT_MS. The worker answers within a frame or two: text is laid out once, as
   * it is rendered, not first as plain text and then again.
   */
  private showLive(tail: string): void {
    const live = this.live;
    if (live !== undefined && live.from === this.frozenEnd && this.incoming.length === 0) {
      this.live = undefined;
      removeAll(this.liveNodes);
      const fragment = sanitizeChildren(live.piece.html, 'p');
      this.liveNodes = Array.from(fragment.childNodes);
      this.paragraph.insertBefore(fragment, this.plain ?? null);
      this.liveFrom = live.from;
      this.liveEnd = live.from + live.piece.length;
      this.waitingSince = undefined;
    } else if (this.liveFrom !== this.frozenEnd) {
      // What it showed is in the chunks now.
      removeAll(this.liveNodes);
      this.liveNodes = [];
      this.liveFrom = this.frozenEnd;
      this.liveEnd = this.frozenEnd;
    }
    const now = performance.now();
    const rendered = Math.max(this.liveEnd, this.frozenEnd);
    if (tail.length > Math.max(rendered, this.shownTo)) {
      this.waitingSince ??= now;
      if (now - this.waitingSince >= WORKER_WAIT_MS) {
        this.shownTo = tail.length;
        this.waitingSince = undefined;
      }
    } else {
      this.waitingSince = undefined;
    }
    this.showPlain(this.tailText.slice(rendered, Math.max(rendered, this.shownTo)));
  }

  /**
   * Shows the text from the frozen chunks' end to tail offset `to` as plain text in blocks of about
   * LAG_PIECE, each ending before a word (none when `to` is where they end). Frozen chunks take
   * the place of the pieces their text was in, and new text goes to the last piece or a new one:
   * the browser lays out only the pieces that changed.
   */
  private showLag(to: number): void {
    const from = this.frozenEnd;
    const pieces = this.lagPieces;
    while (pieces.length > 0 && (pieces[0].to <= from || from >= to)) {
      pieces.shift()?.block.remove();
    }
    if (pieces.length > 0 && pieces[0].from < from) {
      pieces[0].from = from;
      pieces[0].block.textContent = this.tailText.slice(from, pieces[0].to);
    }
    for (let at = pieces.at(-1)?.to ?? from; at < to; at = pieces.at(-1)?.to ?? from) {
      // A piece ends before the last space within LAG_PIECE of its start, or at `to`: undefined if it cannot grow.
      const endOf = (start: number): number | undefined => {
        const space = to - start > LAG_PIECE ? this.tailText.lastIndexOf(' ', start + LAG_PIECE) : to;
        return space > at ? space : undefined;
      };
      let piece = pieces.at(-1);
      let end = piece === undefined ? undefined : endOf(piece.from);
      if (piece === undefined || end === undefined) {
        const block = document.createElement('span');
        block.className = 'aq-text-chunk';
        this.paragraph.insertBefore(block, this.liveNodes[0] ?? this.plain ?? null);
        piece = { block, from: at, to: at };
        pieces.push(piece);
        // No word starts within LAG_PIECE: the piece takes the rest.
        end = endOf(at) ?? to;
      }
      piece.block.append(this.tailText.slice(at, end));
      piece.to = end;
    }
  }

  /** The plain text at the paragraph's end shows `text`. */
  private showPlain(text: string): void {
    if (text === '') {
      this.plain?.remove();
      this.plain = undefined;
    } else if (this.plain === undefined) {
      this.plain = document.createTextNode(text);
      this.paragraph.append(this.plain);
    } else if (text.length > this.plain.length && text.startsWith(this.plain.data)) {
      this.plain.appendData(text.slice(this.plain.length));
    } else if (text !== this.plain.data) {
      this.plain.data = text;
    }
  }

  /** Checks the lines between `checkFrom` and `completeTo`; returns where the paragraph ended, if it did. */
  private checkLines(completeTo: number): number | undefined | 'abandon' {
    // After "x", a line is parsed as a continuation, as it is here.
    const window = 'x\n' + this.tailText.slice(this.checkFrom, completeTo);
    const tokens = parseBlocks(window);
    const first = tokens[0];
    const { starts, complete } = lines(window);
    if (first?.type !== 'paragraph_open' || first.map === null) {
      return 'abandon';
    }
    const end = first.map[1];
    this.checkedTo = completeTo;
    if (end < complete) {
      return this.checkFrom + starts[end] - 2;
    }
    // Every line but the last complete one is known to continue the paragraph.
    this.checkFrom += starts[complete - 1] - 2;
    return undefined;
  }

  /**
   * Freezes the chunks decided by the text before `known` (text that continues the paragraph):
   * every one, or (with `until`, a `performance.now()` time) at least one and then as many as are
   * frozen before `until`.
   */
  private freeze(known: number, until = Number.POSITIVE_INFINITY): void {
    // The cutter reads the kept text: reading the tail would copy the whole paragraph every frame.
    const text = this.tailText;
    this.lagging = false;
    for (let from = this.frozenEnd, cut = this.cutter.next(text, known, this.host.references()); cut !== undefined; from = cut.end, cut = this.cutter.next(text, known, this.host.references())) {
      this.register(cut.html, this.sourceOf(from, cut.end - from));
      if (this.plain !== undefined) {
        this.plain.remove();
        this.plain = undefined;
        this.nextLiveAt = 0;
      }
      if (known - cut.end <= PARAGRAPH_LAG && performance.now() >= until) {
        this.lagging = true;
        return;
      }
    }
  }

  /**
   * Shows the text after the frozen chunks: rendered (as the last chunk, once there are chunks and
   * the paragraph is `final`), or as plain text while it is long and cannot be frozen.
   */
  private renderLive(end: number, final: boolean): void {
    const text = this.tailText.slice(this.frozenEnd, end).trimEnd();
    const html = (): string => renderInlinePiece(text, this.host.references()).html;
    if (final) {
      this.placeLast(html(), this.sourceOf(this.frozenEnd, text.length));
      return;
    }
    if (this.lagging) {
      // Chunks are left to freeze in later frames: rendering the text after them would cost what freezing it does.
      removeAll(this.liveNodes);
      this.liveNodes = [];
      this.nextLiveAt = 0;
      this.showPlain('');
      this.showLag(this.frozenEnd + text.length);
      return;
    }
    this.showLag(this.frozenEnd);
    if (text.length > LIVE_LIMIT && text.length < this.nextLiveAt) {
      this.showPlain(text);
      return;
    }
    removeAll(this.liveNodes);
    this.liveNodes = [];
    this.showPlain('');
    if (text.length > LIVE_LIMIT) {
      // Too long to render every frame: plain text until it can be frozen or the paragraph ends.
      this.nextLiveAt = Number.POSITIVE_INFINITY;
      this.showPlain(text);
      return;
    }
    const fragment = sanitizeChildren(html(), 'p');
    this.liveNodes = Array.from(fragment.childNodes);
    this.paragraph.append(fragment);
  }

  private close(tail: string, end: number | 'abandon', drain: boolean, deadline: number): StreamResult {
    if (end === 'abandon' || end < this.frozenEnd || end <= this.start) {
      this.remote?.drop();
      this.remote = undefined;
      return 'abandon';
    }
    // The rest may hold more chunks: a one-shot render cuts them anywhere in the paragraph.
    const known = this.frozenEnd + this.tailText.slice(this.frozenEnd, end).trimEnd().length;
    if (this.offThread(drain, deadline)) {
      if (this.closingAt === undefined) {
        this.closingAt = end;
        this.send(known, '');
        this.remote?.close(known - this.start);
      }
      const last = this.last;
      if (last === undefined || this.incoming.length > 0) {
        this.showLive(tail);
        return 'open';
      }
      const source = this.sourceOf(this.frozenEnd, known - this.frozenEnd);
      this.placeLast(this.upToDate(last.html, last.version, source), source);
      this.remote = undefined;
      return end;
    }
    this.freeze(known);
    this.renderLive(end, true);
    return end;
  }
}

/**
 * A copy of `part` that holds no reference to the text it was cut from. A slice can share its
 * parent's memory, and the tail is a new string each time text arrives: text kept for a long time
 * (to render again for a later definition, or a list turning loose) would keep every earlier tail
 * alive.
 */
export function ownCopy(part: string): string {
  return ` ${part}`.slice(1);
}

/** Empty groups as sanitizing their markup makes them, by markup and parent: cloned, not sanitized again. */
const groupShells = new Map<string, DocumentFragment>();

/** An empty group's nodes (`html`, parsed inside a `parent`, or at the top level), fresh. */
export function groupShell(html: string, parent?: PieceParent): DocumentFragment {
  const key = `${parent ?? ''}\0${html}`;
  let shell = groupShells.get(key);
  if (shell === undefined) {
    shell = parent === undefined ? sanitizeToFragment(html) : sanitizeChildren(html, parent);
    groupShells.set(key, shell);
  }
  return shell.cloneNode(true) as DocumentFragment;
}

/** Appends an empty group (`html`, parsed inside a `parent`, or at the top level) to `host`. */
export function appendGroup(host: Element, html: string, parent?: PieceParent): Group {
  const fragment = groupShell(html, parent);
  const nodes = Array.from(fragment.childNodes);
  const into = fragment.firstElementChild ?? host;
  host.append(fragment);
  return { into, nodes };
}

/** Marks a table as grouped in several bodies, or not (the class attribute goes when it is empty, as in a one-shot render). */
function setLongTable(table: Element, long: boolean): void {
  table.classList.toggle(LONG_TABLE, long);
  if (table.classList.length === 0) {
    table.removeAttribute('class');
  }
}

/** The container blocks a {@link ContainerStream} handles, by the token that opens them. */
const CONTAINERS: Readonly<Record<string, { readonly parent: PieceParent; readonly child: string; readonly level: number }>> = {
  bullet_list_open: { parent: 'ul', child: 'list_item_open', level: 1 },
  ordered_list_open: { parent: 'ul', child: 'list_item_open', level: 1 },
  blockquote_open: { parent: 'blockquote', child: '', level: 1 },
  table_open: { parent: 'tbody', child: 'tr_open', level: 2 },
};

/** Markdown-it's cap on the empty cells it adds to short table rows (a row past it ends the table). */
const TABLE_CELL_CAP = 65536;

/** Shows or hides the paragraphs of a list's items (`level`: the items' blocks), as markdown-it does for tight lists. */
function setTightness(tokens: MdToken[], level: number, close: number, tight: boolean): void {
  for (let i = 1; i < close; i++) {
    if (tokens[i].level === level && (tokens[i].type === 'paragraph_open' || tokens[i].type === 'paragraph_close')) {
      tokens[i].hidden = tight;
    }
  }
}

function closeOf(tokens: readonly MdToken[], open: number): number {
  const level = tokens[open].level;
  for (let i = open + 1; i < tokens.length; i++) {
    if (tokens[i].level === level && tokens[i].nesting === -1) {
      return i;
    }
  }
  return tokens.length;
}

/**
 * A list, a table or a block quote. Its open part (from the first unfinished item, row or inner
 * block) is parsed alone, in windows that end at a line end (see CONTAINER_WINDOW), which renders
 * the same as in place: a list item is final once the next item starts, a table row once its line
 * is complete, a quoted block once another starts after a blank quoted line. Finished children
 * are rendered once into the container element.
 */
export class ContainerStream implements BlockStream {
  readonly placement: Placement;
  /** Text received is left for the next frame. */
  pending = false;
  private span = CONTAINER_WINDOW;
  /** The last window finished no child: the next is `span` long whatever the budget left. */
  private whole = false;
  /** How fast this container's windows have been parsed and rendered. */
  private readonly pace = new WindowPace(CONTAINER_LEAST_WINDOW);
  private readonly element: Element;
  private readonly open: string;
  private readonly shape: (typeof CONTAINERS)[string];
  /** For tables: the header and delimiter rows every parse needs in front. */
  private readonly prefix: string;
  /** Tail offset of the first unfinished child. */
  private anchor: number;
  /** The tail's text from the anchor on (see {@link TailText}). */
  private readonly tailText = new TailText(0);
  /** Places the children: lists' items and quotes' blocks in groups, tables' rows in more bodies. */
  private readonly placer: Grouper;
  private livePlacement: Placement = [];
  private nextParseAt = 0;
  /** Lists: loose once any part of the list says so (then every item has paragraphs). */
  private loose = false;
  /** Lists: the frozen items' text, to render them again if the list turns loose. */
  private readonly items: Array<{ source: string; chunk: FrozenChunk }> = [];
  /** Bulleted lists: the groups of items that wait as text (see `makeItemsWait`), to render again if the list turns loose. */
  private readonly waitingGroups: Element[] = [];
  /** Bulleted lists: no group of items is made to wait before the anchor reaches this (the last try found none). */
  private waitRetryAt = 0;
  /** How far the children are behind the stream, frame after frame (whether the container catches up; bulleted lists: whether groups of items wait). */
  private readonly backlog = new Backlog();
  /** Tables: empty cells added to short rows so far. */
  private cellsAdded = 0;
  private columns = 0;

  private constructor(tail: string, tokens: readonly MdToken[], private readonly host: StreamHost) {
    this.open = tokens[0].type;
    this.shape = CONTAINERS[this.open];
    const close = closeOf(tokens, 0);
    let html: string;
    if (this.open === 'table_open') {
      const { starts } = lines(tail);
      this.prefix = tail.slice(0, starts[2]);
      this.anchor = starts[2];
      const tbody = tokens.findIndex((token) => token.type === 'tbody_open');
      this.columns = tokens.filter((token, i) => i < tbody && token.type === 'th_open').length;
      const env: RenderEnv = { references: host.references() };
      // Rendered apart so that the open tags end their line as they do before content.
      html = renderTokens(tokens.slice(0, tbody + 1), env) + renderTokens([tokens[closeOf(tokens, tbody)], tokens[close]], env);
    } else {
      this.prefix = '';
      this.anchor = 0;
      html = renderTokens([tokens[0]], {}) + renderTokens([tokens[close]], {});
    }
    const { element: block, placement } = placeBlock(host, html);
    this.placement = placement;
    const element = this.shape.parent === 'ul' || block?.localName === this.shape.parent ? block : block?.querySelector(this.shape.parent);
    this.element = element ?? document.createElement('div');
    this.placer = this.grouper(block);
  }

  /** Groups as a one-shot render does: after the first GROUP_SIZE children, GROUP_SIZE per group. */
  private grouper(block: Element | null): Grouper {
    const element = this.element;
    if (this.open !== 'table_open' || block === null) {
      return new Grouper({ root: element, addGroup: () => appendGroup(element, GROUP_SHELL, this.shape.parent) });
    }
    // The shell comes from a parse that may already have grouped the table: the grouper decides.
    setLongTable(block, false);
    return new Grouper({
      root: element,
      addGroup: () => appendGroup(block, TABLE_BODY_SHELL, 'table'),
      grouped: (grouped) => setLongTable(block, grouped),
    });
  }

  /** A stream for the container block that opens `tokens`, if it is one this class handles. */
  static create(tail: string, tokens: readonly MdToken[], host: StreamHost): ContainerStream | undefined {
    const open = tokens[0]?.type;
    if (open === undefined || !(open in CONTAINERS) || (open === 'table_open' && !tokens.some((token) => token.type === 'tbody_open'))) {
      return undefined;
    }
    return new ContainerStream(tail, tokens, host);
  }

  advance(tail: string, drain: boolean, complete: boolean, frameDeadline: number, fresh?: string): StreamResult {
    this.tailText.see(tail, fresh, this.anchor);
    const behind = tail.length - this.anchor;
    if (!drain) {
      this.backlog.frame(behind);
    }
    // A whole frame's budget from now: the most a container works in a frame. Once no more text
    // comes, it renders on past its budget until then (see finishesBy), so its end is final in
    // this frame, as an answer's is.
    const finishBy = performance.now() + FULL_BUDGET_MS;
    const deadline = streamDeadline(frameDeadline, this.backlog, behind, finishBy);
    if (!drain && this.open === 'bullet_list_open') {
      this.letItemsWait(tail, complete, deadline, finishBy);
    }
    for (let first = true; ; first = false) {
      const available = tail.length - this.anchor;
      const until = complete && performance.now() >= deadline ? finishBy : deadline;
      const span = this.whole ? this.span : this.pace.fits(until - performance.now(), this.span);
      const cut = drain || available <= span ? -1 : this.tailText.lastIndexOf('\n', this.anchor + span - 1);
      const end = cut < this.anchor ? tail.length : cut + 1;
      const before = this.anchor;
      const started = performance.now();
      // A part of the text that ends at a line end is parsed as if no more had come yet.
      const result = this.advanceWindow(tail, end, complete && end === tail.length, first);
      this.pace.learn(performance.now() - started, end - before);
      this.pending = result === 'open' && end < tail.length;
      if (!this.pending) {
        return result;
      }
      this.whole = this.anchor === before;
      this.span = this.whole ? 2 * span : CONTAINER_WINDOW;
      const spent = performance.now() >= deadline || !this.pace.roomFor(deadline - performance.now());
      if (!drain && spent && !(complete && finishesBy(finishBy))) {
        return 'open';
      }
    }
  }

  /**
   * Parses the block's unfinished part up to `upTo` (a tail offset), freezes the children that
   * are final, and renders the rest if `upTo` is the tail's end. `checkGrowth`: an unfinished part
   * longer than LIVE_LIMIT is parsed again only once it has grown by half.
   */
  private advanceWindow(tail: string, upTo: number, complete: boolean, checkGrowth: boolean): StreamResult {
    const pending = upTo - this.anchor;
    if (checkGrowth && !complete && pending > LIVE_LIMIT && pending < this.nextParseAt) {
      return 'open';
    }
    this.nextParseAt = pending > LIVE_LIMIT ? pending * 1.5 : 0;
    const window = this.prefix + this.tailText.slice(this.anchor, upTo);
    const env: RenderEnv = { references: { ...this.host.frozenReferences() } };
    const tokens = parseMarkdown(window, env, 'container');
    this.host.seeReferences(env.references ?? {});
    const first = tokens[0];
    if (first?.type !== this.open || first.map === null || first.map[0] !== 0) {
      return 'abandon';
    }
    const close = closeOf(tokens, 0);
    const tbody = tokens.findIndex((token) => token.type === 'tbody_open');
    const childrenEnd = this.open === 'table_open' ? (tbody < 0 ? close : closeOf(tokens, tbody)) : close;
    const { starts, complete: completeLines } = lines(window);
    const end = first.map[1];
    // The block ended before line `end` for good once that line is complete, or starts with a letter.
    const ended = complete || end < completeLines || (end < starts.length && LINE_START_SAFE.test(window.slice(starts[end], starts[end] + 8)));
    const from = this.open !== 'table_open' ? 1 : tbody < 0 ? childrenEnd : tbody + 1;
    const children = this.children(tokens, from, childrenEnd);
    const frozen = ended ? children.length : this.finished(tokens, children, window, starts, completeLines);
    if (this.open === 'table_open' && !this.countCells(tokens, children, frozen)) {
      return 'abandon';
    }
    if (this.isList()) {
      this.settleTightness(tokens, children, close, frozen, window, starts);
    }
    this.placer.remove(this.livePlacement);
    this.livePlacement = [];
    if (children.length > 0 && frozen > 0) {
      const from = starts[tokens[children[0]].map?.[0] ?? 0];
      const until = frozen < children.length ? starts[tokens[children[frozen]].map?.[0] ?? 0] : end < starts.length ? starts[end] : window.length;
      this.freeze(sanitizeChildren(renderTokens(tokens.slice(children[0], frozen < children.length ? children[frozen] : childrenEnd), env), this.shape.parent), window.slice(from, until));
      this.anchor += until - this.prefix.length;
    } else if (ended) {
      this.anchor += (end < starts.length ? starts[end] : window.length) - this.prefix.length;
    }
    if (ended) {
      return Math.min(this.anchor, tail.length);
    }
    // Only the tail's end shows the unfinished part (a window that ends earlier goes on next frame).
    if (frozen < children.length && upTo === tail.length) {
      const fragment = sanitizeChildren(renderTokens(tokens.slice(children[frozen], childrenEnd), env), this.shape.parent);
      this.livePlacement = this.placer.append(fragment);
    }
    return 'open';
  }

  /**
   * Makes groups of a bulleted list's items wait while the list is far behind the stream (see
   * `makeItemsWait`): one window a frame while the list streams; once no more text comes to it
   * (the answer ended, or held groups follow), window after window until `until` (a whole
   * frame's budget from the frame's start), so that a list that ended far behind is final in
   * this frame. Making items wait costs a parse of their blocks only, far less than rendering
   * the same text; one window a frame, a list that ended far behind took several frames to be
   * final (`npm run bench renderer-compare`, last byte to final DOM).
   */
  private letItemsWait(tail: string, complete: boolean, deadline: number, until: number): void {
    for (;;) {
      if (this.anchor < this.waitRetryAt || !this.backlog.far(tail.length - this.anchor, complete)) {
        return;
      }
      const before = this.anchor;
      this.makeItemsWait(tail, deadline, complete);
      if (!complete || this.anchor === before || performance.now() >= until) {
        return;
      }
    }
  }

  /**
   * A bulleted list far behind the stream (see lazy.ts): whole groups of its finished items wait
   * as text until they come near the view. Parses a window of the items' blocks only (no inline
   * text); the items before the next group starts are rendered as usual, then every whole group
   * of finished items (an item is finished once the next one starts) waits. Numbered lists are
   * never made to wait: their numbers count the items before. While the list streams, the window
   * fits the time left before `deadline`: parsing blocks only takes about a quarter of the time
   * that parsing and rendering them does, at the pace the container's windows have shown. Once
   * no more text comes (`complete`), it is the whole window (see `letItemsWait`).
   */
  private makeItemsWait(tail: string, deadline: number, complete: boolean): void {
    const behind = tail.length - this.anchor;
    const fits = complete ? LAZY_WINDOW : 4 * this.pace.fits(deadline - performance.now());
    const span = Math.min(LAZY_WINDOW, fits, behind - LAZY_KEEP);
    const windowEnd = this.tailText.lastIndexOf('\n', this.anchor + span - 1) + 1;
    const text = this.tailText.slice(this.anchor, Math.max(this.anchor, windowEnd));
    const tokens = parseBlocks(text);
    const first = tokens[0];
    const { starts } = lines(text);
    const close = first === undefined ? 0 : closeOf(tokens, 0);
    // Every item but the last one in the window is finished (the next one has started).
    const items = first?.type === this.open && first.map?.[0] === 0 ? this.children(tokens, 1, close) : [];
    const at = (item: number): number => starts[tokens[items[item]].map?.[0] ?? 0];
    const finished = items.length - 1;
    // The unfinished part shown at the list's end goes (the windows after this show it again).
    this.placer.remove(this.livePlacement);
    this.livePlacement = [];
    const eager = this.placer.untilGroup();
    if (finished < eager + GROUP_SIZE) {
      this.waitRetryAt = this.anchor + LAZY_WINDOW / 8;
      return;
    }
    // The window's looseness is the list's from now on (and the items rendered so far follow it).
    this.settleTightness(tokens, items, close, finished, text, starts);
    this.nextParseAt = 0;
    if (eager > 0) {
      const source = text.slice(0, at(eager));
      this.freeze(this.renderItems(source, this.host.references()), source);
    }
    let taken = eager;
    const render: GroupRender = (source, references) => this.renderItems(source, references);
    for (; taken + GROUP_SIZE <= finished; taken += GROUP_SIZE) {
      // A list's group is a div (GROUP_SHELL), as the answer's are.
      const element = this.placer.placeGroup() as HTMLElement;
      this.host.wait(element, ownCopy(text.slice(at(taken), at(taken + GROUP_SIZE))), render);
      this.waitingGroups.push(element);
    }
    const waited = text.slice(at(eager), at(taken));
    if (waited.includes(']:')) {
      this.host.learnReferences(waited);
    }
    this.anchor += at(taken);
  }

  private isList(): boolean {
    return this.open === 'bullet_list_open' || this.open === 'ordered_list_open';
  }

  /** Indices of the block's direct children's opening tokens. */
  private children(tokens: readonly MdToken[], from: number, to: number): number[] {
    const result: number[] = [];
    for (let i = from; i < to; i++) {
      const token = tokens[i];
      if (token.level !== this.shape.level || token.nesting === -1) {
        continue;
      }
      if (this.shape.child === '' ? token.map !== null : token.type === this.shape.child) {
        result.push(i);
      }
    }
    return result;
  }

  /** How many children (from the first) are final. */
  private finished(tokens: readonly MdToken[], children: readonly number[], window: string, starts: readonly number[], completeLines: number): number {
    if (this.open === 'table_open') {
      let rows = 0;
      while (rows < children.length && (tokens[children[rows]].map?.[0] ?? completeLines) < completeLines) {
        rows++;
      }
      return rows;
    }
    for (let i = children.length - 1; i > 0; i--) {
      const line = tokens[children[i]].map?.[0] ?? completeLines;
      if (line >= completeLines) {
        continue;
      }
      if (this.open === 'blockquote_open') {
        const previous = window.slice(starts[line - 1], starts[line] - 1);
        if (!/^ {0,3}>[ \t]*$/.test(previous)) {
          continue;
        }
      }
      return i;
    }
    return 0;
  }

  /** Tables: counts the empty cells markdown-it adds to short rows; false once the cap could matter. */
  private countCells(tokens: readonly MdToken[], children: readonly number[], frozen: number): boolean {
    for (let i = 0; i < frozen; i++) {
      let cells = 0;
      for (let j = children[i] + 1; j < tokens.length && tokens[j].type !== 'tr_close'; j++) {
        if (tokens[j].type === 'td_open' && tokens[j + 1]?.content !== '') {
          cells++;
        }
      }
      this.cellsAdded += Math.max(0, this.columns - cells);
    }
    return this.cellsAdded < TABLE_CELL_CAP / 2;
  }

  /**
   * Lists: a list is loose if any item is; markdown-it only sees the items parsed together, so
   * the looseness of frozen items is carried, and every parse is rendered with the whole list's.
   * If the list turns loose, the frozen items are rendered again (once).
   */
  private settleTightness(tokens: MdToken[], children: readonly number[], close: number, frozen: number, window: string, starts: readonly number[]): void {
    const level = tokens[0].level + 2;
    let loose = this.loose;
    for (let i = 1; i < close && !loose; i++) {
      loose = tokens[i].level === level && tokens[i].type === 'paragraph_open' && !tokens[i].hidden;
    }
    for (let i = 0; i < frozen && !loose; i++) {
      loose = this.itemIsLoose(tokens, children[i], i + 1 < children.length ? children[i + 1] : close, window, starts);
    }
    setTightness(tokens, level, close, !loose);
    if (loose && !this.loose) {
      this.loose = true;
      for (const item of this.items) {
        item.chunk.placement = replacePlacement(item.chunk.placement, this.renderItems(item.source, this.host.references()));
      }
      this.host.renderAgain(this.waitingGroups);
    }
  }

  /** markdown-it's rule: a blank line between two of an item's blocks, or at the end of an item that has a next one. */
  private itemIsLoose(tokens: readonly MdToken[], open: number, next: number, window: string, starts: readonly number[]): boolean {
    const blank = (line: number): boolean => BLANK.test(window.slice(starts[line], (starts[line + 1] ?? window.length + 1) - 1));
    const blocks: Array<[number, number]> = [];
    for (let i = open + 1; i < next; i++) {
      const map = tokens[i].map;
      if (tokens[i].level === tokens[open].level + 1 && tokens[i].nesting !== -1 && map !== null) {
        blocks.push([map[0], map[1]]);
      }
    }
    for (let i = 0; i + 1 < blocks.length; i++) {
      if (blocks[i + 1][0] > blocks[i][1] || blank(blocks[i][1] - 1)) {
        return true;
      }
    }
    const item = tokens[open].map;
    const nextStart = tokens[next]?.type === 'list_item_open' ? tokens[next].map?.[0] : undefined;
    return item !== null && nextStart !== undefined && nextStart - item[0] > 1 && blank(nextStart - 1);
  }

  private renderItems(source: string, references: References): DocumentFragment {
    const env: RenderEnv = { references };
    const tokens = parseMarkdown(source, env, 'container');
    const close = closeOf(tokens, 0);
    setTightness(tokens, 2, close, !this.loose);
    return sanitizeChildren(renderTokens(tokens.slice(1, close), env), this.shape.parent);
  }

  private freeze(children: DocumentFragment, source: string): void {
    const placement = this.placer.append(children);
    const text = ownCopy(this.prefix + source);
    const chunk: FrozenChunk = {
      placement,
      source: source.includes(']') ? text : undefined,
      render: (whole, references) => this.renderChildren(whole, references),
      owner: this,
    };
    this.host.register(chunk);
    if (this.isList()) {
      this.items.push({ source: text, chunk });
    }
    if (source.includes(']:')) {
      this.host.learnReferences(text);
    }
  }

  private renderChildren(source: string, references: References): DocumentFragment {
    if (this.isList()) {
      return this.renderItems(source, references);
    }
    const env: RenderEnv = { references };
    const tokens = parseMarkdown(source, env, 'container');
    const close = closeOf(tokens, 0);
    const from = this.open === 'table_open' ? tokens.findIndex((token) => token.type === 'tbody_open') + 1 : 1;
    const to = this.open === 'table_open' ? closeOf(tokens, from - 1) : close;
    return sanitizeChildren(renderTokens(tokens.slice(from, to), env), this.shape.parent);
  }
}
