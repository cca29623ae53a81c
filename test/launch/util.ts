// Small process, path and timing helpers shared by the launchers, the e2e harness and the demo.
// Plain Node only: this file is loaded by launchers, by mocha in Node and by scripts/demo.ts.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import * as path from 'node:path';

let cachedRoot: string | undefined;

/** The repository root: the nearest folder above this file whose package.json names the extension. */
export function repoRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = __dirname;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
      if (isRecord(parsed) && parsed.name === 'application-query') {
        cachedRoot = dir;
        return dir;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no application-query package.json above ${__dirname}`);
    dir = parent;
  }
}

/** True for a plain (non-array) object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/** True when `port` on 127.0.0.1 can be bound right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Thrown by a {@link waitFor} probe when waiting longer cannot help (the process it waits for has exited): waitFor throws it at once. */
export class StopWaiting extends Error {}

/** Polls `probe` until it returns a value other than undefined/false, or throws after `timeoutMs` (or at once, a {@link StopWaiting}). */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof StopWaiting) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${reason}`);
    }
    await delay(intervalMs);
  }
}

/** Whether the process `pid` still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error) && error.code === 'EPERM';
  }
}

/** True for a Node system error carrying `code`. */
export function isErrno(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/**
 * Ends the process group led by `child` (started with `detached: true`): SIGTERM, then SIGKILL if
 * the leader is still there after `graceMs`. Servers leave helper processes behind otherwise.
 */
export async function killGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(pid, 'SIGTERM');
  const ended = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
  // Helpers in the group may outlive the leader; SIGKILL the whole group either way.
  signalGroup(pid, 'SIGKILL');
  if (!ended) await Promise.race([exited, delay(graceMs)]);
}

const orphans = new Set<number>();
const terminateSteps = new Set<() => Promise<void>>();
let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', () => {
    for (const group of orphans) signalGroup(group, 'SIGKILL');
  });
  const signals: [NodeJS.Signals, number][] = [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]];
  for (const [signal, code] of signals) {
    process.once(signal, () => {
      // Ctrl+C or a kill: run the registered clean-ups (bounded), then exit; the exit hook kills what is left.
      const steps = [...terminateSteps].map((step) => step().catch(() => undefined));
      void Promise.race([Promise.all(steps), delay(10_000)]).then(() => process.exit(code));
    });
  }
}

/**
 * Makes sure the process group led by `child` dies with this process, also when it ends by an
 * uncaught error, process.exit, Ctrl+C or SIGTERM. Returns a function that forgets the group again.
 */
export function killGroupOnExit(child: ChildProcess): () => void {
  const pid = child.pid;
  if (pid === undefined) return () => undefined;
  installExitHooks();
  orphans.add(pid);
  return () => orphans.delete(pid);
}

/** Runs `step` (bounded to 10 s with the others) when this process gets SIGINT, SIGTERM or SIGHUP, before it exits. */
export function onTerminate(step: () => Promise<void>): () => void {
  installExitHooks();
  terminateSteps.add(step);
  return () => terminateSteps.delete(step);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Outcome of {@link runProcess}. */
export interface ProcessResult {
  code: number;
  output: string;
}

/** Runs a command to completion, collecting stdout and stderr together (never rejects on exit code). */
export function runProcess(command: string, args: readonly string[], options: SpawnOptions & { onLine?: (line: string) => void } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = lineSplitter((line) => options.onLine?.(line));
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output += text;
      onData(text);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      onData(null);
      resolve({ code: code ?? (signal !== null ? 128 : 1), output });
    });
  });
}

/** Returns a function that is fed text chunks (null flushes) and calls `onLine` once per complete line. */
export function lineSplitter(onLine: (line: string) => void): (chunk: string | null) => void {
  let pending = '';
  return (chunk) => {
    if (chunk === null) {
      if (pending !== '') onLine(pending);
      pending = '';
      return;
    }
    pending += chunk;
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
}

/** Seconds since `start` (a `Date.now()` value), one decimal. */
export function secondsSince(start: number): string {
  return ((Date.now() - start) / 1000).toFixed(1);
}

/**
 * npm configuration a person may set in their own shell to reach the registry (a mirror, a proxy, a
 * CA): a child npm needs it just as the outer one did. Everything else `npm_*` is the outer npm's
 * lifecycle state.
 */
const NPM_NETWORK_CONFIG = /^npm_config_(registry|@[^:]+:registry|proxy|https_proxy|http_proxy|noproxy|no_proxy|cafile|ca|cert|key|strict_ssl|cache|fetch_retries|fetch_retry_[a-z]+|fetch_timeout)$/i;

/**
 * True for a variable that an outer `npm run` sets for its scripts and that must not reach a nested
 * npm or a server: `npm_config_user_agent` (code-server's postinstall reads the Node version from
 * it), `npm_lifecycle_*`, `npm_package_*`, `npm_execpath`, `npm_node_execpath`, `npm_command`,
 * `npm_config_node_gyp`, `npm_config_nodedir`, `npm_config_local_prefix`, `INIT_CWD` and `NODE`.
 */
export function isNpmLifecycleVariable(name: string): boolean {
  if (name === 'INIT_CWD' || name === 'NODE') return true;
  if (!/^npm_/i.test(name)) return false;
  return !NPM_NETWORK_CONFIG.test(name);
}

/** `PATH` without the folders an outer `npm run` put in front (`node_modules/.bin`, npm's node-gyp shim). */
export function pathWithoutNpmEntries(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return value
    .split(path.delimiter)
    .filter((entry) => entry !== '' && !/[\\/]node_modules[\\/]\.bin[\\/]?$/.test(entry) && !/[\\/]@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin[\\/]?$/.test(entry))
    .join(path.delimiter);
}

/**
 * The environment for a child process (a lane, a nested npm install, a server): `base` without
 * variables that would make it think it runs inside VS Code, and without the outer npm's lifecycle
 * variables and PATH entries, then `extra` on top (an undefined value removes the variable).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (key.startsWith('VSCODE_') || key === 'ELECTRON_RUN_AS_NODE' || isNpmLifecycleVariable(key)) continue;
    env[key] = value;
  }
  const cleanPath = pathWithoutNpmEntries(env.PATH);
  if (cleanPath !== undefined) env.PATH = cleanPath;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Every file below `dir`, as full paths (skipping what cannot be read). */
export async function filesBelow(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const full = path.join(dir, name);
    const info = await stat(full).catch(() => undefined);
    if (info?.isDirectory()) {
      out.push(...(await filesBelow(full)));
    } else if (info?.isFile()) {
      out.push(full);
    }
  }
  return out;
}

/**
 * A cross-process lock: mkdir is atomic. The owner's pid is recorded so a lock left by a killed
 * process is recognised and taken over.
 */
export async function acquireLock(lockDir: string, what: string, waitMs = 20 * 60_000): Promise<() => Promise<void>> {
  const owner = path.join(lockDir, 'owner');
  const deadline = Date.now() + waitMs;
  let announced = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      await writeFile(owner, `${process.pid}\n`);
      return async () => {
        await rm(owner, { force: true });
        await rmdir(lockDir).catch(() => undefined);
      };
    } catch (error) {
      if (!isErrno(error) || error.code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await readFile(owner, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!announced) {
      console.log(`waiting for another process to finish installing ${what}…`);
      announced = true;
    }
    if (Date.now() > deadline) throw new Error(`gave up waiting for the ${what} install lock at ${lockDir}`);
    await delay(1000);
  }
}

