/**
 * The page's one animation-frame loop. Every answer that has work asks for the next frame; in it,
 * the answers share one budget, so a Compare panel of four streaming answers costs a frame no
 * more than one answer does, and what is left waits for the next frame.
 */

/** The time a frame gives rendering, in milliseconds: the rest is the browser's (style, layout, paint) and the page's. */
export const FRAME_BUDGET_MS = 10;
/** The least time one answer gets in a shared frame, so that each makes progress. */
const LEAST_SHARE_MS = 2;
/** A frame that came more than this long after the one before it was slow: a stall the views' goal counts (three frames at 60 Hz). */
const SLOW_FRAME_MS = 51;

/**
 * The budget of the next frame. What the answers add in a frame costs the browser style and
 * layout after it, which the budget does not see, and on a busy machine (the workbench shares the
 * page's main thread) that can be many times the rendering itself. So the budget halves after a
 * slow frame and grows back a millisecond a frame: the page then renders less at a time, and an
 * answer that comes faster than that folds its start (answer.ts) instead of freezing the view.
 */
let budget = FRAME_BUDGET_MS;
/** The timestamp of the last frame that asked for the next one, if this one follows it. */
let previous: number | undefined;

/** Something that renders in frames. */
export interface FrameClient {
  /** Works until `deadline` (a `performance.now()` time); returns true while work is left for later frames. */
  renderFrame(deadline: number): boolean;
}

const due = new Set<FrameClient>();
let requested = false;

function runFrame(timestamp: number): void {
  requested = false;
  if (previous !== undefined) budget = timestamp - previous > SLOW_FRAME_MS ? Math.max(LEAST_SHARE_MS, budget / 2) : Math.min(FRAME_BUDGET_MS, budget + 1);
  previous = undefined;
  const clients = [...due];
  due.clear();
  const deadline = performance.now() + budget;
  clients.forEach((client, index) => {
    const now = performance.now();
    // What is left of the budget, shared among those still to go (each gets at least its least share).
    const share = Math.max(LEAST_SHARE_MS, (deadline - now) / (clients.length - index));
    let more = false;
    try {
      more = client.renderFrame(now + share);
    } catch (error) {
      console.error('Application Query: rendering an answer failed', error);
    }
    if (more) due.add(client);
  });
  if (due.size > 0) {
    previous = timestamp;
    request();
  }
}

function request(): void {
  if (!requested) {
    requested = true;
    requestAnimationFrame(runFrame);
  }
}

/** Asks for `client` to render in the next frame. */
export function requestFrame(client: FrameClient): void {
  due.add(client);
  request();
}

/** `client` has nothing more to do (its answer is gone). */
export function cancelFrame(client: FrameClient): void {
  due.delete(client);
}
