/**
 * The messages between a webview page and its highlighting worker (worker/highlight.ts). The page
 * opens a lane per streamed code block, gives it the block's final code as it comes and closes it
 * when no more comes; the worker answers with the lane's pieces, each cut and highlighted by
 * code.ts's rule (`codePiece`), in order. The page places a piece's markup with
 * `highlightedNodes` (render/markup.ts's builder, from the sanitizer's allow-lists, or the
 * sanitizer itself): what the worker says cannot become anything else in the page.
 */

/** A highlighted piece of a lane's code: the next `length` code units, and their markup. */
export interface HighlightedPiece {
  readonly length: number;
  readonly html: string;
}

export type ToHighlighter =
  | { readonly type: 'open'; readonly lane: number; readonly language: string }
  | { readonly type: 'add'; readonly lane: number; readonly text: string }
  | { readonly type: 'close'; readonly lane: number }
  /** The page no longer wants the lane's pieces (its block is gone, or was rendered at once). */
  | { readonly type: 'drop'; readonly lane: number };

export type FromHighlighter =
  /** `ms`: the worker's time for these pieces (cutting and highlighting), for the page's figures. */
  | { readonly type: 'pieces'; readonly lane: number; readonly pieces: readonly HighlightedPiece[]; readonly ms: number }
  /** The worker is up: it has loaded and answers (sent once, first). */
  | { readonly type: 'ready' };
