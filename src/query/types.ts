/** The context sent with a question: the selection or a whole file. */
export interface QueryContext {
  readonly kind: 'selection' | 'file';
  /** What the user sees, e.g. `app.ts:10-24` or `app.ts`. */
  readonly label: string;
  readonly text: string;
  readonly fileName: string;
  readonly languageId: string;
  /** The whole file's text, for `${file}` (also when the context is a selection). */
  readonly fileText: string;
}

/** Everything needed to send one query. */
export interface QueryInput {
  readonly applicationId: string;
  readonly question: string;
  readonly context?: QueryContext;
  /** Prior turns as Markdown, for `${history}`. */
  readonly history?: string;
}

/** How a query ended. */
export type QueryEndKind = 'done' | 'stopped' | 'error' | 'interrupted';

/** What a sink learns when a query ends. */
export interface QueryOutcome {
  readonly kind: QueryEndKind;
  readonly httpStatus?: number;
  readonly bytes: number;
  readonly chars: number;
  readonly durationMs: number;
  /** Plain-language description for anything but `done`. */
  readonly message?: string;
  /** Whether trying again could help. */
  readonly retryable: boolean;
  /** A warning about a complete answer (e.g. a character cut at the end). */
  readonly warning?: string;
}

/** Static facts about a query, given to sinks when it starts. */
export interface QueryInfo {
  readonly queryId: string;
  readonly applicationId: string;
  readonly applicationLabel: string;
  readonly question: string;
  readonly contextLabel?: string;
  readonly startedAt: number;
}

/** A place an answer streams into (answer panel, output channel, chat transcript). */
export interface QuerySink {
  start(info: QueryInfo): void;
  status(httpStatus: number): void;
  append(text: string): void;
  end(outcome: QueryOutcome): void;
}
