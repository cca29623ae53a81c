// Bounds on what outside text can cost (`npm run bench bounds`): a `matches` regex on a hostile
// answer, the query file parser on hostile files of 512 KiB and 1 MiB, and the cut of a long
// paragraph into runs (the answer renderer's) on answers that make it try hardest, and the line
// scan for where text that floods in can fold. Each shape runs at 1× and 2× its size; linear work
// takes about twice as long at 2×.
import { checkExpectations, parseExpectation, parseQueryFile, type Expectation } from '../src/shared/queryFile';
import { lastFoldCut } from '../src/webview/render/floodCuts';
import { runEnds } from '../src/webview/render/runCuts';
import type { BenchRow } from './core';

const KiB = 1024;
const MiB = 1024 * KiB;
/** 2× the input may take at most this many times as long (room for timer noise and GC on a shared machine). */
const GROWTH_GOAL = 2.2;

/** The least CPU time of a few runs of `work`, in ms (the least is the one other work disturbed least). */
function cpuMs(work: () => void, runs = 3): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = process.cpuUsage();
    work();
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/** Two rows for one shape: its time at 1× and at 2×, the second with the growth goal. */
function growthRows(name: string, sizes: readonly [string, string], times: readonly [number, number]): BenchRow[] {
  const ratio = times[1] / times[0];
  return [
    { name: `${name}, ${sizes[0]}`, value: `${times[0].toFixed(1)} ms CPU`, figure: times[0] },
    { name: `${name}, ${sizes[1]}`, value: `${times[1].toFixed(1)} ms CPU (${ratio.toFixed(2)}× the 1× time)`, goal: `≤ ${GROWTH_GOAL}×`, ok: ratio <= GROWTH_GOAL, figure: times[1] },
  ];
}

function expectation(value: string): Expectation {
  const parsed = parseExpectation(value, { line: 0, start: 0, end: value.length });
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

/** The regex on answers that almost match (word characters, then one that is not): backtracking would never end. */
function regexRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const [form, value] of [['matches', 'matches /^(\\w+\\s?)+$/'], ['not matches (finds the match\'s place)', 'not matches /^(\\w+\\s?)+!$/']] as const) {
    const expect = expectation(value);
    const times = ([4 * MiB, 8 * MiB] as const).map((size) => {
      const answer = `${'word '.repeat(size / 5)}!`;
      return cpuMs(() => {
        checkExpectations([expect], { status: 200, answer, totalMs: 1, kind: 'done' });
      });
    });
    rows.push(...growthRows(`expect: ${form} /^(\\w+\\s?)+$/ on a hostile answer`, ['4 MiB', '8 MiB'], [times[0], times[1]]));
  }
  return rows;
}

/** Query files of about `size` characters in shapes that make the parser work hardest per byte. */
const FILE_SHAPES: readonly (readonly [string, (size: number) => string])[] = [
  ['queries of five option lines each', (size) => {
    const parts: string[] = [];
    let length = 0;
    for (let i = 0; length < size; i++) {
      const query = `## Query ${i}\n- application: echo, other\n- expect: contains "x"\n- expect: matches /a+b/i\n- context: src/a.ts#L1-20\n\nWhat is ${i}?\n\n`;
      parts.push(query);
      length += query.length;
    }
    return parts.join('').slice(0, size);
  }],
  ['one query of unknown option keys (a problem and a suggestion each)', (size) => `## Q\n${'- aplication: x\n'.repeat(size / 16)}`],
  ['empty headings (a query each)', (size) => '## \n'.repeat(size / 4)],
  ['nested lists', (size) => `## Q\n${' - a\n  - b\n'.repeat(size / 12)}`],
  ['one option line of commas (an empty name each)', (size) => `## Q\n- application: ${','.repeat(size)}`],
];

function parseRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const [shape, make] of FILE_SHAPES) {
    const times = ([512 * KiB, MiB] as const).map((size) => {
      const text = make(size);
      return cpuMs(() => void parseQueryFile(text));
    });
    rows.push(...growthRows(`parseQueryFile: ${shape}`, ['512 KiB', '1 MiB'], [times[0], times[1]]));
  }
  return rows;
}

/** One paragraph of answer text each, in shapes that make the cut into runs work hardest per byte. */
const PARAGRAPH_SHAPES: readonly (readonly [string, (size: number) => string])[] = [
  ['sentences with emphasis and code spans', (size) => 'Some **bold** words and `code` in a sentence. '.repeat(size / 47)],
  // A `*` left as text in every sentence: every run is tried at each step (a parse of up to 16 KiB each time), then cut anyway.
  ['a `*` left as text in every sentence', (size) => 'Two * three is six. '.repeat(size / 20)],
  ['one word without a space', (size) => 'x'.repeat(size)],
];

/** Rows for each shape: `work` on the shape's text at 1 MiB and at 2 MiB. */
function shapeRows(what: string, shapes: readonly (readonly [string, (size: number) => string])[], work: (text: string) => unknown): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const [shape, make] of shapes) {
    const times = ([MiB, 2 * MiB] as const).map((size) => {
      const text = make(size);
      return cpuMs(() => void work(text));
    });
    rows.push(...growthRows(`${what}: ${shape}`, ['1 MiB', '2 MiB'], [times[0], times[1]]));
  }
  return rows;
}

/** Text that floods in, in shapes that make the scan for a fold cut look at most per byte. */
const FLOOD_SHAPES: readonly (readonly [string, (size: number) => string])[] = [
  // Every other line blank and every other one a cut: a check of each line, and a cut found at each.
  ['a cut every other line', (size) => 'Word\n\n'.repeat(size / 6)],
  // A fence opened and closed every few lines, blank lines inside it: every line is a fence check.
  ['fences with blank lines inside', (size) => '```\n\n# not a heading\n```\n\n'.repeat(size / 28)],
  // Long lines that open and close fences (an opener's info string is read whole, for a backtick).
  ['long lines opening and closing fences', (size) => ('```' + 'x'.repeat(4089) + '\n```\n\n').repeat(size / 4098)],
];

/** The rows of the section. */
export function runBoundsBench(): Promise<BenchRow[]> {
  return Promise.resolve([...regexRows(), ...parseRows(), ...shapeRows('a long paragraph cut into runs', PARAGRAPH_SHAPES, runEnds), ...shapeRows('where flooded text folds (a line scan)', FLOOD_SHAPES, lastFoldCut)]);
}
