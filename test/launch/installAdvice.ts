// Turns a failed install step's output into a message a newcomer can act on: which step failed,
// the likely cause, and what to try. Pure: no processes, no file system.

/** A known way for an install step to fail. */
interface KnownFailure {
  readonly pattern: RegExp;
  readonly cause: string;
  readonly remedy: string;
}

const KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    pattern: /requires node v?(\d+)[^\n]*detected that you are on node v?\d+/i,
    cause: 'code-server\'s postinstall read an older Node version than the one running it (it reads npm_config_user_agent, which an outer `npm run` sets)',
    remedy: 'run the install from a plain shell, or clear the npm_* variables first: `env -u npm_config_user_agent node out/test/launch/install.js`',
  },
  {
    pattern: /gssapi\/gssapi\.h|gssapi\.h: No such file/i,
    cause: 'the Kerberos headers are missing (a native module of code-server needs them)',
    remedy: 'install them: `apt-get install -y libkrb5-dev` (as root), then run the command again',
  },
  {
    pattern: /ENOSPC|no space left on device/i,
    cause: 'the disk is full (code-server needs about 300 MB for 1.100 and 600 MB for 1.139)',
    remedy: 'free some space (`df -h .`), or remove old installs with `rm -rf .cache/`, then run the command again',
  },
  {
    pattern: /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network request .* failed|socket hang up)\b/i,
    cause: 'the npm registry could not be reached (no network, a proxy, or a registry mirror that is down)',
    remedy: 'check `npm config get registry` and `npm ping`; behind a proxy set `npm_config_https_proxy`; then run the command again',
  },
  {
    pattern: /github\.com|objects\.githubusercontent|api\.github/i,
    cause: 'a postinstall tried to download a binary from GitHub, which this machine cannot reach (code-server 1.100\'s ripgrep)',
    remedy: 'install Debian\'s ripgrep (`apt-get install -y ripgrep`) so the launcher can seed the download cache, then run the command again',
  },
  {
    pattern: /EACCES|permission denied|EPERM/i,
    cause: 'a file could not be written or a script could not run with the current permissions',
    remedy: 'run as the user who owns the checkout (as root, npm needs `npm_config_unsafe_perm=true`, which the launcher sets), or remove `.cache/` and try again',
  },
  {
    pattern: /gyp ERR!|node-gyp|make: \*\*\*|g\+\+: (error|not found)|python3?: not found/i,
    cause: 'a native module failed to compile',
    remedy: 'install the build tools (`apt-get install -y python3 make g++ libkrb5-dev`), then run the command again',
  },
  {
    pattern: /Could not get lock|dpkg (frontend )?lock|Unable to acquire the dpkg/i,
    cause: 'another apt or dpkg process holds the package lock',
    remedy: 'wait for it to finish (see `ps aux | grep -E "apt|dpkg"`), then run the command again',
  },
  {
    pattern: /Unable to locate package|has no installation candidate/i,
    cause: 'apt does not know the package (its lists are old, or this is not Debian)',
    remedy: 'run `apt-get update` first; on another distribution install Chromium, the Kerberos development headers and ripgrep with its own package manager',
  },
  {
    pattern: /Temporary failure resolving|Failed to fetch|Could not resolve/i,
    cause: 'apt could not reach the Debian mirrors',
    remedy: 'check the network and `/etc/apt/sources.list*`, then run the command again',
  },
];

/** How many of the step's last output lines a report quotes. */
const TAIL_LINES = 25;

/**
 * A report for a failed install `step` (e.g. "npm i code-server@4.139.1"): the step, the exit code,
 * the likely cause and what to try (the first known failure found in `output`, else general advice),
 * and the last lines of the output.
 */
export function explainInstallFailure(step: string, exitCode: number, output: string): string {
  const known = KNOWN_FAILURES.find((failure) => failure.pattern.test(output));
  const cause = known?.cause ?? 'not recognised from the output (see the lines below)';
  const remedy = known?.remedy ?? 'read the output below; remove the half-finished install with `rm -rf .cache/` and run the command again';
  const tail = output.trimEnd().split(/\r?\n/).slice(-TAIL_LINES).map((line) => `    ${line}`).join('\n');
  return [
    `Install step failed: ${step} (exit ${exitCode})`,
    `  Likely cause: ${cause}.`,
    `  Try: ${remedy}.`,
    `  Last lines of its output:`,
    tail,
  ].join('\n');
}
