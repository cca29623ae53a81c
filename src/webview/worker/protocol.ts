/**
 * The messages between a webview page and its worker (worker/render.ts). The page opens a lane
 * per answer, streamed code block or long paragraph, gives it the text as it comes and closes it
 * when no more comes; the worker answers with the lane's pieces in order:
 *
 * - a blocks lane's pieces are runs of an answer's whole top-level blocks, cut where the page
 *   would cut them (shared/answer/blocks.ts, `findBoundary`) and rendered;
 * - a code lane's pieces are cut and highlighted by code.ts's rule (`codePiece`);
 * - a text lane's pieces are a paragraph's chunks, cut and rendered by parse.ts's `TextCutter`,
 *   and the text after them rendered as it stands, to show until more is cut.
 *
 * The page builds a piece's markup with markup.ts's builder (from the sanitizer's allow-lists) or
 * the sanitizer itself: what the worker says cannot become anything else in the page.
 */
import type { References } from '../render/parse';

/** A piece of a lane's text: the next `length` code units, and their markup. */
export interface RenderedPiece {
  readonly length: number;
  readonly html: string;
}

export type ToWorker =
  | { readonly type: 'open'; readonly lane: number; readonly language: string }
  /** A paragraph's inline text: cut with these definitions (`version`: the page's count of them, echoed back). */
  | { readonly type: 'openText'; readonly lane: number; readonly references: References; readonly version: number }
  /**
   * Text of the lane, after the text given before (a text lane's is known to continue the
   * paragraph). Blocks lanes: `at` is where the text the page has not rendered starts (the text
   * before it is no longer needed: the page never goes back).
   */
  | { readonly type: 'add'; readonly lane: number; readonly text: string; readonly at?: number }
  /** Text lanes: what came after the lane's text so far, not known yet to be the paragraph's; shown, never cut. */
  | { readonly type: 'tentative'; readonly lane: number; readonly text: string }
  /** Text lanes: the definitions changed. */
  | { readonly type: 'references'; readonly lane: number; readonly references: References; readonly version: number }
  /** No more text comes; a text lane's text is the first `length` code units of what it was given (its end trimmed). */
  | { readonly type: 'close'; readonly lane: number; readonly length?: number }
  /** An answer's text, to be cut into runs of whole top-level blocks and rendered (see BlockPieces). */
  | { readonly type: 'openBlocks'; readonly lane: number }
  /** Blocks lanes: the page rendered the text before `to` itself; cut from there, with the definitions made before it. */
  | { readonly type: 'skip'; readonly lane: number; readonly to: number; readonly references: References }
  /** Blocks lanes: the page renders the text from where the lane stands itself (a long block it streams) until the next `skip`. */
  | { readonly type: 'pause'; readonly lane: number }
  /** The page no longer wants the lane's pieces (its block is gone, or was rendered at once). */
  | { readonly type: 'drop'; readonly lane: number };

/** What a text lane has for the page. */
export interface TextPieces {
  /** The paragraph's chunks cut since the last message, in order (markup without the chunk's element). */
  readonly cuts: readonly RenderedPiece[];
  /** The lane's text after those chunks, rendered as it stands (its end trimmed), unless too long to render each time. */
  readonly live?: RenderedPiece;
  /** After `close`: the paragraph's last chunk (markup without the chunk's element); nothing follows. */
  readonly last?: string;
  /** The definitions' version the markup was rendered with. */
  readonly version: number;
}

/** A run of whole top-level blocks of an answer, rendered: its next `length` code units, and their markup. */
export interface BlockPiece extends RenderedPiece {
  /** The definitions the markup was rendered with (the JSON of markdown-it's `env.references`). */
  readonly references: string;
}

/** What a blocks lane has for the page. */
export interface BlockPieces {
  /** Where the first piece starts (an offset into the lane's text). */
  readonly from: number;
  readonly pieces: readonly BlockPiece[];
  /** The lane's text before this offset has been looked at: what no piece covers there is the open block at its end. */
  readonly seen: number;
}

export type FromWorker =
  /** `ms`: the worker's time for these pieces (cutting and highlighting), for the page's figures. */
  | { readonly type: 'pieces'; readonly lane: number; readonly pieces: readonly RenderedPiece[]; readonly ms: number }
  | ({ readonly type: 'text'; readonly lane: number; readonly ms: number } & TextPieces)
  | ({ readonly type: 'blocks'; readonly lane: number; readonly ms: number } & BlockPieces)
  /** The worker is up: it has loaded and answers (sent once, first). */
  | { readonly type: 'ready' };
