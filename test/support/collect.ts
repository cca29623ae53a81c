// Runs a program to its end and keeps what it wrote: the command line's tests read its exit status,
// its standard output and its standard error apart.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** What one run did. */
export interface Collected {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with `args`; `onStart` gets the child (to signal it mid-run). */
export function runCollected(command: string, args: readonly string[], options: SpawnOptions, onStart?: (child: ChildProcess) => void): Promise<Collected> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    onStart?.(child);
  });
}
