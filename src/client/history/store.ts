/**
 * The model of History: every exchange (a request as sent and the response as received), recorded
 * from any surface, kept newest first in a small key-value storage (VS Code's Memento), bounded by
 * count and size, and never holding an API key.
 */
import { parseExchange, type Exchange } from './exchange';
import { isRecord } from '../formats/json';
import { scrubExchange } from './masking';
import { utf8Prefix } from './recorder';
import { jsonArrayElements, StoredHistoryText } from './storedText';

/** Most exchanges kept: the oldest go first. */
export const HISTORY_MAX_ENTRIES = 200;
/** Most serialized size kept (UTF-8 bytes of the stored JSON): the oldest exchanges go first. */
export const HISTORY_MAX_BYTES = 8 * 1024 * 1024;

/** The little of VS Code's Memento that History needs (e.g. over `context.globalState` and one key), or a file. */
export interface HistoryStorage {
  /**
   * What is stored: a JSON-like value, or a {@link StoredHistoryText} of at most about `maxBytes`.
   * Returns the same object again while nothing changed it.
   */
  get(maxBytes?: number): unknown;
  update(value: unknown): Promise<void>;
  /** Runs `work` while no other writer (another window) runs its own; History re-reads and merges inside it. */
  exclusive?<T>(work: () => Promise<T>): Promise<T>;
  /** Keeps an unreadable stored value aside before it is replaced; resolves with where (for the log). */
  keepUnreadable?(raw: unknown): Promise<string | undefined>;
}

/** How much History keeps. */
export interface HistoryLimits {
  /** Default {@link HISTORY_MAX_ENTRIES} (200). */
  readonly maxEntries: number;
  /** Default {@link HISTORY_MAX_BYTES} (8 MiB of stored JSON). */
  readonly maxBytes: number;
}

/** Something to call `dispose()` on to stop listening. */
export interface Subscription {
  dispose(): void;
}

