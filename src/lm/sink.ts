import { TextBatcher } from '../core/batcher';
import type { QueryOutcome } from '../core/outcome';
import type { QueryInfo, QuerySink } from '../query/types';

/**
 * The least time between two writes into VS Code's Chat (a chat response stream or a model's
 * progress): at most 60 calls a second however fast the answer streams. A piece that arrives when
 * the last write is at least this long ago is written at once.
 */
export const CHAT_FLUSH_MS = 17;

/**
 * A query sink that hands the answer to VS Code's Chat in batches: `write` receives the text in
 * order, nothing dropped, at most once per {@link CHAT_FLUSH_MS}; whatever is pending is written
 * before `end` reports the outcome.
 */
export class ChatTextSink implements QuerySink {
  private readonly batcher: TextBatcher;
  private chars = 0;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** The HTTP status the answer came with, once headers arrived. */
  httpStatus: number | undefined;

  constructor(
    write: (text: string) => void,
    private readonly onEnd: (outcome: QueryOutcome) => void = () => undefined,
    private readonly intervalMs = CHAT_FLUSH_MS,
  ) {
    this.batcher = new TextBatcher((text) => {
      this.lastWriteAt = performance.now();
      write(text);
    }, intervalMs);
  }

  /** Characters of answer text received so far. */
  get textChars(): number {
    return this.chars;
  }

  /** How many writes the chat has received. */
  get writes(): number {
    return this.batcher.flushCount;
  }

  start(_info: QueryInfo): void {}

  status(httpStatus: number): void {
    this.httpStatus = httpStatus;
  }

  append(text: string): void {
    this.chars += text.length;
    this.batcher.push(text);
    // The batcher's first flush after a quiet spell waits for a timer (a millisecond or more, and
    // none at all while a backlog of buffered pieces is read); when the interval has passed
    // anyway, write now. The batcher still decides everything else.
    if (performance.now() - this.lastWriteAt >= this.intervalMs) this.batcher.flushNow();
  }

  end(outcome: QueryOutcome): void {
    this.batcher.dispose();
    this.onEnd(outcome);
  }
}
