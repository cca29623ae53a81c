import { codeLanguage, codePiece, highlightEnd } from './code';
import { remoteLane, WORKER_WAIT_MS, type PieceSink, type RemoteLane } from './worker';
import { highlightedNodes } from './markdown';
import { fenceInfo, renderCodeShell, type MdToken } from './parse';
import type { RenderedPiece } from '../worker/protocol';
import { placeBlock, TailText, type BlockStream, type StreamHost, type StreamResult } from './streams';
import type { Placement } from './groups';

/** Code waiting for its piece to be decided (or highlighted) is shown in blocks of about this many code units. */
const WAITING_BLOCK = 8 * 1024;
/** Highlighting of a streamed code block gets this much of a frame. */
const HIGHLIGHT_BUDGET_MS = 8;
/**
 * The worker's pieces placed in one frame: at most about this much code (at least one piece). The
 * worker can run far ahead of the page; each highlighted span placed is laid out in the same frame.
 */
const PLACED_PER_FRAME = 8 * 1024;

/** A block of code lines (see `.aq-code-chunk`). */
function codeChunk(): HTMLElement {
  const chunk = document.createElement('span');
  chunk.className = 'aq-code-chunk';
  return chunk;
}

/**
 * A stretch of a code block cut into chunks by one rule (highlighted as a language, or plain). Code
 * comes in as it is final; until the piece it belongs to is decided (and highlighted, within a
 * budget per frame), it is shown as plain text in waiting blocks that start on a new line. A
 * waiting block is at most about WAITING_BLOCK long, so the browser lays waiting code out in
 * pieces too. A highlighted lane has the page's render worker cut and highlight its pieces
 * when the worker is up (see worker.ts), and only places them; else it highlights them itself.
 */
