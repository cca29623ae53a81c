// The system packages the lanes and the demo need beside npm's: Debian's Chromium (the browser the
// lanes drive), the Kerberos headers (a native module of code-server compiles against them) and
// ripgrep (code-server 1.100's postinstall would download it otherwise). As root with apt-get they
// are installed on first use, and the run says so; otherwise the run stops with the exact command.
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { explainInstallFailure } from './installAdvice';
import { acquireLock, cleanEnv, runProcess, secondsSince } from './util';

/** A Debian package a lane needs. */
export type SystemPackage = 'chromium' | 'libkrb5-dev' | 'ripgrep';

/** Where Chromium is: `AQ_CHROMIUM` or Debian's package. */
export function chromiumPath(): string {
  return process.env.AQ_CHROMIUM ?? '/usr/bin/chromium';
}

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && existsSync(path.join(dir, binary)));
}

const PACKAGES: Readonly<Record<SystemPackage, { why: string; present: () => boolean }>> = {
  chromium: { why: 'the browser that the browser, integration and end-to-end lanes drive', present: () => existsSync(chromiumPath()) },
  'libkrb5-dev': { why: 'headers a native module of code-server compiles against', present: () => existsSync('/usr/include/gssapi/gssapi.h') },
  ripgrep: { why: 'code-server 1.100 downloads ripgrep from GitHub unless it is installed', present: () => onPath('rg') || existsSync('/usr/bin/rg') },
};

/** The packages of `wanted` that are not on this machine, in a stable order. */
export function missingSystemPackages(wanted: Iterable<SystemPackage>): SystemPackage[] {
  return [...new Set(wanted)].filter((name) => !PACKAGES[name].present()).sort();
}

/** The command a person runs to install `names` (with sudo when not root). */
export function aptCommand(names: readonly SystemPackage[], root = isRoot()): string {
  const sudo = root ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${names.join(' ')}`;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Makes sure `wanted` are installed, for `purpose` (e.g. "npm test"). As root on a machine with
 * apt-get, installs what is missing and says so; otherwise throws with the exact command to run.
 * Safe to call from several processes at once (one installs, the others wait).
 */
export async function ensureSystemPackages(wanted: Iterable<SystemPackage>, purpose: string): Promise<void> {
  const names = [...wanted];
  if (missingSystemPackages(names).length === 0) return;
  if (process.env.AQ_NO_APT === '1' || !isRoot() || !existsSync('/usr/bin/apt-get')) {
    const missing = missingSystemPackages(names);
    const reasons = missing.map((name) => `  ${name}: ${PACKAGES[name].why}`).join('\n');
    const how = existsSync('/usr/bin/apt-get')
      ? `Install them with:\n  ${aptCommand(missing)}`
      : 'Install Chromium, the Kerberos development headers (gssapi.h) and ripgrep with this system\'s package manager (set AQ_CHROMIUM to Chromium\'s path if it is not /usr/bin/chromium).';
    throw new Error(`${purpose} needs system packages that are missing:\n${reasons}\n${how}\nthen run the command again.`);
  }
  const release = await acquireLock(path.join(os.tmpdir(), 'application-query-apt.lock'), 'the system packages');
  try {
    const missing = missingSystemPackages(names);
    if (missing.length === 0) return;
    const started = Date.now();
    console.log(`${purpose} needs ${missing.join(', ')}: installing with apt-get (as root)…`);
    const env = cleanEnv({ DEBIAN_FRONTEND: 'noninteractive' });
    for (const args of [['update', '-q'], ['install', '-y', '-q', '--no-install-recommends', ...missing]]) {
      const result = await runProcess('apt-get', args, { env });
      if (result.code !== 0) throw new Error(explainInstallFailure(`apt-get ${args.join(' ')}`, result.code, result.output));
    }
    const still = missingSystemPackages(missing);
    if (still.length > 0) throw new Error(`apt-get finished but ${still.join(', ')} is still missing; install it by hand: ${aptCommand(still)}`);
    console.log(`installed ${missing.join(', ')} in ${secondsSince(started)} s`);
  } finally {
    await release();
  }
}
