/**
 * What the extension host sends one webview, in order: streamed text coalesced into at most one
 * `append` per frame and turn (the first after a quiet frame without delay), at most
 * MAX_IN_FLIGHT of it on the way, and text far behind a large backlog held here in whole groups
 * (see shared/answer/heldText.ts) and cut into them a slice at a time. No VS Code API here: the
 * bridge (bridge.ts) owns the webview and its messages.
 */
import { HeldText } from '../../../shared/answer/heldText';
import type { HostToWebview } from '../../../shared/protocol';

/** Roughly one animation frame: the most often text is posted to a webview. */
const FRAME_MS = 16;
/**
 * The most streamed text on its way to the webview (posted, not yet acknowledged). Text that
 * arrives meanwhile waits; if much of it piles up, whole groups of it far behind the newest text
 * stay here until the view needs them.
 */
const MAX_IN_FLIGHT = 512 * 1024;
/**
 * The most of a backlog cut into held groups in one task (code units); the rest is cut in tasks of
 * their own, one after the other, with whatever else the extension host has to do between them.
 * Cut at once, a large backlog holds the extension host's event loop long enough that no other
 * extension's work runs and no message is taken in meanwhile. This size keeps each hold short
 * while the number of tasks stays small: a smaller slice barely shortens the hold and doubles the
 * tasks. `npm run bench core` (the Outgoing row) measures the hold.
 */
export const CUT_SLICE = 256 * 1024;

/**
 * What is still to go over, in order: a turn's text (to pass on, or cut and hold), or a message.
 * Text stays in the pieces it came in until it is taken: a backlog is never copied whole, however
 * often more is added to it while it is cut.
 */
type Work = { readonly turnId: string; readonly queued: TextQueue } | { readonly message: HostToWebview };

export class Outgoing {
  /** Text appended since the last flush, by turn. */
  private readonly pendingText = new Map<string, TextQueue>();
  /** Flushed text and the messages posted after it, in order; slices of a backlog wait here. */
  private readonly work: Work[] = [];
  /** Each streamed turn's text as passed over (and the groups held of it). */
  private readonly passed = new Map<string, HeldText>();
  /** Text posted and not yet acknowledged by the webview. */
  private inFlight = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The task that cuts the next slice of the work, if one is due. */
  private slice: ReturnType<typeof setImmediate> | undefined;
  /** When streamed text was last flushed (for the one-message-per-frame pace). */
  private lastFlush = 0;
  /** The turn whose backlog the last slice was cut from (backlogs take turns, see `next`). */
  private lastCut: string | undefined;

  constructor(private readonly deliver: (message: HostToWebview) => void) {}

  /** Queues streamed text for a turn; it goes over with the next frame. */
  append(turnId: string, text: string): void {
    if (text.length === 0) return;
    let queue = this.pendingText.get(turnId);
    if (queue === undefined) {
      queue = new TextQueue();
      this.pendingText.set(turnId, queue);
    }
    queue.add(text);
    this.schedule();
  }

  /**
   * Sends a message after everything appended or posted before it. A state replaces all: it carries
   * each turn's whole text, so the text still to go is dropped and streaming goes on from it.
   */
  post(message: HostToWebview): void {
    if (message.type === 'state') {
      this.reset();
      this.send(message);
      return;
    }
    this.flush();
    if (this.work.length > 0) this.work.push({ message });
    else this.send(message);
  }

  /** The webview took in an `append` of `length` code units. */
  received(length: number): void {
    this.inFlight = Math.max(0, this.inFlight - length);
    if (this.pendingText.size > 0) this.schedule();
  }

  /** Sends the text of held groups the webview asked for (groups sent already: no order to keep). */
  sendHeld(turnId: string, ids: readonly number[]): void {
    const passed = this.passed.get(turnId);
    for (const id of ids) {
      const text = passed?.text(id);
      if (text !== undefined) this.send({ type: 'heldText', turnId, id, text });
    }
  }

  /** The webview went away, or a state replaces what it shows: nothing still to go is sent. */
  reset(): void {
    this.stopTimers();
    this.pendingText.clear();
    this.work.length = 0;
    this.passed.clear();
    this.inFlight = 0;
  }

  dispose(): void {
    this.stopTimers();
  }

  /** Flushes the pending text with the next frame, unless enough is on its way already (then an acknowledgement does). */
  private schedule(): void {
    if (this.timer !== undefined || this.inFlight >= MAX_IN_FLIGHT) return;
    // Leading edge: text after a quiet frame goes out at once (no added latency for the first
    // bytes); text within a frame of the last flush waits for the rest of that frame.
    const wait = this.lastFlush + FRAME_MS - Date.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Moves the pending text behind the work and goes on with it (unless a slice's task is due: it will). */
  private flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pendingText.size > 0) {
      this.lastFlush = Date.now();
      for (const [turnId, queued] of this.pendingText) {
        // Behind the same turn's text still to cut, it is more of that text.
        const last = this.work[this.work.length - 1];
        if (last !== undefined && 'turnId' in last && last.turnId === turnId) last.queued.addAll(queued);
        else this.work.push({ turnId, queued });
      }
      this.pendingText.clear();
    }
    if (this.slice === undefined) this.next();
  }