class CodeLane implements PieceSink {
  /** Code not in a chunk yet. */
  private backlog = '';
  /** The backlog's length when its next piece could not be decided (nothing to do until it grows). */
  private stalledAt = -1;
  /** Text nodes showing the backlog, in order, and the blocks they are in. */
  private plain: Text[] = [];
  private waiting: HTMLElement[] = [];
  /** The last chunk, while the pieces in it have not ended a line. */
  private chunk: HTMLElement | undefined;
  /** No more code comes to this lane: its last piece can be cut. */
  private closed = false;
  /** The lane's first chunk: later ones and the waiting blocks come after it. */
  private firstChunk: Node | undefined;
  /** The worker's lane that cuts and highlights this lane's code, while it does. */
  private remote: RemoteLane | undefined;
  /** Pieces of the backlog from the worker, in order, not placed yet. */
  private incoming: RenderedPiece[] = [];
  /**
   * The block has ended and the worker has sent nothing for WORKER_WAIT_MS since (or since it
   * ended): the page highlights the rest (see `settle`). A timer says so, and wakes the renderer:
   * no frame runs while the worker is on the code.
   */
  private silent = false;
  private silence: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly code: HTMLElement,
    readonly language: string,
    /** The node this lane's nodes go before. */
    private readonly before: () => Node,
    /** Asks for a frame: pieces came from the worker, or the page is to highlight the rest. */
    private readonly wake: () => void,
    /** Whether the page's render worker may take this lane's code. */
    offThread: boolean,
  ) {
    this.remote = language === '' || !offThread ? undefined : remoteLane(language, this);
  }

  /** Work is left that this frame or later ones can do (pieces the worker is still on are not). */
  get pending(): boolean {
    if (this.incoming.length > 0 || (this.silent && this.backlog !== '')) {
      // Pieces to place, or a block that ended and a worker that went quiet (see `settle`).
      return true;
    }
    return this.remote === undefined && this.backlog !== '' && (this.closed || this.backlog.length !== this.stalledAt);
  }

  /** Every piece of the lane's code is in its chunk. */
  get placed(): boolean {
    return this.backlog === '';
  }

  receive(pieces: readonly RenderedPiece[]): void {
    this.listen();
    const first = this.incoming.length === 0;
    this.incoming.push(...pieces);
    if (first) {
      this.wake();
    }
  }

  lost(): void {
    this.remote = undefined;
    clearTimeout(this.silence);
    this.wake();
  }

  /** The answer is gone: the worker does nothing more for this lane, and no timer wakes the renderer. */
  drop(): void {
    this.remote?.drop();
    this.remote = undefined;
    clearTimeout(this.silence);
  }

  /** Once the block has ended, starts (again) the wait for the worker's next pieces (see `silent`). */
  private listen(): void {
    clearTimeout(this.silence);
    this.silent = false;
    if (this.closed && this.remote !== undefined) {
      this.silence = setTimeout(() => {
        this.silent = true;
        this.wake();
      }, WORKER_WAIT_MS);
    }
  }

  /** The first node of this lane (its first chunk, or its first waiting block), if it has any. */
  get first(): Node | undefined {
    return this.firstChunk ?? this.waiting[0];
  }

  add(text: string): void {
    if (text === '') {
      return;
    }
    this.backlog += text;
    this.remote?.add(text);
    for (let from = 0; from < text.length; ) {
      const lineEnd = text.indexOf('\n', Math.min(from + WAITING_BLOCK, text.length - 1));
      const end = lineEnd < 0 ? text.length : lineEnd + 1;
      let block = this.waiting[this.waiting.length - 1];
      if (block === undefined || this.plain[this.plain.length - 1]?.data.endsWith('\n') !== false) {
        block = codeChunk();
        this.code.insertBefore(block, this.before());
        this.waiting.push(block);
      }
      const node = document.createTextNode(text.slice(from, end));
      block.append(node);
      this.plain.push(node);
      from = end;
    }
  }

  /** Whether more code can still come to this lane. */
  get open(): boolean {
    return !this.closed;
  }

  close(): void {
    if (!this.closed) {
      this.closed = true;
      this.remote?.close();
      this.listen();
    }
  }

  /**
   * Moves decided pieces of the backlog into chunks; highlighting stops at `deadline` (plain pieces
   * always move). The worker's pieces are placed as they came (at least one, until `deadline`); a
   * deadline of +∞ (the answer is wanted whole now) places them all and highlights the rest here.
   */
  settle(deadline: number): void {
    let start = this.placeIncoming(deadline);
    // The block has ended and the worker has sent nothing for a while: the rest of the answer waits for this code, so the page highlights it.
    const lagging = this.silent && this.incoming.length === 0;
    if (this.remote !== undefined && this.backlog.length > start && (deadline === Number.POSITIVE_INFINITY || lagging)) {
      this.remote.drop();
      this.remote = undefined;
      clearTimeout(this.silence);
    }
    if (this.remote !== undefined || this.incoming.length > 0) {
      this.backlog = this.backlog.slice(start);
      if (this.closed && this.backlog === '') {
        this.remote?.drop();
        clearTimeout(this.silence);
      }
      return;
    }
    if (start === 0 && !this.closed && this.backlog.length === this.stalledAt) {
      return;
    }
    let stalled = false;
    while (this.backlog.length > start) {
      if (this.language !== '' && performance.now() >= deadline) {
        break;
      }
      const piece = codePiece(this.backlog, start, this.language, this.closed);
      if (piece === undefined) {
        stalled = true;
        break;
      }
      // Only a line end ends a chunk: the backlog's end is not the code's.
      this.place(piece.end - start, this.language === '' ? undefined : piece.html, this.backlog.charCodeAt(piece.end - 1) === 10);
      start = piece.end;
    }
    this.backlog = this.backlog.slice(start);
    this.stalledAt = stalled ? this.backlog.length : -1;
  }

  /**
   * Places the worker's pieces that came: at least one, then until `deadline` or PLACED_PER_FRAME
   * (all of them if `deadline` is +∞); returns how much of the backlog they took.
   */
  private placeIncoming(deadline: number): number {
    const all = deadline === Number.POSITIVE_INFINITY;
    let start = 0;
    let taken = 0;
    while (taken < this.incoming.length && (taken === 0 || all || (performance.now() < deadline && start < PLACED_PER_FRAME))) {
      const piece = this.incoming[taken++];
      this.place(piece.length, piece.html, this.backlog.charCodeAt(start + piece.length - 1) === 10);
      start += piece.length;
    }
    this.incoming.splice(0, taken);
    return start;
  }

  /**
   * Moves the first `length` code units of waiting text into the last chunk: as highlighted markup
   * (`html`), or as they are. `endsLine`: the next piece starts a new chunk.
   */
  private place(length: number, html: string | undefined, endsLine: boolean): void {
    if (this.chunk === undefined) {
      this.chunk = codeChunk();
      this.code.insertBefore(this.chunk, this.waiting[0] ?? this.before());
      this.firstChunk ??= this.chunk;
    }
    let left = length;
    while (left > 0 && this.plain.length > 0) {
      const node = this.plain[0];
      if (node.length <= left) {
        this.plain.shift();
      } else {
        this.plain[0] = node.splitText(left);
      }
      left -= node.length;
      if (html === undefined) {
        this.chunk.append(node);
      } else {
        node.remove();
      }
    }
    if (html !== undefined) {
      this.chunk.append(highlightedNodes(html));
    }
    while (this.waiting.length > 0 && this.waiting[0].firstChild === null) {
      this.waiting.shift()?.remove();
    }
    if (endsLine) {
      this.chunk = undefined;
    }
  }
}

