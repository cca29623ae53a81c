/**
 * Reading a cases file (`- cases:`): CSV with a header row (csv-parse), JSON Lines, or a JSON array
 * of objects. Every value becomes text (numbers and booleans as written in JSON, null as empty,
 * objects and arrays as JSON). Bounded: at most {@link CASES_MAX_ROWS} rows are read, and a file
 * above {@link CASES_MAX_BYTES} is refused before it is parsed.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type { CaseRow, CasesTable } from '../../shared/queryFile';

/** The most cases one query file's query may have. */
export const CASES_MAX_ROWS = 10_000;
/** The largest cases file read. */
export const CASES_MAX_BYTES = 16 * 1024 * 1024;
/** How many problem rows are listed (the rest are counted). */
const PROBLEMS_LISTED = 20;

/** The format a cases file's name says it has. */
export function casesFormat(path: string): 'csv' | 'jsonl' | 'json' {
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return 'json';
}

/** Reads the text of a cases file of the given format into its columns and rows. Never throws. */
export function parseCases(text: string, format: 'csv' | 'jsonl' | 'json', maxRows = CASES_MAX_ROWS): CasesTable {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  switch (format) {
    case 'csv':
      return readCsv(body, maxRows);
    case 'jsonl':
      return readJsonLines(body, maxRows);
    case 'json':
      return readJsonArray(body, maxRows);
  }
}

function readCsv(text: string, maxRows: number): CasesTable {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // One record more than the header and the rows kept, to tell whether the file goes on.
    records = parseCsv(text, { info: true, relax_column_count: true, skip_empty_lines: true, to: maxRows + 2 }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (e) {
    return { columns: [], rows: [], problems: [{ line: lineOf(e), message: `The CSV does not parse: ${e instanceof Error ? e.message : String(e)}` }] };
  }
  if (records.length === 0) return { columns: [], rows: [], problems: [{ line: 0, message: 'The cases file is empty: a CSV cases file starts with a header row of column names.' }] };
  const columns = records[0].record.map((name) => name.trim());
  const problems: { line: number; message: string }[] = [];
  const duplicate = columns.find((name, i) => name === '' || columns.indexOf(name) !== i);
  if (duplicate !== undefined) {
    problems.push({ line: 1, message: duplicate === '' ? 'The header row has an empty column name.' : `The header row names the column "${duplicate}" twice.` });
    return { columns, rows: [], problems };
  }
  const rows: CaseRow[] = [];
  let truncatedAt: number | undefined;
  for (let i = 1; i < records.length; i++) {
    const { record, info } = records[i];
    if (rows.length + problems.length >= maxRows) {
      truncatedAt = maxRows;
      break;
    }
    if (record.length !== columns.length) {
      problems.push({ line: info.lines, message: `Line ${info.lines} has ${record.length} value${record.length === 1 ? '' : 's'}; the header has ${columns.length} columns.` });
      continue;
    }
    rows.push({ number: rows.length + 1, line: info.lines, values: new Map(columns.map((name, c) => [name, record[c]])) });
  }
  return finish(columns, rows, problems, truncatedAt);
}

function readJsonLines(text: string, maxRows: number): CasesTable {
  const rows: CaseRow[] = [];
  const problems: { line: number; message: string }[] = [];
  const columns: string[] = [];
  let truncatedAt: number | undefined;
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const content = text.slice(start, end).trim();
    start = end + 1;
    if (content === '') continue;
    if (rows.length + problems.length >= maxRows) {
      truncatedAt = maxRows;
      break;
    }
    const row = readObject(content, line, rows.length + 1, columns);
    if ('message' in row) problems.push(row);
    else rows.push(row);
  }
  if (rows.length === 0 && problems.length === 0) problems.push({ line: 0, message: 'The cases file is empty: write one JSON object per line.' });
  return finish(columns, rows, problems, truncatedAt);
}

function readJsonArray(text: string, maxRows: number): CasesTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { columns: [], rows: [], problems: [{ line: 0, message: `The cases file is not JSON: ${e instanceof Error ? e.message : String(e)}` }] };
  }
  if (!Array.isArray(value)) return { columns: [], rows: [], problems: [{ line: 0, message: 'A JSON cases file holds an array of objects, one per case.' }] };
  const rows: CaseRow[] = [];
  const problems: { line: number; message: string }[] = [];
  const columns: string[] = [];
  const items = value as unknown[];
  const count = Math.min(items.length, maxRows);
  for (let i = 0; i < count; i++) {
    const row = toRow(items[i], 0, rows.length + 1, columns);
    if (row === undefined) problems.push({ line: 0, message: `Item ${i + 1} of the array is not an object.` });
    else rows.push(row);
  }
  return finish(columns, rows, problems, items.length > maxRows ? maxRows : undefined);
}

/** One JSON Lines line as a row, or why not. */
function readObject(content: string, line: number, number: number, columns: string[]): CaseRow | { line: number; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (e) {
    return { line, message: `Line ${line} is not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  return toRow(value, line, number, columns) ?? { line, message: `Line ${line} is not a JSON object.` };
}

/** A JSON object as a row (its keys joining `columns` as first seen), or undefined for anything else. */
function toRow(value: unknown, line: number, number: number, columns: string[]): CaseRow | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const values = new Map<string, string>();
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!columns.includes(key) && columns.length < 1000) columns.push(key);
    values.set(key, cellText(v));
  }
  return { number, line, values };
}

/** A JSON value as a case's text: strings as they are, null as empty, objects and arrays as JSON. */
function cellText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

function finish(columns: readonly string[], rows: readonly CaseRow[], problems: { line: number; message: string }[], truncatedAt: number | undefined): CasesTable {
  const listed = problems.length > PROBLEMS_LISTED ? [...problems.slice(0, PROBLEMS_LISTED), { line: 0, message: `… and ${problems.length - PROBLEMS_LISTED} more rows that do not parse.` }] : problems;
  return { columns, rows, problems: listed, ...(truncatedAt === undefined ? {} : { truncatedAt }) };
}

/** The line csv-parse's error points at, when it says. */
function lineOf(error: unknown): number {
  const lines = (error as { lines?: unknown }).lines;
  return typeof lines === 'number' ? lines : 0;
}