  /**
   * Sends the work, each turn's in order. Text longer than CUT_SLICE is passed on a slice at a time
   * (its groups held, the rest waiting), one slice a task, the turns with such a backlog taking
   * turns; the rest of a backlog's turn waits for a later task, and other turns' work goes past it:
   * a Compare column whose answer floods in does not hold up the others, nor do two floods wait one
   * for the other. A message about no turn (the applications, the attachments) waits for nothing.
   */
  private next(): void {
    const cut = this.backlogToCut();
    /** Turns whose earlier work waits for a later task: theirs waits behind it. */
    const waiting = new Set<string>();
    for (let i = 0; i < this.work.length; ) {
      const item = this.work[i];
      const turnId = workTurn(item);
      if (turnId !== undefined && waiting.has(turnId)) {
        i++;
        continue;
      }
      if ('message' in item) {
        this.work.splice(i, 1);
        this.send(item.message);
        continue;
      }
      const turn = this.heldText(item.turnId);
      if (item.queued.length <= CUT_SLICE) {
        this.work.splice(i, 1);
        this.sendPieces(item.turnId, turn.pass(item.queued.take(CUT_SLICE)));
        continue;
      }
      if (item.turnId === cut) {
        this.sendPieces(item.turnId, turn.pass(item.queued.take(CUT_SLICE), true));
      }
      waiting.add(item.turnId);
      i++;
    }
    if (this.work.length > 0) {
      this.slice = setImmediate(() => {
        this.slice = undefined;
        this.next();
      });
    }
  }

  /** The turn whose backlog this task cuts a slice of: the next after the one cut last, in the work's order. */
  private backlogToCut(): string | undefined {
    const backlogs: string[] = [];
    for (const item of this.work) {
      if (!('message' in item) && item.queued.length > CUT_SLICE && !backlogs.includes(item.turnId)) backlogs.push(item.turnId);
    }
    const cut = backlogs[(backlogs.indexOf(this.lastCut ?? '') + 1) % backlogs.length] as string | undefined;
    this.lastCut = cut ?? this.lastCut;
    return cut;
  }

  private heldText(turnId: string): HeldText {
    let turn = this.passed.get(turnId);
    if (turn === undefined) {
      turn = new HeldText();
      this.passed.set(turnId, turn);
    }
    return turn;
  }

  private sendPieces(turnId: string, pieces: ReturnType<HeldText['pass']>): void {
    for (const piece of pieces) {
      if ('text' in piece) {
        this.inFlight += piece.text.length;
        this.send({ type: 'append', turnId, text: piece.text });
      } else {
        this.send({ type: 'held', turnId, groups: piece.groups });
      }
    }
  }

  private send(message: HostToWebview): void {
    if (message.type === 'turnEnd') {
      // Only held groups are asked for after the end; an answer that held none needs nothing kept.
      const passed = this.passed.get(message.turnId);
      if (passed?.heldCount === 0) this.passed.delete(message.turnId);
      else passed?.end();
    } else if (message.type === 'state') {
      // The state carries each turn's whole text: streaming goes on from there.
      for (const turn of message.state.turns) {
        if (turn.status === 'streaming') this.passed.set(turn.id, new HeldText(turn.text));
      }
    }
    this.deliver(message);
  }

  private stopTimers(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.slice !== undefined) clearImmediate(this.slice);
    this.timer = undefined;
    this.slice = undefined;
  }
}

/** The turn a piece of work is about, if any (a new turn's start is about that turn). */
function workTurn(item: Work): string | undefined {
  if (!('message' in item)) return item.turnId;
  const message = item.message;
  if (message.type === 'turnStart') return message.turn.id;
  return 'turnId' in message ? message.turnId : undefined;
}

/** Text in the pieces it was added in, taken from the front. */
class TextQueue {
  private readonly pieces: string[] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }

  add(text: string): void {
    this.pieces.push(text);
    this.size += text.length;
  }

  /** Adds all of `other`'s text after this one's. */
  addAll(other: TextQueue): void {
    for (const piece of other.pieces) this.add(piece);
  }

  /**
   * Takes up to `most` code units from the front. The cut may fall inside a surrogate pair: a slice
   * taken while more follows is passed with `more` (HeldText keeps its end until the rest comes).
   */
  take(most: number): string {
    const taken: string[] = [];
    let count = 0;
    while (this.pieces.length > 0 && count < most) {
      const piece = this.pieces[0];
      if (count + piece.length <= most) {
        taken.push(piece);
        count += piece.length;
        this.pieces.shift();
        continue;
      }
      const end = most - count;
      taken.push(piece.slice(0, end));
      this.pieces[0] = piece.slice(end);
      count += end;
      break;
    }
    this.size -= count;
    return taken.join('');
  }
}
