// What parsing a query file gives: its queries, each query's options and problems (and the keys an
// option line may set), for the parser and everything that reads its result.
import type { Expectation } from './expect';
import type { Span } from './span';

/** The keys an option line can set. */
export type OptionKey = 'application' | 'environment' | 'context' | 'expect' | 'cases' | 'runs' | 'passes';

/** The option keys, in the order messages list them. */
export const OPTION_KEYS: readonly OptionKey[] = ['application', 'environment', 'context', 'expect', 'cases', 'runs', 'passes'];

/** The most runs a query may ask for (`- runs:`). */
export const MAX_RUNS = 20;

/** One `- key: value` line. `valueSpan` covers the value text only (for completion / quick fixes). */
export interface OptionLine {
  readonly key: OptionKey;
  readonly value: string;
  readonly span: Span;
  readonly valueSpan: Span;
  /** The key as written (any case). */
  readonly keySpan: Span;
}

/** One comma-separated application name, or the environment. */
export interface NamedValue {
  readonly name: string;
  readonly span: Span;
}

/** One `context:` file: a workspace-relative path, optionally a line range. */
export interface ContextRef {
  /** As written, normalised to forward slashes, without #L… */
  readonly path: string;
  /** 1-based inclusive, as written. */
  readonly startLine?: number;
  /** 1-based inclusive, as written. */
  readonly endLine?: number;
  /** The value. */
  readonly span: Span;
}

/** One query of a query file: a top-level level-2 heading and its section. */
export interface QueryEntry {
  /** Heading text, trimmed (inline markdown kept as written; a setext heading's lines joined by a space). */
  readonly name: string;
  /** 0-based position in the file. */
  readonly index: number;
  /** 0-based. */
  readonly headingLine: number;
  /** Exclusive: the next top-level `##` heading's line, or the line count. */
  readonly endLine: number;
  /** The heading on its first line, from its first character to its last (`## Name`). */
  readonly headingSpan: Span;
  /** The name's text on the heading's first line. */
  readonly nameSpan: Span;
  readonly applications: readonly NamedValue[];
  readonly environment?: NamedValue;
  readonly context: readonly ContextRef[];
  /** Only those that parsed. */
  readonly expect: readonly Expectation[];
  /** Every option line with a known key, as written, in order. */
  readonly options: readonly OptionLine[];
  /** The section's text after the option list, without leading/trailing blank lines, exactly as written otherwise (fences included); line breaks are `\n`. */
  readonly question: string;
  /** First line of the question, if any. */
  readonly questionLine?: number;
  /** The problems that lie in this query's section (also in the file's `problems`). */
  readonly problems: readonly QueryFileProblem[];
  /** `- cases:`: the data file whose rows each make one case of the query. */
  readonly cases?: { readonly path: string; readonly span: Span };
  /** `- runs:`: how many times the query is sent (1 when absent). */
  readonly runs?: number;
  /** `- passes:`: how many of the runs must meet every expectation (all of them when absent). */
  readonly passes?: number;
}

/** What a problem of a query file is about (a diagnostic's code). */
export type ProblemCode =
  | 'tooLarge' | 'unknownKey' | 'badExpect' | 'badContext' | 'duplicateEnvironment' | 'emptyValue' | 'emptyQuestion' | 'duplicateName' | 'emptyApplication'
  | 'badCases' | 'badRuns' | 'placeholderWithoutCases';

/** Something in a query file that cannot run as written (error) or looks wrong (warning). */
export interface QueryFileProblem {
  readonly span: Span;
  readonly message: string;
  readonly severity: 'error' | 'warning';
  readonly code: ProblemCode;
  /** for unknownKey: the key it most likely meant */
  readonly suggestion?: string;
  /** The query it belongs to (its `index`); -1 for the whole file. */
  readonly queryIndex: number;
}

/** A parsed query file. */
export interface ParsedQueryFile {
  readonly queries: readonly QueryEntry[];
  readonly problems: readonly QueryFileProblem[];
  readonly lineCount: number;
}
