// Where the editor's cursor is in a parsed query file: the query and option line under it.
import type { OptionLine, ParsedQueryFile, QueryEntry } from './parsedFile';

/**
 * The option line (if any) at a position, with the query it belongs to (for completion/hover): the
 * option whose line it is, from its list marker on (past the end of the text too); else just the
 * query whose section holds the line; undefined in the notes before the first query.
 */
export function optionAt(file: ParsedQueryFile, line: number, character: number): { query: QueryEntry; option?: OptionLine } | undefined {
  const query = file.queries.find((q) => line >= q.headingLine && line < q.endLine);
  if (query === undefined) return undefined;
  const option = query.options.find((o) => o.span.line === line && character >= o.span.start);
  return option === undefined ? { query } : { query, option };
}
