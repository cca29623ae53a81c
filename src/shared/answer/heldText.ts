/**
 * Keeps the text of a streamed answer that arrives far faster than a webview can take it (megabytes
 * at full speed) at the extension host, in whole groups of top-level blocks, instead of passing it
 * all over. The webview places each held group as an empty group element of estimated height, the
 * very element a one-shot render would fill, and asks for its text only when it comes near the
 * view. Cuts are made where the webview's renderer would cut (see blocks.ts beside this file), so
 * both sides count the same blocks.
 */
import type MarkdownIt from 'markdown-it';
import {
  boundaryAt,
  countLines,
  createMarkdown,
  findBoundary,
  parseBlockLines,
  startsElement,
  startsGroup,
  TextNormalizer,
} from './blocks';
import { utf8Length } from '../format';
import type { HeldGroup, HeldReferences } from '../protocol';

/**
 * Text is held only when more than this is waiting to be passed over at once: low enough that a
 * flood is held from its first large batch on. Higher, the webview got the flood's first hundred
 * thousand characters as text before anything was held and rendered them in long frames while
 * the extension host cut the rest. `npm run bench workbench` (the 10 MiB answer's longest stall)
 * measures it.
 */
export const HOLD_AT = 32 * 1024;
/**
 * The newest text of a batch always goes over as text: what the view shows while it follows the
 * stream, about a screen (as much as the webview renders of text it makes wait, LAZY_KEEP). A
 * held group that the view reaches is asked for as any other.
 */
export const HOLD_KEEP = 4 * 1024;
/**
 * The most text one piece carries: longer text goes over in several pieces (messages), so that no
 * one message keeps the workbench's main thread busy for long (code-server relays each there).
 */
export const PIECE_MAX = 64 * 1024;
/** The text parsed (block structure only) at once; doubles while a block is longer. */
const PARSE_WINDOW = 64 * 1024;
/**
 * A block still open at the end of a parse (no cut found) is parsed again, from its start, only
 * once the text after what was parsed has grown by as much as was parsed, or by this much,
 * whichever is less: each parse reads the block from its start. Until then its text goes over as
 * text (or, with more to follow, waits), as after a parse that finds no cut; so about this much of
 * what follows the block's end, at most, goes over unheld. Parsed again for every batch, a long
 * code block arriving in many batches (a busy extension host's flushes) costs time that grows with
 * the square of its length. `npm run bench core` (the HeldText rows) measures it.
 */
const REPARSE_AFTER = 256 * 1024;

const md = createMarkdown();

/** What goes to the webview for a batch, in order: text, or groups kept here. */
export type HeldPiece = { readonly text: string } | { readonly groups: readonly HeldGroup[] };

/** `text` in pieces of at most PIECE_MAX code units, never cut inside a surrogate pair (none if it is empty). */
export function textPieces(text: string): HeldPiece[] {
  const pieces: HeldPiece[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + PIECE_MAX);
    const before = text.charCodeAt(end - 1);
    if (end < text.length && before >= 0xd800 && before <= 0xdbff) end--;
    pieces.push({ text: text.slice(at, end) });
    at = end;
  }
  return pieces;
}

/**
 * One answer's text as passed to a webview. `pass` takes the text that arrived since the last
 * batch and says what goes over; `text` gives a held group's text when the webview asks for it.
 */
export class HeldText {
  private readonly normalizer = new TextNormalizer();
  /** Normalized text from where both parsing and passing stand (the earlier of the two). */
  private unparsed = '';
  /** How much of `unparsed` has gone over (as text or held). */
  private passed = 0;
  /** Where the next parse starts in `unparsed` (a cut), and the top-level elements before it. */
  private parsedAt = 0;
  private elements = 0;
  /**
   * Where the group the last parse ended in started (an offset into `unparsed`, at a cut, not passed
   * yet), so that the next parse can hold it whole; undefined if that group cannot be held.
   */
  private openGroup: number | undefined;
  /** How much text from `parsedAt` the last parse found no cut in (a block open that long); 0: none. */
  private uncut = 0;
  /** The text of every group held, by id. */
  private readonly held: string[] = [];

  /** `sent`: the answer's text that has gone over already (e.g. in a whole state). */
  constructor(sent = '') {
    this.unparsed = this.normalizer.normalize(sent);
    this.passed = this.unparsed.length;
  }

