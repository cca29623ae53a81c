/**
 * The highlighting worker of a webview page (a dedicated worker: no DOM, no page). It runs
 * highlight.js over streamed code blocks, cut into pieces by the same rule as on the page
 * (render/code.ts), and posts each lane's pieces back as they are done, so the page's main thread
 * only inserts them. Work is done in slices: messages that arrive meanwhile (more code, a lane
 * dropped) are taken between two slices.
 */
import { codePiece } from '../render/code';
import type { FromHighlighter, HighlightedPiece, ToHighlighter } from './protocol';

/** The worker's global scope, as far as this file uses it (the page's DOM typings describe a window). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ToHighlighter>) => void) | null;
  postMessage(message: FromHighlighter): void;
}

/** A slice of work lasts about this long before the messages waiting are taken. */
const SLICE_MS = 12;

interface Lane {
  readonly language: string;
  /** Code not cut into pieces yet. */
  backlog: string;
  closed: boolean;
  /** The backlog's length when its next piece could not be decided (nothing to do until it grows). */
  stalledAt: number;
}

const scope = self as unknown as WorkerScope;
const lanes = new Map<number, Lane>();
let scheduled = false;

scope.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case 'open':
      lanes.set(message.lane, { language: message.language, backlog: '', closed: false, stalledAt: -1 });
      return;
    case 'add': {
      const lane = lanes.get(message.lane);
      if (lane !== undefined) lane.backlog += message.text;
      break;
    }
    case 'close': {
      const lane = lanes.get(message.lane);
      if (lane !== undefined) lane.closed = true;
      break;
    }
    case 'drop':
      lanes.delete(message.lane);
      return;
  }
  schedule();
};

function schedule(): void {
  if (!scheduled) {
    scheduled = true;
    setTimeout(work, 0);
  }
}

/** One slice: pieces of every lane that has decided ones, until SLICE_MS is spent. */
function work(): void {
  scheduled = false;
  const end = performance.now() + SLICE_MS;
  for (const [id, lane] of lanes) {
    if (!lane.closed && lane.backlog.length === lane.stalledAt) continue;
    const pieces: HighlightedPiece[] = [];
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
    if (performance.now() >= end) break;
  }
  for (const lane of lanes.values()) {
    if (lane.backlog !== '' && (lane.closed || lane.backlog.length !== lane.stalledAt)) {
      schedule();
      return;
    }
  }
}

scope.postMessage({ type: 'ready' });
