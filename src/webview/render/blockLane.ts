/**
 * An answer's whole top-level blocks, cut and rendered in the page's worker (see worker.ts and
 * worker/render.ts): the renderer gives the lane the answer's text as it comes, and places the
 * runs of blocks that come back instead of parsing and rendering them itself. The open block at
 * the end stays the page's, as does any text the page had to render itself meanwhile (the
 * worker then goes on from where the page is).
 */
import type { BlockPiece, BlockPieces } from '../worker/protocol';
import type { References } from './parse';
import { remoteBlocks, WORKER_WAIT_MS, type BlocksSink, type RemoteBlocks } from './worker';

/** A run of whole blocks from the worker, and where it starts in the answer's text. */
export interface PlacedPiece extends BlockPiece {
  readonly from: number;
}

export class BlockLane implements BlocksSink {
  private remote: RemoteBlocks | undefined;
  /** The answer's text given to the worker so far (its length: where the page's text ends). */
  private sent = 0;
  /** Where the worker's next piece starts, as far as the page knows (where the page last took one or said to go on). */
  private at = 0;
  private paused = false;
  private readonly pieces: PlacedPiece[] = [];
  /** The worker has looked at the text before this offset. */
  private seen = 0;
  /** Since when the page has left text to the worker (a `performance.now()` time). */
  private waitingSince: number | undefined;
  /**
   * The page waited for the worker too long: it renders the text itself, and the worker leaves
   * it alone (on a busy machine both cutting the same text would only take time from each other),
   * until the page has caught up with the text. Then the worker goes on from there.
   */
  private behind = false;

  constructor(private readonly wake: () => void) {
    this.remote = remoteBlocks(this);
  }

  /** Whether the worker takes part (it is up, and the lane was not dropped). */
  get active(): boolean {
    return this.remote !== undefined;
  }

  /** Where the text the page has not rendered starts, given how long that text (the tail) is. */
  offset(tail: number): number {
    return this.sent - tail;
  }

  /** More of the answer's text; `tail`: the length of the text the page has not rendered, before it. */
  add(text: string, tail: number): void {
    if (this.remote !== undefined && text !== '') {
      this.remote.add(text, this.offset(tail));
      this.sent += text.length;
    }
  }

  receiveBlocks(message: BlockPieces): void {
    if (this.remote === undefined) return;
    let from = message.from;
    for (const piece of message.pieces) {
      this.pieces.push({ ...piece, from });
      from += piece.length;
    }
    this.seen = Math.max(this.seen, message.seen, from);
    this.wake();
  }

  lost(): void {
    this.remote = undefined;
    this.pieces.length = 0;
    this.wake();
  }

  drop(): void {
    this.remote?.drop();
    this.remote = undefined;
    this.pieces.length = 0;
  }

  /** The worker's next piece, if it starts at `offset` and ends within `end`; pieces of text the page has rendered go. */
  take(offset: number, end: number): PlacedPiece | undefined {
    while (this.pieces.length > 0 && this.pieces[0].from < offset) this.pieces.shift();
    const piece = this.pieces[0];
    if (piece === undefined || piece.from !== offset || piece.from + piece.length > end) return undefined;
    this.pieces.shift();
    this.at = piece.from + piece.length;
    this.waitingSince = undefined;
    return piece;
  }

  /** Whether the page leaves the text from `offset` to the worker for now (it is on it, and has not kept the page waiting long). */
  waits(offset: number): boolean {
    if (this.remote === undefined || this.paused || this.behind || this.at !== offset || this.seen >= this.sent) {
      this.waitingSince = undefined;
      return false;
    }
    const now = performance.now();
    this.waitingSince ??= now;
    if (now - this.waitingSince < WORKER_WAIT_MS) {
      return true;
    }
    this.behind = true;
    this.pause();
    return false;
  }

  /** The page streams the block at the lane's place itself: the worker leaves the text alone until `follow`. */
  pause(): void {
    if (this.remote !== undefined && !this.paused) {
      this.remote.pause();
      this.paused = true;
    }
  }

  /**
   * The page has rendered the text before `offset` (`references`: the definitions it made), and
   * (`caughtUp`) all the text it has for now: the worker goes on from there.
   */
  follow(offset: number, references: References, caughtUp: boolean): void {
    if (this.remote === undefined || (offset === this.at && !this.paused) || (this.behind && !caughtUp)) return;
    this.remote.skip(offset, references);
    this.at = offset;
    this.paused = false;
    this.behind = false;
    this.waitingSince = undefined;
  }
}