  /**
   * Passes `text` (raw, as received) on: what goes over now, in order. `more`: more of the answer
   * follows at once (a backlog passed on in slices): every whole group of `text` may be held, and
   * its end waits for the rest instead of going over as the newest text.
   */
  pass(text: string, more = false): HeldPiece[] {
    const normalized = this.normalizer.normalize(text);
    const allPassed = this.passed === this.unparsed.length;
    this.unparsed += normalized;
    const waiting = this.unparsed.length - this.passed;
    if (!more && waiting <= HOLD_AT) {
      if (allPassed) {
        // The usual case: no slice of the whole text (that would copy it every time).
        this.passed = this.unparsed.length;
        return textPieces(normalized);
      }
      return this.passRest();
    }
    const pieces: HeldPiece[] = [];
    let groups: HeldGroup[] = [];
    for (const { start, end } of this.groupsBefore(more ? this.unparsed.length : this.unparsed.length - HOLD_KEEP)) {
      if (start > this.passed) {
        if (groups.length > 0) {
          pieces.push({ groups });
          groups = [];
        }
        pieces.push(...textPieces(this.unparsed.slice(this.passed, start)));
      }
      groups.push(this.hold(this.unparsed.slice(start, end)));
      this.passed = end;
    }
    if (groups.length > 0) {
      pieces.push({ groups });
    }
    if (!more) {
      pieces.push(...this.passRest());
    }
    this.trim();
    return pieces;
  }

  /** The answer ended: only the held groups' text is needed from now on. */
  end(): void {
    this.unparsed = '';
    this.parsedAt = 0;
    this.passed = 0;
    this.openGroup = undefined;
    this.uncut = 0;
  }

  /** The text of held group `id`, or undefined if there is none. */
  text(id: number): string | undefined {
    return this.held[id];
  }

  /** How many groups are held. */
  get heldCount(): number {
    return this.held.length;
  }

  private passRest(): HeldPiece[] {
    const rest = this.unparsed.slice(this.passed);
    this.passed = this.unparsed.length;
    // A group that began in what goes over as text can no longer be held.
    this.openGroup = undefined;
    return textPieces(rest);
  }

  private hold(source: string): HeldGroup {
    const env: MarkdownIt.Env = {};
    if (source.includes(']:')) {
      md.block.parse(source, md, env, []);
    }
    const id = this.held.push(source) - 1;
    const references: HeldReferences = env.references ?? {};
    return { id, length: source.length, lines: countLines(source), bytes: utf8Length(source), references };
  }

  /**
   * Parses `unparsed` up to `limit` and yields every whole group (GROUP_SIZE top-level elements,
   * starting where a group starts) that lies in the text not passed yet, starts and ends at a cut,
   * and ends by `limit`. Offsets are into `unparsed`.
   */
  private *groupsBefore(limit: number): Generator<{ start: number; end: number }> {
    const grown = limit - this.parsedAt - this.uncut;
    if (this.uncut > 0 && grown < Math.min(this.uncut, REPARSE_AFTER)) {
      // The block is still open, as far as a parse would tell for its price.
      return;
    }
    // A window no longer than the block found open would find no cut again.
    let window = Math.max(PARSE_WINDOW, 2 * this.uncut);
    /** A group starts at `at` (undefined: not at a cut): the whole group before it, if any, ends there. */
    const startGroup = (at: number | undefined): Array<{ start: number; end: number }> => {
      const open = this.openGroup;
      const ended = open !== undefined && open >= this.passed && at !== undefined && at > open ? [{ start: open, end: at }] : [];
      this.openGroup = at !== undefined && at >= this.passed ? at : undefined;
      return ended;
    };
    while (this.parsedAt < limit) {
      const end = Math.min(limit, this.parsedAt + window);
      const text = this.unparsed.slice(this.parsedAt, end);
      const tokens: MarkdownIt.Token[] = [];
      const starts = parseBlockLines(md, text, {}, tokens);
      const last = findBoundary(tokens, text, starts);
      if (last === undefined) {
        if (end === limit) {
          this.uncut = limit - this.parsedAt;
          return;
        }
        window *= 2;
        continue;
      }
      window = PARSE_WINDOW;
      this.uncut = 0;
      let element = this.elements;
      for (let i = 0; i < last.index; i++) {
        if (!startsElement(tokens[i])) {
          continue;
        }
        if (startsGroup(element)) {
          // The parse starts at a cut.
          const cut = element === this.elements ? 0 : boundaryAt(tokens, i, text, starts);
          yield* startGroup(cut === undefined ? undefined : this.parsedAt + cut);
        }
        element++;
      }
      if (startsGroup(element)) {
        yield* startGroup(this.parsedAt + last.offset);
      }
      // The next parse starts at the last cut, with the element there.
      this.elements = element;
      this.parsedAt += last.offset;
    }
  }

  /** Forgets the text before both the next parse and what is still to be passed. */
  private trim(): void {
    const drop = Math.min(this.parsedAt, this.passed);
    this.unparsed = this.unparsed.slice(drop);
    this.parsedAt -= drop;
    this.passed -= drop;
    if (this.openGroup !== undefined) this.openGroup -= drop;
  }
}
