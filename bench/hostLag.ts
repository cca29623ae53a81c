// How late the benchmarked extension host's event loop came back while an answer streamed (bench
// only). A small extension of the bench's own (hostLag/probe.ts) is installed beside ours and
// writes down every late tick; the bench reads them for the part's time.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/** The probe's extension folder (made fresh) and the file it writes to, for the server's environment. */
export async function hostLagProbe(): Promise<{ folder: string; file: string; env: Record<string, string> }> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'aq-bench-host-lag-'));
  const file = path.join(folder, 'late.txt');
  await writeFile(file, '');
  const manifest = {
    name: 'host-lag-probe',
    publisher: 'aq-bench',
    version: '0.0.1',
    engines: { vscode: '^1.100.0' },
    main: './extension.js',
    activationEvents: ['onStartupFinished'],
  };
  await writeFile(path.join(folder, 'package.json'), JSON.stringify(manifest, null, 2));
  // The compiled probe stays where tsc put it; the folder only points to it.
  await writeFile(path.join(folder, 'extension.js'), `module.exports = require(${JSON.stringify(path.join(__dirname, 'hostLag', 'probe.js'))});\n`);
  const profile = hostProfileFile();
  return { folder, file, env: { AQ_BENCH_HOST_LAG: file, ...(profile === undefined ? {} : { AQ_BENCH_HOST_PROFILE: profile }) } };
}

/** The longest late tick that ended in [from, to] (epoch ms), and those over `overMs`: when each ended (ms after `from`) and how late it was. */
export async function hostLagBetween(file: string, from: number, to: number, overMs: number): Promise<{ longest: number; over: Array<{ endedAfter: number; late: number }> }> {
  const ticks = (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(' ').map(Number) as [number, number])
    .filter(([end, late]) => end >= from && end - late <= to);
  return {
    longest: Math.max(0, ...ticks.map(([, late]) => late)),
    over: ticks.filter(([, late]) => late > overMs).map(([end, late]) => ({ endedAfter: end - from, late })),
  };
}

/** Where the extension host's CPU profile of the 10 MiB part goes (env AQ_WB_HOST_PROFILE, a file path; none by default). */
export function hostProfileFile(): string | undefined {
  const file = process.env.AQ_WB_HOST_PROFILE;
  return file === undefined || file === '' ? undefined : path.resolve(file);
}

/** Asks the probe for the host's CPU profile (see hostLag/probe.ts) and waits until it is written. */
export async function writeHostProfile(): Promise<void> {
  const file = hostProfileFile();
  if (file === undefined) return;
  await rm(file, { force: true });
  await writeFile(`${file}.stop`, '');
  for (let waited = 0; waited < 20_000; waited += 250) {
    if ((await stat(file).catch(() => undefined))?.isFile() === true) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await rm(`${file}.stop`, { force: true });
}