/**
 * A fenced code block. A line is final once the next one starts (unless it closes the fence), and
 * so is an unfinished line that can no longer become the closing fence. The code up to
 * {@link highlightEnd} goes to a highlighted lane, the rest to a plain one, which does not wait for
 * the highlighting: each is cut into chunks by a rule of its code alone, so the result equals a
 * one-shot render.
 */
export class FenceStream implements BlockStream {
  readonly placement: Placement;
  private readonly code: HTMLElement;
  private readonly closer: RegExp;
  private readonly mayClose: RegExp;
  private readonly indent: number;
  /** The highlighted lane (if the language is known), then the plain one. */
  private readonly highlighted: CodeLane | undefined;
  private readonly plain: CodeLane;
  /** How much code the highlighted lane has taken. */
  private codeLength = 0;
  /** Tail offset of the first line not yet finished with. */
  private lineStart: number;
  /** The tail's text from that line on (see TailText). */
  private readonly tailText: TailText;
  /** How much of that line (after indentation is stripped) is already code. */
  private lineDone = 0;
  /** The unfinished line that may still close the fence, shown as plain text for now. */
  private readonly live: Text;

  constructor(host: StreamHost, tail: string, token: MdToken) {
    const info = fenceInfo(token);
    const marker = token.markup.charAt(0) === '~' ? '~' : '`';
    this.closer = new RegExp(`^ {0,3}${marker}{${token.markup.length},}[ \\t]*$`);
    this.mayClose = new RegExp(`^ {0,3}${marker}*[ \\t]*$`);
    this.indent = /^ */.exec(tail)?.[0].length ?? 0;
    const language = codeLanguage(info).highlight;
    this.lineStart = tail.indexOf('\n') + 1;
    this.tailText = new TailText(this.lineStart);
    const { element, placement } = placeBlock(host, renderCodeShell(info));
    this.placement = placement;
    const code = element?.querySelector('pre > code');
    this.code = code instanceof HTMLElement ? code : document.createElement('code');
    this.live = document.createTextNode('');
    this.code.append(this.live);
    const wake = (): void => host.wake();
    this.plain = new CodeLane(this.code, '', () => this.live, wake, false);
    const plain = this.plain;
    this.highlighted = language === '' ? undefined : new CodeLane(this.code, language, () => plain.first ?? this.live, wake, host.offThread());
  }

  get pending(): boolean {
    return this.highlighted?.pending === true;
  }

