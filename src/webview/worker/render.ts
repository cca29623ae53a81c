/**
 * The worker of a webview page (a dedicated worker: no DOM, no page). It cuts an answer after
 * whole top-level blocks where the page would (shared/answer/blocks.ts) and renders each run,
 * runs highlight.js over streamed code blocks, cut into pieces by the same rule as on the page
 * (render/code.ts), and markdown-it over long streamed paragraphs, cut into chunks by the same
 * rule as on the page (render/parse.ts). It posts each lane's pieces back as they are done, so the
 * page's main thread only inserts them. Work is done in slices: messages that arrive meanwhile
 * (more text, a lane dropped) are taken between two slices.
 */
import { findBoundary, lineStarts, mayHoldCut } from '../../shared/answer/blocks';
import { codePiece } from '../render/code';
import { LIVE_LIMIT, parseBlocks, parseMarkdown, renderInlinePiece, renderTokens, TextCutter, type MdToken, type References, type RenderEnv } from '../render/parse';
import type { BlockPiece, FromWorker, RenderedPiece, ToWorker } from './protocol';

/** The worker's global scope, as far as this file uses it (the page's DOM typings describe a window). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker): void;
}

/** A slice of work lasts about this long before the messages waiting are taken. */
const SLICE_MS = 12;

interface CodeLane {
  readonly kind: 'code';
  readonly language: string;
  /** Code not cut into pieces yet. */
  backlog: string;
  closed: boolean;
  /** The backlog's length when its next piece could not be decided (nothing to do until it grows). */
  stalledAt: number;
}

interface TextLane {
  readonly kind: 'text';
  /** The paragraph's inline text so far (the cutter's offsets are into it). */
  text: string;
  readonly cutter: TextCutter;
  /** What came after `text`, shown but not cut. */
  tentative: string;
  references: References;
  version: number;
  closed: boolean;
  /** Something changed since the last message (text, tentative text, definitions, the end). */
  dirty: boolean;
}

interface BlocksLane {
  readonly kind: 'blocks';
  /**
   * The lane's text from `keptFrom` on: from where the page last said it stands, which can be
   * before `base` (pieces on their way) and is where the page may say to go on from.
   */
  kept: string;
  keptFrom: number;
  /** Where the next piece starts: what is not cut yet is `kept` from here on. */
  base: number;
  /** Definitions made by the text before `base`. */
  references: References;
  /** The page renders the text from `base` on itself, until it says where to go on. */
  paused: boolean;
  /** How much of the uncut text was looked at when no block ended in it (nothing to do until it grows past `waitFor`). */
  examined: number;
  waitFor: number;
  /** The text changed since the last message. */
  dirty: boolean;
}

type Lane = CodeLane | TextLane | BlocksLane;

/** A blocks lane parses this much at once, unless a longer open block needs more (then it doubles), as the page does. */
const BLOCKS_WINDOW = 8 * 1024;

const scope = self as unknown as WorkerScope;
const lanes = new Map<number, Lane>();
let scheduled = false;

scope.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case 'open':
      lanes.set(message.lane, { kind: 'code', language: message.language, backlog: '', closed: false, stalledAt: -1 });
      return;
    case 'openText':
      lanes.set(message.lane, { kind: 'text', text: '', cutter: new TextCutter(0), tentative: '', references: message.references, version: message.version, closed: false, dirty: false });
      return;
    case 'openBlocks':
      lanes.set(message.lane, { kind: 'blocks', kept: '', keptFrom: 0, base: 0, references: {}, paused: false, examined: 0, waitFor: 0, dirty: false });
      return;
    case 'drop':
      lanes.delete(message.lane);
      return;
  }
  const lane = lanes.get(message.lane);
  if (lane === undefined) return;
  if (lane.kind === 'code') {
    if (message.type === 'add') lane.backlog += message.text;
    else if (message.type === 'close') lane.closed = true;
  } else if (lane.kind === 'blocks') {
    takeBlocks(lane, message);
  } else {
    take(lane, message);
  }
  schedule();
};

