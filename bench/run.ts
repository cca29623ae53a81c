// Runs the benchmark sections and prints one table per section. Add a section by appending to
// `sections`. `node out/bench/run.js [name…]` runs only the named sections.
import { runBoundsBench } from './bounds';
import { runCancelBench } from './cancel';
import { runCliBench } from './cli';
import { runCompareBench } from './compare';
import { runCoreBench, type BenchRow } from './core';
import { runExtHostBench } from './exthost';
import { runLmBench } from './lm';
import { runQueryFilesBench } from './queryFiles';
import { runMaskBench } from './secretMask';
import { runCompareRendererSection, runShapesSection, runRendererBench } from './renderer';
import { runWorkbenchBench } from './workbench';

/** A named group of measurements. */
export interface BenchSection {
  readonly name: string;
  readonly run: () => Promise<BenchRow[]>;
  /** Runs only when named: its rows are part of another section too. */
  readonly named?: boolean;
}

const sections: BenchSection[] = [
  { name: 'core', run: runCoreBench },
  { name: 'cancel', run: runCancelBench },
  { name: 'mask', run: runMaskBench },
  { name: 'renderer', run: runRendererBench },
  { name: 'renderer-shapes', run: runShapesSection, named: true },
  { name: 'renderer-compare', run: runCompareRendererSection, named: true },
  { name: 'compare', run: runCompareBench },
  { name: 'exthost', run: runExtHostBench },
  { name: 'lm', run: runLmBench },
  { name: 'workbench', run: runWorkbenchBench },
  { name: 'queryfiles', run: runQueryFilesBench },
  { name: 'bounds', run: runBoundsBench },
  { name: 'cli', run: runCliBench },
];

function printTable(title: string, rows: readonly BenchRow[]): void {
  const cells = rows.map((row) => [row.name, row.value, row.goal ?? '', row.ok === undefined ? '' : row.ok ? 'ok' : 'MISSED']);
  const header = ['measure', 'value', 'goal', ''];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column].length)));
  const line = (cell: string[]): string => cell.map((text, column) => text.padEnd(widths[column])).join('  ').trimEnd();
  console.log(`\n## ${title}\n`);
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const cell of cells) {
    console.log(line(cell));
  }
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  let missed = 0;
  for (const section of sections) {
    if (wanted.length > 0 ? !wanted.includes(section.name) : section.named === true) {
      continue;
    }
    const started = performance.now();
    const rows = await section.run();
    printTable(`${section.name} (${((performance.now() - started) / 1000).toFixed(1)} s)`, rows);
    missed += rows.filter((row) => row.ok === false).length;
  }
  console.log(missed === 0 ? '\nAll goals met.' : `\n${missed} goal(s) missed.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
