/**
 * The cases of a query with `- cases:`: one row of the data file fills the query's `{{column}}`s
 * (question, `context:` paths, `expect:` values), which gives the query that case sends and checks.
 */
import type { Expectation } from './expect';
import { parseContextValue } from './contextPath';
import { readExpectValue } from './parse';
import type { ContextRef, QueryEntry } from './parsedFile';
import type { Span } from './span';
import { fillPlaceholders, placeholders } from './placeholders';

/** One row of a cases file. */
export interface CaseRow {
  /** 1-based among the file's cases. */
  readonly number: number;
  /** 1-based line of the file where the row starts (for messages). */
  readonly line: number;
  /** Column name to value, in the file's column order. */
  readonly values: ReadonlyMap<string, string>;
}

/** A cases file read: its columns, its rows, and the rows that could not be read. */
export interface CasesTable {
  readonly columns: readonly string[];
  readonly rows: readonly CaseRow[];
  /** Rows that did not parse, or the whole file's problem (then `line` is 0 or where it stopped). */
  readonly problems: readonly { readonly line: number; readonly message: string }[];
  /** Set when the file had more rows than are read. */
  readonly truncatedAt?: number;
}

/** A case's name in the Testing view and reports: its number and its first values (`3: refund, en`). */
export function caseLabel(row: CaseRow): string {
  const values = [...row.values.values()].slice(0, 2).map((v) => clip(v.replace(/\s+/g, ' ').trim(), 40));
  return values.length === 0 ? `${row.number}` : `${row.number}: ${values.join(', ')}`;
}

/** A `{{column}}` of a query that its cases file lacks. */
export interface MissingColumn {
  readonly name: string;
  readonly span: Span;
}

/** Every `{{column}}` of a query's question and option lines that is not one of `columns` (for diagnostics). */
export function missingColumns(query: QueryEntry, questionLines: readonly string[], columns: readonly string[]): MissingColumn[] {
  const known = new Set(columns);
  const out: MissingColumn[] = [];
  for (const option of query.options) {
    if (option.key !== 'context' && option.key !== 'expect') continue;
    for (const p of placeholders(option.value)) {
      if (!known.has(p.name)) out.push({ name: p.name, span: { line: option.valueSpan.line, start: option.valueSpan.start + p.start, end: option.valueSpan.start + p.end } });
    }
  }
  if (query.questionLine !== undefined) {
    questionLines.forEach((text, i) => {
      for (const p of placeholders(text)) {
        if (!known.has(p.name)) out.push({ name: p.name, span: { line: (query.questionLine ?? 0) + i, start: p.start, end: p.end } });
      }
    });
  }
  return out;
}

/**
 * The query one case sends: the row's values in the question, the `context:` paths and the
 * `expect:` values (each read again, under the same rules as a written one). An error names the
 * line that cannot be read with this row (a missing column, a path out of the folder).
 */
export function caseQuery(query: QueryEntry, row: CaseRow): QueryEntry | { readonly error: string; readonly line: number } {
  const question = fillPlaceholders(query.question, row.values);
  if ('missing' in question) return { error: `Case ${row.number}: the cases file has no column "${question.missing}".`, line: query.questionLine ?? query.headingLine };
  const context: ContextRef[] = [];
  const expect: Expectation[] = [];
  for (const option of query.options) {
    if (option.key !== 'context' && option.key !== 'expect') continue;
    const filled = fillPlaceholders(option.value, row.values);
    if ('missing' in filled) return { error: `Case ${row.number}: the cases file has no column "${filled.missing}".`, line: option.span.line };
    if (option.key === 'context') {
      const ref = parseContextValue(filled.text, option.valueSpan);
      if ('error' in ref) return { error: `Case ${row.number}: ${ref.error}`, line: option.span.line };
      context.push(ref);
    } else {
      const expectation = readExpectValue(filled.text, option.valueSpan);
      if ('error' in expectation) return { error: `Case ${row.number}: ${expectation.error}`, line: option.span.line };
      expect.push(expectation);
    }
  }
  return { ...query, question: question.text, context, expect };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