function takeBlocks(lane: BlocksLane, message: Exclude<ToWorker, { type: 'open' | 'openText' | 'openBlocks' | 'drop' }>): void {
  switch (message.type) {
    case 'add': {
      lane.kept += message.text;
      // Text before where the page stands and before where cutting stands is not needed again.
      const drop = Math.min(message.at ?? lane.keptFrom, lane.base) - lane.keptFrom;
      if (drop > 0) {
        lane.kept = lane.kept.slice(drop);
        lane.keptFrom += drop;
      }
      break;
    }
    case 'skip':
      lane.base = Math.max(message.to, lane.keptFrom);
      lane.references = message.references;
      lane.paused = false;
      lane.examined = 0;
      lane.waitFor = 0;
      break;
    case 'pause':
      lane.paused = true;
      break;
  }
  lane.dirty = true;
}

function take(lane: TextLane, message: Exclude<ToWorker, { type: 'open' | 'openText' | 'openBlocks' | 'drop' }>): void {
  lane.dirty = true;
  switch (message.type) {
    case 'add':
      lane.text += message.text;
      return;
    case 'tentative':
      lane.tentative = message.text;
      return;
    case 'references':
      lane.references = message.references;
      lane.version = message.version;
      return;
    case 'close':
      lane.closed = true;
      lane.tentative = '';
      if (message.length !== undefined) lane.text = lane.text.slice(0, message.length);
      return;
    default:
      return;
  }
}

function schedule(): void {
  if (!scheduled) {
    scheduled = true;
    setTimeout(work, 0);
  }
}

/** Whether a lane has work that can be done now. */
function due(lane: Lane): boolean {
  if (lane.kind === 'text') return lane.dirty;
  if (lane.kind === 'blocks') return lane.dirty && !lane.paused && uncut(lane).length >= lane.waitFor;
  return lane.backlog !== '' && (lane.closed || lane.backlog.length !== lane.stalledAt);
}

/** One slice: pieces of every lane that has decided ones, until SLICE_MS is spent. */
function work(): void {
  scheduled = false;
  const end = performance.now() + SLICE_MS;
  for (const [id, lane] of lanes) {
    if (!due(lane)) continue;
    if (lane.kind === 'text') {
      textWork(id, lane);
    } else if (lane.kind === 'blocks') {
      blocksWork(id, lane, end);
    } else {
      codeWork(id, lane, end);
    }
    if (performance.now() >= end) break;
  }
  for (const lane of lanes.values()) {
    if (due(lane)) {
      schedule();
      return;
    }
  }
}

function codeWork(id: number, lane: CodeLane, end: number): void {
  const pieces: RenderedPiece[] = [];
  const began = performance.now();
  let start = 0;
  let stalled = false;
  while (start < lane.backlog.length && performance.now() < end) {
    const piece = codePiece(lane.backlog, start, lane.language, lane.closed);
    if (piece === undefined) {
      stalled = true;
      break;
    }
    pieces.push({ length: piece.end - start, html: piece.html });
    start = piece.end;
  }
  lane.backlog = lane.backlog.slice(start);
  lane.stalledAt = stalled ? lane.backlog.length : -1;
  if (pieces.length > 0) scope.postMessage({ type: 'pieces', lane: id, pieces, ms: performance.now() - began });
  if (lane.closed && lane.backlog === '') lanes.delete(id);
}

/**
 * A paragraph's chunks decided by its text so far, then what follows them rendered as it stands
 * (or, once the lane is closed, as the paragraph's last chunk). A paragraph's text comes at most
 * a frame's worth at a time, and a chunk is about 8 KiB: this does not need slicing.
 */
