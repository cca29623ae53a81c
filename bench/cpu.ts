// Where a machine's processor time went while a bench part ran (bench only, Linux): every thread's
// time from /proc, taken before and after, summed by the role its process or thread plays (the
// browser's page renderer and its main thread, the webview's worker, the GPU process, the
// extension host, code-server, this bench and its loopback service, the busy core's spinner).
// A stall of a main thread whose own time in it is small is a thread that waited for the
// processor, not one that worked.
import { readdir, readFile } from 'node:fs/promises';

/** Processor time (ms) by thread, keyed by process and thread id, with each thread's role. */
export interface CpuSnapshot {
  readonly at: number;
  readonly threads: ReadonlyMap<string, { readonly role: string; readonly ms: number }>;
}

/** The kernel's clock ticks per second for /proc times (USER_HZ: 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/** A process's role from its command line; undefined: not one the bench follows. */
function processRole(pid: number, args: readonly string[], spinners: ReadonlySet<number>): string | undefined {
  if (pid === process.pid) return 'bench and service (this process)';
  if (spinners.has(pid)) return 'busy core (the bench\'s spinner)';
  const command = args.join(' ');
  if (/chrom(e|ium)/i.test(args[0] ?? '') || command.includes('--type=renderer')) {
    const type = /--type=([\w-]+)/.exec(command)?.[1];
    if (type === undefined) return 'browser process';
    if (type === 'renderer') return 'renderer';
    if (type === 'gpu-process') return 'GPU process';
    return 'browser utilities (network, storage)';
  }
  if (command.includes('extensionHost')) return 'extension host';
  if (command.includes('code-server')) return 'code-server (server, file watcher, pty host)';
  return undefined;
}

/** A renderer thread's role: its main thread has the process's id; Chromium names the others. */
function threadRole(main: boolean, name: string): string {
  if (main) return 'renderer main thread (workbench and webview)';
  if (/DedicatedWorker/i.test(name)) return 'renderer workers (the webview\'s render worker)';
  if (/Compositor/i.test(name)) return 'renderer compositor';
  return 'renderer other threads';
}

async function text(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** utime + stime of a /proc stat line, in ms (the fields after the command's closing parenthesis). */
function statMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Every followed thread's processor time now. `spinners`: the busy core's processes. */
export async function cpuSnapshot(spinners: ReadonlySet<number> = new Set()): Promise<CpuSnapshot> {
  const threads = new Map<string, { role: string; ms: number }>();
  const at = performance.now();
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const args = (await text(`/proc/${pid}/cmdline`))?.split('\0').filter((arg) => arg !== '') ?? [];
    const role = processRole(pid, args, spinners);
    if (role === undefined) continue;
    let tids: string[] = [];
    try {
      tids = await readdir(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const stat = await text(`/proc/${pid}/task/${tid}/stat`);
      if (stat === undefined) continue;
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      threads.set(`${pid}/${tid}`, { role: role === 'renderer' ? threadRole(tid === entry, name) : role, ms: statMs(stat) });
    }
  }
  return { at, threads };
}

/** The processor time each role used between two snapshots, most first: "role 123 ms, …" over the wall time. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): string {
  const byRole = new Map<string, number>();
  for (const [key, thread] of after.threads) {
    const used = thread.ms - (before.threads.get(key)?.ms ?? 0);
    if (used > 0) byRole.set(thread.role, (byRole.get(thread.role) ?? 0) + used);
  }
  const total = [...byRole.values()].reduce((sum, used) => sum + used, 0);
  const parts = [...byRole.entries()].sort((a, b) => b[1] - a[1]).map(([role, used]) => `${role} ${used.toFixed(0)} ms`);
  return `${total.toFixed(0)} ms of processor time in ${(after.at - before.at).toFixed(0)} ms: ${parts.join(', ')}`;
}
