/**
 * The page's one animation-frame loop. Every answer that has work asks for the next frame; in it,
 * the answers share one budget, so a Compare panel of four streaming answers costs a frame no
 * more than one answer does, and what is left waits for the next frame.
 */

/**
 * The time a frame gives rendering, in milliseconds: the rest is the browser's (style, layout,
 * paint) and the page's. It stays the same after a slow frame: what makes a frame slow is mostly
 * the browser's layout of what is already in the page, which rendering less does not lower, and a
 * page that renders less than arrives falls behind the stream (an answer far ahead of the page
 * folds its start instead, answer.ts).
 */
export const FRAME_BUDGET_MS = 10;
/** The least time one answer gets in a shared frame, so that each makes progress. */
const LEAST_SHARE_MS = 2;

/** Something that renders in frames. */
export interface FrameClient {
  /** Works until `deadline` (a `performance.now()` time); returns true while work is left for later frames. */
  renderFrame(deadline: number): boolean;
}

const due = new Set<FrameClient>();
let requested = false;

function runFrame(): void {
  requested = false;
  const clients = [...due];
  due.clear();
  const deadline = performance.now() + FRAME_BUDGET_MS;
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
  if (due.size > 0) request();
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
