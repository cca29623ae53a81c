/**
 * The page's side of its worker (worker/render.ts). A streamed code block hands its code to a
 * lane of the worker, and a long streamed paragraph its inline text, and each places the pieces
 * that come back; until the worker is ready, or if it cannot start or fails, code is highlighted
 * and text rendered on the page as before (render/fence.ts, render/streams.ts), with the same
 * result. `document.body.dataset.rendering` says which it is: `worker`, or `page`.
 *
 * The worker's script is fetched and started from a `blob:` URL: a webview's scripts come from
 * another origin than the page, and a worker must be of the page's origin. The CSP allows just
 * that: `connect-src` the webview's own resources and `worker-src blob:` (see
 * host/platform/webview/html.ts). A `blob:` URL can only be made by a script already running in
 * the page, so this opens nothing to an answer's text.
 */
import type { BlockPieces, FromWorker, RenderedPiece, TextPieces, ToWorker } from '../worker/protocol';
import type { References } from './parse';

/** Where a code lane's pieces go: the code block's lane on the page. */
export interface PieceSink {
  /** Pieces of the lane's code, in order, after those before. */
  receive(pieces: readonly RenderedPiece[]): void;
  /** The worker is gone: what it did not send is the page's to highlight. */
  lost(): void;
}

/** Where a text lane's pieces go: the paragraph's stream on the page. */
export interface TextSink {
  /** The lane's next chunks, and the text after them as it stands (or the last chunk). */
  receiveText(pieces: TextPieces): void;
  /** The worker is gone: what it did not send is the page's to render. */
  lost(): void;
}

/** Where a blocks lane's pieces go: the answer's renderer. */
export interface BlocksSink {
  receiveBlocks(pieces: BlockPieces): void;
  /** The worker is gone: the page renders all of the answer. */
  lost(): void;
}

/** A blocks lane of the worker, as an answer's renderer sees it. */
export interface RemoteBlocks {
  /** The answer's text (line breaks normalized), after what was added before; `at`: where the text the page has not rendered starts. */
  add(text: string, at: number): void;
  /** The page rendered the text before `to` itself: cut from there, knowing these definitions. */
  skip(to: number, references: References): void;
  /** The page renders the text from where the lane stands itself (it streams a long block), until `skip`. */
  pause(): void;
  drop(): void;
}

/** A text lane of the worker, as a paragraph's stream sees it. */
export interface RemoteText {
  /** Text known to continue the paragraph, after what was added before. */
  add(text: string): void;
  /** What came after, shown but not cut (replaces what was given before). */
  tentative(text: string): void;
  references(references: References, version: number): void;
  /** The paragraph's inline text is the first `length` code units of what was added. */
  close(length: number): void;
  drop(): void;
}

/** A lane of the worker, as a code block sees it. */
export interface RemoteLane {
  add(text: string): void;
  close(): void;
  /** No more pieces are wanted (the block is rendered at once, or gone). */
  drop(): void;
}

/**
 * How long the page leaves work to its worker, with nothing back, before it does the work itself:
 * the worker answers within a frame or two.
 */
export const WORKER_WAIT_MS = 50;

type State = 'none' | 'starting' | 'ready' | 'failed';

let state: State = 'none';
let worker: Worker | undefined;
/** The worker's script as a `blob:` URL, until the worker is up (or has failed). */
let script: string | undefined;
let nextLane = 1;
/** The worker's time for the pieces it sent, summed (see {@link renderWorkerMs}). */
let workerMs = 0;
/** Lanes the page still wants pieces for; held weakly, so a block that is gone lets its lane go. */
const sinks = new Map<number, WeakRef<PieceSink | TextSink | BlocksSink>>();
const collected = new FinalizationRegistry<number>((lane) => {
  if (sinks.delete(lane)) post({ type: 'drop', lane });
});

function post(message: ToWorker): void {
  worker?.postMessage(message);
}

function forgetScript(): void {
  if (script !== undefined) URL.revokeObjectURL(script);
  script = undefined;
}

