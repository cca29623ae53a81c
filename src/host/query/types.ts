import type { QueryOutcome } from '../../shared/outcome';

/** Where a query was started (the core's vocabulary, shared with the history). */
export type { Surface } from '../../client/history';

/** Static facts about a query, given to sinks when it starts. */
export interface QueryInfo {
  readonly queryId: string;
  readonly applicationId: string;
  readonly applicationLabel: string;
  readonly question: string;
  readonly contextLabel?: string;
  readonly startedAt: number;
}

/** A place an answer streams into (answer panel, output channel, chat transcript, progress). */
export interface QuerySink {
  start(info: QueryInfo): void;
  status(httpStatus: number): void;
  append(text: string): void;
  end(outcome: QueryOutcome): void;
}
