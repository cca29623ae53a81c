// Where something is in a query file, as the editor counts: shared by the parser, the expectations and every check.
/** A place in the file: 0-based line, 0-based UTF-16 character columns [start, end). */
export interface Span {
  readonly line: number;
  readonly start: number;
  readonly end: number;
}