function show(where: 'worker' | 'page'): void {
  document.body.dataset.rendering = where;
}

function fail(): void {
  if (state === 'failed') return;
  state = 'failed';
  worker?.terminate();
  worker = undefined;
  forgetScript();
  show('page');
  const lost = [...sinks.values()];
  sinks.clear();
  for (const sink of lost) sink.deref()?.lost();
}

/** Starts the page's render worker from the script at `url` (once; later calls do nothing). */
export function startWorker(url: string): void {
  if (state !== 'none') return;
  state = 'starting';
  show('page');
  void (async () => {
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      script = URL.createObjectURL(new Blob([await response.text()], { type: 'text/javascript' }));
      const started = new Worker(script, { name: 'Application Query rendering' });
      worker = started;
      started.onerror = (event) => {
        event.preventDefault();
        fail();
      };
      started.onmessageerror = () => fail();
      started.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.type === 'ready') {
          forgetScript();
          if (state === 'starting') {
            state = 'ready';
            show('worker');
          }
          return;
        }
        workerMs += message.ms;
        const sink = sinks.get(message.lane)?.deref();
        if (sink === undefined) {
          sinks.delete(message.lane);
          return;
        }
        if (message.type === 'pieces' && 'receive' in sink) {
          sink.receive(message.pieces);
        } else if (message.type === 'text' && 'receiveText' in sink) {
          if (message.last !== undefined) sinks.delete(message.lane);
          sink.receiveText(message);
        } else if (message.type === 'blocks' && 'receiveBlocks' in sink) {
          sink.receiveBlocks(message);
        }
      };
    } catch {
      // No worker (a CSP without worker-src, no fetch, an old webview): the page highlights.
      fail();
    }
  })();
}

/** How long the page's render worker has worked for it so far, in ms (its share of the work, beside the main thread's). */
export function renderWorkerMs(): number {
  return workerMs;
}

/** A new lane of the worker for `sink`, if the worker is up. */
function openLane(sink: PieceSink | TextSink | BlocksSink): number | undefined {
  if (state !== 'ready') return undefined;
  const lane = nextLane++;
  sinks.set(lane, new WeakRef(sink));
  collected.register(sink, lane);
  return lane;
}

function dropLane(lane: number): void {
  if (sinks.delete(lane)) post({ type: 'drop', lane });
}

/** A worker lane for a code block of `language`, if the worker is up (else the block highlights on the page). */
export function remoteLane(language: string, sink: PieceSink): RemoteLane | undefined {
  const lane = openLane(sink);
  if (lane === undefined) return undefined;
  post({ type: 'open', lane, language });
  return {
    add: (text) => post({ type: 'add', lane, text }),
    close: () => post({ type: 'close', lane }),
    drop: () => dropLane(lane),
  };
}

/** A worker lane for a long paragraph's inline text, if the worker is up (else the paragraph renders on the page). */
export function remoteText(references: References, version: number, sink: TextSink): RemoteText | undefined {
  const lane = openLane(sink);
  if (lane === undefined) return undefined;
  post({ type: 'openText', lane, references, version });
  return {
    add: (text) => post({ type: 'add', lane, text }),
    tentative: (text) => post({ type: 'tentative', lane, text }),
    references: (next, nextVersion) => post({ type: 'references', lane, references: next, version: nextVersion }),
    close: (length) => post({ type: 'close', lane, length }),
    drop: () => dropLane(lane),
  };
}

/** A worker lane for an answer's whole blocks, if the worker is up (else the answer renders on the page). */
export function remoteBlocks(sink: BlocksSink): RemoteBlocks | undefined {
  const lane = openLane(sink);
  if (lane === undefined) return undefined;
  post({ type: 'openBlocks', lane });
  return {
    add: (text, at) => post({ type: 'add', lane, text, at }),
    skip: (to, references) => post({ type: 'skip', lane, to, references }),
    pause: () => post({ type: 'pause', lane }),
    drop: () => dropLane(lane),
  };
}
