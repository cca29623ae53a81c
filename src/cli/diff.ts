/** The most edits the diff looks for before it gives up (its memory grows with this squared). */
const MAX_EDITS = 1000;
/** Unchanged lines shown around each change. */
const CONTEXT = 3;

interface Op {
  readonly kind: ' ' | '-' | '+';
  readonly line: string;
}

/**
 * The shortest line edit script from `a` to `b` (Myers' O(ND) algorithm), or undefined when more
 * than {@link MAX_EDITS} edits would be needed (the caller says the texts differ too much).
 */
function editScript(a: readonly string[], b: readonly string[]): Op[] | undefined {
  const max = Math.min(a.length + b.length, MAX_EDITS);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v);
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= a.length && y >= b.length) return backtrack(trace, a, b, d, offset);
    }
    v = next;
  }
  return undefined;
}

/** Walks the recorded frontiers back from the end to the start: the edit script, in order. */
function backtrack(trace: readonly Int32Array[], a: readonly string[], b: readonly string[], edits: number, offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = edits; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const inserted = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const prevK = inserted ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    for (; x > prevX && y > prevY; x--, y--) ops.push({ kind: ' ', line: a[x - 1] });
    if (inserted) ops.push({ kind: '+', line: b[--y] });
    else ops.push({ kind: '-', line: a[--x] });
  }
  for (; x > 0 && y > 0; x--, y--) ops.push({ kind: ' ', line: a[x - 1] });
  return ops.reverse();
}

function lines(text: string): string[] {
  if (text === '') return [];
  const split = text.split(/\r\n|\r|\n/);
  if (split.length > 1 && split[split.length - 1] === '') split.pop();
  return split;
}

/**
 * A unified diff of two texts by lines (`--- before`, `+++ after`, hunks with three lines of
 * context), or a one-line note when they differ too much to show as a diff. Empty when equal.
 */
export function unifiedDiff(before: string, after: string, labels: { readonly before: string; readonly after: string }): string {
  if (before === after) return '';
  const a = lines(before);
  const b = lines(after);
  const ops = editScript(a, b);
  if (ops === undefined) return `--- ${labels.before}\n+++ ${labels.after}\n(the answers differ in more than ${MAX_EDITS} lines: compare the files)\n`;
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  while (i < ops.length) {
    if (ops[i].kind === ' ') {
      i++;
      aLine++;
      bLine++;
      continue;
    }
    // A hunk: from CONTEXT lines before this change to CONTEXT lines after the last change that is near it.
    const lead = Math.min(CONTEXT, countBack(ops, i));
    let end = i;
    for (let j = i; j < ops.length; j++) {
      if (ops[j].kind !== ' ') end = j;
      else if (j - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(ops.length, end + 1 + CONTEXT);
    const hunk = ops.slice(i - lead, stop);
    const aStart = aLine - lead;
    const bStart = bLine - lead;
    const aCount = hunk.filter((op) => op.kind !== '+').length;
    const bCount = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    for (let j = i; j < stop; j++) {
      if (ops[j].kind !== '+') aLine++;
      if (ops[j].kind !== '-') bLine++;
    }
    i = stop;
  }
  return `${out.join('\n')}\n`;
}

/** A hunk's range as diff -u writes it: `start,count`, the count left out when it is 1, the line before when it is 0. */
function range(start: number, count: number): string {
  if (count === 1) return `${start}`;
  return `${count === 0 ? start - 1 : start},${count}`;
}

/** How many unchanged lines come right before `index`. */
function countBack(ops: readonly Op[], index: number): number {
  let n = 0;
  while (index - n - 1 >= 0 && ops[index - n - 1].kind === ' ') n++;
  return n;
}
