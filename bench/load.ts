// The loads the speed goals are measured under (#24): an idle machine, and one core kept busy by
// the bench itself, as a build or a language server keeps a developer's machine. The one owner of
// the busy process and of how a section prints its figures side by side.
import { spawn } from 'node:child_process';
import type { BenchRow } from './core';

/** Runs `work` under one load. */
export type UnderLoad = <T>(work: () => Promise<T>) => Promise<T>;

/** The processes that keep a core busy now (see cpu.ts, which names their time). */
export const spinners = new Set<number>();

/** Runs `work` while one core is kept busy (a process that spins); the process ends with the work. */
export async function withBusyCore<T>(work: () => Promise<T>): Promise<T> {
  const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  if (spinner.pid !== undefined) spinners.add(spinner.pid);
  try {
    return await work();
  } finally {
    spinner.kill();
    if (spinner.pid !== undefined) spinners.delete(spinner.pid);
  }
}

const ALL: ReadonlyArray<readonly [string, UnderLoad]> = [
  ['idle', (work) => work()],
  ['one core busy', withBusyCore],
];

/**
 * The loads a section runs under: both by default; env AQ_LOADS (`idle`, `busy` or both,
 * comma-separated) picks, for a quicker look at one of them.
 */
export function loads(): ReadonlyArray<readonly [string, UnderLoad]> {
  const wanted = (process.env.AQ_LOADS ?? 'idle,busy').split(',').map((name) => name.trim());
  const picked = ALL.filter(([name]) => wanted.some((word) => word !== '' && name.includes(word)));
  if (picked.length === 0) throw new Error(`AQ_LOADS names no load (idle, busy): ${process.env.AQ_LOADS ?? ''}`);
  return picked;
}

/**
 * One row per measure from the rows each load gave (the same names in the same order): the
 * values side by side ("idle: …; one core busy: …"), met only when met under every load. A row
 * that only one load gave is kept as it is.
 */
export function sideBySide(byLoad: ReadonlyArray<readonly [string, readonly BenchRow[]]>): BenchRow[] {
  const merged = new Map<string, { row: BenchRow; values: string[]; oks: boolean[] }>();
  for (const [load, rows] of byLoad) {
    for (const row of rows) {
      const entry = merged.get(row.name) ?? { row, values: [], oks: [] };
      entry.values.push(byLoad.length > 1 ? `${load}: ${row.value}` : row.value);
      if (row.ok !== undefined) entry.oks.push(row.ok);
      merged.set(row.name, entry);
    }
  }
  return [...merged.values()].map(({ row, values, oks }) => ({
    ...row,
    value: values.join('; '),
    ...(oks.length > 0 ? { ok: oks.every(Boolean) } : {}),
  }));
}