const STORAGE_VERSION = 1;
/** How stored History written by {@link HistoryStore} begins: the list is read element by element from here. */
const STORED_PREFIX = /^\uFEFF?\s*\{\s*"version"\s*:\s*1\s*,\s*"exchanges"\s*:\s*\[/;
/** Read beyond the size bound: the JSON punctuation around the exchanges. */
const READ_SLACK_BYTES = 64 * 1024;

/**
 * The recorded exchanges, newest first, kept in a {@link HistoryStorage}: at most 200 of them and
 * 8 MiB of stored JSON by default (the oldest go first; one exchange too large on its own has its
 * raw body, answer text and request body cut until it fits a quarter of the size bound). Loading
 * never throws and reads no more than the bounds can keep: what is not a valid exchange is dropped,
 * an unreadable stored value is kept aside by the storage (see {@link problems}). Every write
 * re-reads the storage and merges it by id, so windows sharing it lose none of each other's
 * exchanges. Nothing stored ever
 * holds an API key: {@link add} masks every `Bearer …` token that is not masked yet and every secret
 * it is given, in every field.
 */
export class HistoryStore {
  private readonly limits: HistoryLimits;
  private readonly listeners = new Set<() => void>();
  private entries: Exchange[] = [];
  private loadedFrom: unknown = undefined;
  private loaded = false;
  private writing: Promise<void> = Promise.resolve();
  private pendingWrites = 0;
  /** Ids this store forgot (Clear History): merging never brings them back. */
  private readonly forgotten = new Set<string>();
  private readonly problemListeners = new Set<(problem: string) => void>();
  private keptAside: unknown = undefined;
  private toKeep: { readonly raw: unknown; readonly what: string } | undefined;
  private inWrite = false;
  /** The next write, while it waits for the one before it (later changes share it). */
  private queuedWrite: Promise<void> | undefined;
  /** What loading dropped, in plain language (for the log). */
  readonly problems: string[] = [];

  constructor(
    private readonly storage: HistoryStorage,
    limits: Partial<HistoryLimits> = {},
  ) {
    this.limits = {
      maxEntries: Math.max(1, Math.floor(limits.maxEntries ?? HISTORY_MAX_ENTRIES)),
      maxBytes: Math.max(1024, Math.floor(limits.maxBytes ?? HISTORY_MAX_BYTES)),
    };
  }

  /** Every exchange, newest first. */
  list(): readonly Exchange[] {
    this.sync();
    return this.entries;
  }

  /** One exchange by id. */
  get(id: string): Exchange | undefined {
    return this.list().find((entry) => entry.id === id);
  }

  /**
   * Records an exchange as the newest, masking keys (every `Bearer …` and each of `secrets`) and
   * evicting the oldest past the bounds; resolves with what was stored once it is written.
   */
  async add(exchange: Exchange, options: { secrets?: readonly string[] } = {}): Promise<Exchange> {
    this.sync();
    const stored = this.fit(scrubExchange(exchange, options.secrets ?? []));
    this.forgotten.delete(stored.id);
    this.entries = this.bound([stored, ...this.entries.filter((entry) => entry.id !== stored.id)]);
    await this.write(false);
    return stored;
  }

  /** Forgets every exchange, also those another window stored. */
  async clear(): Promise<void> {
    this.sync();
    for (const entry of this.entries) {
      this.forgotten.add(entry.id);
    }
    this.entries = [];
    await this.write(true);
  }

  /** Calls `listener` with each problem found in the storage from now on (what {@link problems} gains). */
  onProblem(listener: (problem: string) => void): Subscription {
    this.problemListeners.add(listener);
    return { dispose: () => this.problemListeners.delete(listener) };
  }

  /** Calls `listener` after every change (add, clear). */
  onDidChange(listener: () => void): Subscription {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Re-reads the storage when another writer (another window) changed it. */
  private sync(): void {
    const raw = this.read();
    // While our writes are pending the storage may still hold an older value: ours is the newest.
    if (this.loaded && (this.pendingWrites > 0 || raw === this.loadedFrom)) {
      return;
    }
    this.loaded = true;
    this.loadedFrom = raw;
    this.entries = this.parse(raw);
  }

  private read(): unknown {
    try {
      return this.storage.get(this.limits.maxBytes + READ_SLACK_BYTES);
    } catch {
      return undefined;
    }
  }

  /** The stored exchanges within the bounds: each is checked, scrubbed and cut only if it is kept. */
  private parse(raw: unknown): Exchange[] {
    const items = this.storedItems(raw);
    const out: Exchange[] = [];
    const seen = new Set<string>();
    let size = 0;
    let dropped = 0;
    for (const item of items) {
      if (out.length >= this.limits.maxEntries) {
        break;
      }
      const exchange = parseExchange(item);
      if (exchange === undefined || seen.has(exchange.id)) {
        dropped++;
        continue;
      }
      seen.add(exchange.id);
      const kept = this.fit(scrubExchange(exchange, []));
      const keptSize = serializedSize(kept) + 1;
      if (size + keptSize > this.limits.maxBytes) {
        break;
      }
      out.push(kept);
      size += keptSize;
    }
    if (dropped > 0) {
      this.report(`${dropped} stored history ${dropped === 1 ? 'entry was' : 'entries were'} not valid and ${dropped === 1 ? 'was' : 'were'} dropped.`);
    }
    return out;
  }

  /** The stored list of exchanges, unchecked; an unreadable value is reported and kept aside. */
  private storedItems(raw: unknown): Iterable<unknown> {
    if (raw === undefined || raw === null) {
      return [];
    }
    if (raw instanceof StoredHistoryText) {
      if (raw.complete) {
        try {
          return this.storedItems(JSON.parse(raw.text) as unknown);
        } catch {
          this.unreadable(raw, 'The stored history is not valid JSON');
          return [];
        }
      }
      if (!STORED_PREFIX.test(raw.text)) {
        this.unreadable(raw, `The stored history (${raw.totalBytes} bytes) is far larger than History keeps and not in a known form`);
        return [];
      }
      this.report(`The stored history is ${raw.totalBytes} bytes, more than History keeps: only its newest exchanges were read.`);
      return jsonArrayElements(raw.text, raw.text.match(STORED_PREFIX)?.[0].length ?? 0);
    }
    if (!isRecord(raw) || raw['version'] !== STORAGE_VERSION || !Array.isArray(raw['exchanges'])) {
      this.unreadable(raw, 'The stored history was not in a known form');
      return [];
    }
    return raw['exchanges'] as unknown[];
  }

  /** Reports an unreadable stored value and has the storage keep it aside before anything replaces it. */
  private unreadable(raw: unknown, what: string): void {
    if (this.keptAside === raw) {
      return;
    }
    this.keptAside = raw;
    if (this.storage.keepUnreadable === undefined) {
      this.report(`${what}; it starts empty.`);
      return;
    }
    this.toKeep = { raw, what };
    if (!this.inWrite) {
      // Queued before any later write, so the unreadable value is kept before it is replaced.
      this.writing = this.writing.then(() => this.keepUnreadable());
    }
  }

  /** Has the storage keep the unreadable value found last, and says where. Never throws. */
  private async keepUnreadable(): Promise<void> {
    const pending = this.toKeep;
    this.toKeep = undefined;
    if (pending === undefined || this.storage.keepUnreadable === undefined) {
      return;
    }
    try {
      const where = await this.storage.keepUnreadable(pending.raw);
      this.report(`${pending.what}; it starts empty. The unreadable history was kept ${where === undefined ? 'aside' : `as ${where}`}.`);
    } catch (error) {
      this.report(`${pending.what}; it starts empty. Keeping the unreadable history aside failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private report(problem: string): void {
    this.problems.push(problem);
    for (const listener of [...this.problemListeners]) {
      try {
        listener(problem);
      } catch {
        // A failing listener must not stop loading.
      }
    }
  }

  /** Newest first, within the count and size bounds. */
  private bound(entries: Exchange[]): Exchange[] {
    const kept: Exchange[] = [];
    let size = 0;
    for (const entry of entries) {
      const entrySize = serializedSize(entry) + 1;
      if (kept.length >= this.limits.maxEntries || size + entrySize > this.limits.maxBytes) {
        break;
      }
      kept.push(entry);
      size += entrySize;
    }
    return kept;
  }

  /** Cuts the big fields of one exchange until it takes at most a quarter of the size bound. */
  private fit(exchange: Exchange): Exchange {
    const budget = Math.floor(this.limits.maxBytes / 4);
    let current = exchange;
    for (let round = 0; round < 40 && serializedSize(current) > budget; round++) {
      current = halveLargest(current);
    }
    return current;
  }

  /**
   * Writes what this store holds merged by id with what is stored right now (another window may
   * have added exchanges since this one read them), newest first within the bounds. With
   * `forgetStored`, what is stored now is forgotten instead (Clear History).
   */
  private async write(forgetStored: boolean): Promise<void> {
    // A write that is queued and has not started yet will write what this store holds when it
    // starts, this change included: share it rather than queue another (many answers ending at
    // once, e.g. a query-file run, would otherwise each rewrite the whole file in turn).
    if (!forgetStored && this.queuedWrite !== undefined) {
      this.pendingWrites++;
      this.fire();
      try {
        await this.queuedWrite;
      } finally {
        this.pendingWrites--;
      }
      return;
    }
    let mergedOthers = false;
    let started = false;
    const merge = async (): Promise<void> => {
      started = true;
      if (this.queuedWrite === queued) this.queuedWrite = undefined;
      const raw = this.read();
      if (raw !== this.loadedFrom) {
        this.inWrite = true;
        let stored: Exchange[];
        try {
          stored = this.parse(raw);
        } finally {
          this.inWrite = false;
        }
        await this.keepUnreadable();
        if (forgetStored) {
          for (const entry of stored) {
            this.forgotten.add(entry.id);
          }
        }
        this.entries = this.bound(mergeNewestFirst(this.entries, stored.filter((entry) => !this.forgotten.has(entry.id))));
        mergedOthers = true;
      }
      await this.storage.update({ version: STORAGE_VERSION, exchanges: this.entries });
      try {
        this.loadedFrom = this.storage.get(this.limits.maxBytes + READ_SLACK_BYTES);
      } catch {
        this.loadedFrom = undefined;
      }
    };
    // One write at a time, in order: the last one holds the newest state.
    const next = this.writing.then(() => (this.storage.exclusive === undefined ? merge() : this.storage.exclusive(merge)));
    const queued: Promise<void> = next;
    if (!forgetStored && !started) this.queuedWrite = queued;
    this.writing = next.catch(() => undefined);
    void this.writing.then(() => {
      if (this.queuedWrite === queued) this.queuedWrite = undefined;
    });
    this.pendingWrites++;
    this.fire();
    try {
      await next;
    } finally {
      this.pendingWrites--;
    }
    if (mergedOthers) {
      this.fire();
    }
  }

  private fire(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A failing listener must not stop the others or the write.
      }
    }
  }
}

/** Two newest-first lists as one, by id (the first list's copy wins), newest first by start time. */
function mergeNewestFirst(mine: readonly Exchange[], stored: readonly Exchange[]): Exchange[] {
  const ids = new Set(mine.map((entry) => entry.id));
  const others = stored.filter((entry) => !ids.has(entry.id));
  const out: Exchange[] = [];
  let i = 0;
  let j = 0;
  while (i < mine.length || j < others.length) {
    if (j >= others.length || (i < mine.length && Date.parse(mine[i].when) >= Date.parse(others[j].when))) {
      out.push(mine[i++]);
    } else {
      out.push(others[j++]);
    }
  }
  return out;
}

const sizes = new WeakMap<Exchange, number>();

/** UTF-8 bytes of an exchange's JSON (remembered: stored exchanges are never changed). */
function serializedSize(exchange: Exchange): number {
  let size = sizes.get(exchange);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(exchange), 'utf8');
    sizes.set(exchange, size);
  }
  return size;
}

/** Halves the largest of the raw body, the answer text and the request body, flagging the cut. */
function halveLargest(exchange: Exchange): Exchange {
  const raw = exchange.response?.raw.length ?? 0;
  const text = exchange.response?.text.length ?? 0;
  const body = exchange.request.body?.length ?? 0;
  const largest = Math.max(raw, text, body);
  const half = (value: string): string => utf8Prefix(value, Math.floor(Buffer.byteLength(value, 'utf8') / 2));
  if (exchange.response !== undefined && largest === raw && raw > 0) {
    return { ...exchange, response: { ...exchange.response, raw: half(exchange.response.raw), rawTruncated: true } };
  }
  if (exchange.response !== undefined && largest === text && text > 0) {
    return { ...exchange, response: { ...exchange.response, text: half(exchange.response.text), textTruncated: true } };
  }
  if (exchange.request.body !== undefined && body > 0) {
    return { ...exchange, request: { ...exchange.request, body: half(exchange.request.body), bodyTruncated: true } };
  }
  // Nothing big is left: cut the messages and headers instead.
  return {
    ...exchange,
    outcome: { ...exchange.outcome, message: exchange.outcome.message?.slice(0, 500), warning: exchange.outcome.warning?.slice(0, 500) },
    request: { ...exchange.request, headers: {} },
    ...(exchange.response === undefined ? {} : { response: { ...exchange.response, headers: {} } }),
  };
}