  /** A stream can start once the opening line is complete. */
  static canStart(tail: string): boolean {
    return tail.includes('\n');
  }

  drop(): void {
    this.highlighted?.drop();
  }

  advance(tail: string, drain: boolean, complete: boolean, deadline = Number.POSITIVE_INFINITY, fresh?: string): StreamResult {
    const text = this.tailText;
    text.see(tail, fresh, this.lineStart);
    let added = '';
    for (let end = text.indexOf('\n', this.lineStart); end >= 0; end = text.indexOf('\n', this.lineStart)) {
      const line = text.slice(this.lineStart, end);
      if (this.lineDone === 0 && this.closer.test(line)) {
        this.addCode(added);
        // Until the highlighting is done, the stream stays at the closing line and comes back here.
        return this.finish(drain, deadline) ? end + 1 : 'open';
      }
      added += this.stripIndent(line).slice(this.lineDone) + '\n';
      this.lineStart = end + 1;
      this.lineDone = 0;
    }
    const rest = text.slice(this.lineStart, tail.length);
    const closes = this.lineDone === 0 && this.closer.test(rest);
    if (complete || this.lineDone > 0 || !this.mayClose.test(rest)) {
      if (!closes) {
        const code = this.stripIndent(rest);
        added += code.slice(this.lineDone);
        this.lineDone = code.length;
      }
      this.live.data = '';
    } else {
      // Shown as it is for now; a one-shot render of this much text could also close the fence here.
      this.live.data = closes ? '' : this.stripIndent(rest);
    }
    this.addCode(added);
    if (complete) {
      return this.finish(drain, deadline) ? tail.length : 'open';
    }
    this.plain.settle(Number.POSITIVE_INFINITY);
    this.highlighted?.settle(this.highlightBy(drain, deadline));
    return 'open';
  }

  /** Gives final code to its lane: the highlighted one up to {@link highlightEnd}, the plain one after. */
  private addCode(text: string): void {
    let rest = text;
    if (this.highlighted?.open === true) {
      const end = highlightEnd(rest, this.codeLength);
      const taken = end ?? rest.length;
      this.highlighted.add(rest.slice(0, taken));
      this.codeLength += taken;
      rest = rest.slice(taken);
      if (end !== undefined) {
        this.highlighted.close();
      }
    }
    this.plain.add(rest);
  }

  /** Strips the opening fence's indentation from a code line, as markdown-it does (tabs to columns). */
  private stripIndent(line: string): string {
    if (this.indent === 0) {
      return line;
    }
    let column = 0;
    let i = 0;
    for (; i < line.length && column < this.indent; i++) {
      const code = line.charCodeAt(i);
      if (code === 0x20) {
        column++;
      } else if (code === 0x09) {
        column += 4 - (column % 4);
      } else {
        break;
      }
    }
    return column > this.indent ? ' '.repeat(column - this.indent) + line.slice(i) : line.slice(i);
  }

  /**
   * Until when highlighting (or placing the worker's highlighted pieces) goes on in this frame:
   * HIGHLIGHT_BUDGET_MS, but not past the frame's `deadline` (the block's share of a frame that
   * several answers share, see FrameLoop in pacer.ts: taking its own budget whatever the share, a
   * Compare panel's code column took several times its share of the frame). The worker's
   * pieces are placed one a frame at least all the same. `drain`: all of it now.
   */
  private highlightBy(drain: boolean, deadline: number): number {
    return drain ? Number.POSITIVE_INFINITY : Math.min(deadline, performance.now() + HIGHLIGHT_BUDGET_MS);
  }

  /** The code has ended: cuts the last pieces; true once the highlighting is done too (`drain`: now). */
  private finish(drain: boolean, deadline: number): boolean {
    this.live.data = '';
    this.highlighted?.close();
    this.plain.close();
    this.plain.settle(Number.POSITIVE_INFINITY);
    this.highlighted?.settle(this.highlightBy(drain, deadline));
    if (this.highlighted?.placed === false) {
      return false;
    }
    this.live.remove();
    return true;
  }
}
