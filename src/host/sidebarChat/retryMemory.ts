/** The default byte budget of a {@link RetryMemory}: a few large attachments, never dozens. */
export const RETRY_MEMORY_BUDGET_BYTES = 8 * 1024 * 1024;

/**
 * What Retry needs of chat answers that are streaming or failed: the input each was asked with,
 * in memory only, within a byte budget. Past the budget the oldest inputs go first (their Retry
 * then asks with the question alone); the newest one is always kept, whatever its size.
 */
export class RetryMemory<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly bytes: number }>();
  private total = 0;

  constructor(
    private readonly sizeOf: (value: T) => number,
    private readonly budgetBytes: number = RETRY_MEMORY_BUDGET_BYTES,
  ) {}

  /** Keeps `value` for `turnId` as the newest, evicting the oldest past the budget. */
  remember(turnId: string, value: T): void {
    this.forget(turnId);
    const bytes = Math.max(0, this.sizeOf(value));
    this.entries.set(turnId, { value, bytes });
    this.total += bytes;
    for (const [id, entry] of this.entries) {
      if (this.total <= this.budgetBytes || id === turnId) {
        break;
      }
      this.entries.delete(id);
      this.total -= entry.bytes;
    }
  }

  /** The value kept for `turnId`, if it is still kept. */
  get(turnId: string): T | undefined {
    return this.entries.get(turnId)?.value;
  }

  /** Drops what is kept for `turnId` (its answer completed, or it was retried). */
  forget(turnId: string): void {
    const entry = this.entries.get(turnId);
    if (entry !== undefined) {
      this.entries.delete(turnId);
      this.total -= entry.bytes;
    }
  }

  /** Drops every value `matches` accepts (e.g. those of a cleared conversation). */
  forgetWhere(matches: (value: T, turnId: string) => boolean): void {
    for (const [id, entry] of [...this.entries]) {
      if (matches(entry.value, id)) {
        this.forget(id);
      }
    }
  }

  /** Drops everything. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** How many values are kept. */
  get size(): number {
    return this.entries.size;
  }

  /** The bytes kept, as `sizeOf` counts them. */
  get bytes(): number {
    return this.total;
  }
}

/** Roughly the memory the strings of a JSON-like value take (two bytes a UTF-16 code unit). */
export function stringBytes(value: unknown): number {
  if (typeof value === 'string') {
    return value.length * 2;
  }
  if (Array.isArray(value)) {
    return value.reduce((sum: number, item: unknown) => sum + stringBytes(item), 0);
  }
  if (typeof value === 'object' && value !== null) {
    return Object.values(value).reduce((sum: number, item: unknown) => sum + stringBytes(item), 0);
  }
  return 0;
}
