// Inside an extension host (the benches' suites): a full garbage collection on demand, and waiting
// until the heap has settled.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/**
 * A function that forces a full garbage collection, if this process lets us have one (Node's
 * `--expose-gc`, switched on at run time; the function comes from a fresh context).
 */
export function fullCollection(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => void gc() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lets pending work finish (VS Code's channel writer drains for a while after the last append),
 * collecting garbage as it goes, until two readings 500 ms apart agree within 1 MiB (at most 20 s).
 */
export async function settle(gc: (() => void) | undefined): Promise<void> {
  let last = Number.NaN;
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    gc?.();
    gc?.();
    const now = process.memoryUsage().heapUsed;
    if (Math.abs(now - last) < 1024 * 1024) return;
    last = now;
  }
}