function textWork(id: number, lane: TextLane): void {
  const began = performance.now();
  lane.dirty = false;
  const cuts: RenderedPiece[] = [];
  let from = lane.cutter.start;
  for (let cut = lane.cutter.next(lane.text, lane.text.length, lane.references); cut !== undefined; cut = lane.cutter.next(lane.text, lane.text.length, lane.references)) {
    cuts.push({ length: cut.end - from, html: cut.html });
    from = cut.end;
  }
  const rest = lane.text.slice(from);
  if (lane.closed) {
    // The text was trimmed to the paragraph's end: the rest is its last chunk.
    const last = renderInlinePiece(rest, lane.references).html;
    scope.postMessage({ type: 'text', lane: id, cuts, last, version: lane.version, ms: performance.now() - began });
    lanes.delete(id);
    return;
  }
  const shown = (rest + lane.tentative).trimEnd();
  const live = shown.length > LIVE_LIMIT ? undefined : { length: shown.length, html: renderInlinePiece(shown, lane.references).html };
  scope.postMessage({ type: 'text', lane: id, cuts, live, version: lane.version, ms: performance.now() - began });
}

/**
 * Cuts the answer's text where the page would (the last place in a window where the text before
 * renders as in the whole answer, see shared/answer/blocks.ts) and renders each run of whole
 * blocks as the page would, with the definitions made before it and those seen in the window.
 * The open block at the end is the page's: it is looked at again once the text grows (by half,
 * once it is long), until the page says it streams it (`pause`).
 */
/** A blocks lane's text not cut yet. */
function uncut(lane: BlocksLane): string {
  return lane.kept.slice(lane.base - lane.keptFrom);
}

/**
 * Where the first blocks of `text` end, if a block ends in it, with the whole parse (inline text
 * too) that renders them. None can end without a blank line or a second fence line: such a window
 * is not parsed. Most first windows (`first`) do end one, and are parsed whole at once; a longer
 * window (an open block longer than the first: a list's first kilobytes, before the page streams
 * it) is parsed whole only if its blocks alone say one ends.
 */
function firstCut(text: string, first: boolean, references: References): { boundary: { index: number; offset: number }; tokens: MdToken[]; env: RenderEnv } | undefined {
  if (!mayHoldCut(text)) return undefined;
  const starts = lineStarts(text);
  if (!first && findBoundary(parseBlocks(text), text, starts) === undefined) return undefined;
  const env: RenderEnv = { references: { ...references } };
  const tokens = parseMarkdown(text, env, 'blocks');
  const boundary = findBoundary(tokens, text, starts);
  return boundary === undefined ? undefined : { boundary, tokens, env };
}

function blocksWork(id: number, lane: BlocksLane, end: number): void {
  const began = performance.now();
  const from = lane.base;
  const pieces: BlockPiece[] = [];
  let window = BLOCKS_WINDOW;
  let rest = uncut(lane);
  while (rest.length >= lane.waitFor && performance.now() < end) {
    const text = window < rest.length ? rest.slice(0, window) : rest;
    const cut = firstCut(text, window === BLOCKS_WINDOW, lane.references);
    if (cut === undefined && text.length < rest.length) {
      window *= 2;
      continue;
    }
    if (cut === undefined) {
      lane.examined = text.length;
      lane.waitFor = text.length > LIVE_LIMIT ? Math.ceil(text.length * 1.5) : text.length + 1;
      break;
    }
    const { boundary, tokens, env } = cut;
    const source = text.slice(0, boundary.offset);
    pieces.push({ length: boundary.offset, html: renderTokens(tokens.slice(0, boundary.index), env), references: JSON.stringify(env.references ?? {}) });
    if (source.includes(']:')) {
      // The definitions the cut text makes (the first definition wins, as in a whole parse).
      const learned: RenderEnv = { references: { ...lane.references } };
      parseBlocks(source, learned);
      lane.references = learned.references ?? {};
    }
    rest = rest.slice(boundary.offset);
    lane.base += boundary.offset;
    lane.examined = 0;
    lane.waitFor = 0;
    window = BLOCKS_WINDOW;
  }
  lane.dirty = rest.length >= lane.waitFor;
  scope.postMessage({ type: 'blocks', lane: id, from, pieces, seen: lane.base + lane.examined, ms: performance.now() - began });
}

scope.postMessage({ type: 'ready' });
