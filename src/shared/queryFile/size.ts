/**
 * How large a query file may be. A saved query file is a few kilobytes; past this size a file is
 * listed with a problem and never read or parsed, so that a huge `*.aq.md` in a repository (even
 * an untrusted one) cannot hold the extension host or fill its memory.
 */
import type { ParsedQueryFile } from './parsedFile';

/**
 * The largest query file that is read: 256 KiB (bytes on disk; UTF-16 characters in an editor),
 * some thousands of queries. A file is parsed in one go on the extension host, so this also bounds
 * the longest time one file holds it.
 */
export const QUERY_FILE_MAX_BYTES = 256 * 1024;

/** A size as people read it: KiB under a MiB, else MiB with one decimal. */
function sizeText(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What a file over the limit shows, where its queries would be. */
export function queryFileTooLargeMessage(size: number): string {
  return `This query file is ${sizeText(size)}; query files over ${sizeText(QUERY_FILE_MAX_BYTES)} are not read, so its queries are not listed or run. Split it into smaller *.aq.md files.`;
}

/** A file over the limit as its parse would be: no queries, one error on its first line. */
export function tooLargeQueryFile(size: number): ParsedQueryFile {
  return {
    queries: [],
    problems: [{ span: { line: 0, start: 0, end: 0 }, message: queryFileTooLargeMessage(size), severity: 'error', code: 'tooLarge', queryIndex: -1 }],
    lineCount: 1,
  };
}
