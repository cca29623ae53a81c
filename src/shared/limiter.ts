/**
 * At most `limit` tasks at a time per key (a service's origin), each key's tasks started in the
 * order they were queued. Keys do not wait for each other. Runs anywhere.
 */
export class KeyedLimiter {
  private readonly lanes = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`The limit must be a whole number of at least 1, not ${limit}.`);
  }

  /** Runs `task` once its key has a free place; settles as the task does. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(key, lane);
    }
    if (lane.running >= this.limit) {
      // The place is handed over by the task that ends (running stays the same), so no newcomer can take it first.
      const queued = lane;
      await new Promise<void>((resolve) => queued.waiting.push(resolve));
    } else {
      lane.running++;
    }
    try {
      return await task();
    } finally {
      const next = lane.waiting.shift();
      if (next !== undefined) next();
      else if (--lane.running === 0) this.lanes.delete(key);
    }
  }

  /** How many tasks of this key run now (for tests and the bench). */
  running(key: string): number {
    return this.lanes.get(key)?.running ?? 0;
  }
}
