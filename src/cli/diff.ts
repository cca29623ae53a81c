import { structuredPatch } from 'diff';

/** The most line edits the diff looks for before it gives up: it bounds the work on two answers that share little. */
const MAX_EDITS = 1000;
/** Unchanged lines shown around each change. */
const CONTEXT = 3;

/**
 * A unified diff of two texts by lines (`--- before`, `+++ after`, hunks with three lines of
 * context, ranges written as `diff -u` writes them), or a one-line note when they differ too much
 * to show as a diff. Empty when equal.
 */
export function unifiedDiff(before: string, after: string, labels: { readonly before: string; readonly after: string }): string {
  if (before === after) return '';
  // Answers seldom end in a line break; when neither does, that is no difference worth a line.
  const bothOpen = !before.endsWith('\n') && !after.endsWith('\n');
  const [a, b] = bothOpen ? [`${before}\n`, `${after}\n`] : [before, after];
  const patch = structuredPatch(labels.before, labels.after, a, b, '', '', { context: CONTEXT, maxEditLength: MAX_EDITS });
  if (patch === undefined) return `--- ${labels.before}\n+++ ${labels.after}\n(the answers differ in more than ${MAX_EDITS} lines: compare the files)\n`;
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  for (const hunk of patch.hunks) {
    out.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`, ...hunk.lines);
  }
  return `${out.join('\n')}\n`;
}

/** A hunk's range as `diff -u` writes it: `start,count`, the count left out when it is 1, the line before when it is 0. */
function range(start: number, count: number): string {
  if (count === 1) return `${start}`;
  // jsdiff gives an empty side's start as the line after; diff -u names the line before it.
  return `${count === 0 ? start - 1 : start},${count}`;
}
