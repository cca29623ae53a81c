import { TextBatcher } from '../../shared/batcher';
import type { QueryOutcome } from '../../shared/outcome';
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

  constructor(
    write: (text: string) => void,
    private readonly onEnd: (outcome: QueryOutcome) => void = () => undefined,
    intervalMs = CHAT_FLUSH_MS,
  ) {
    this.batcher = new TextBatcher(write, intervalMs, true);
  }

  start(_info: QueryInfo): void {}

  status(_httpStatus: number): void {}

  append(text: string): void {
    this.batcher.push(text);
  }

  end(outcome: QueryOutcome): void {
    this.batcher.dispose();
    this.onEnd(outcome);
  }
}
