/**
 * The pure model of History: every exchange (a request as sent and the response as received),
 * recorded from any surface, kept newest first in a small key-value storage (VS Code's Memento),
 * bounded by count and size, and never holding an API key.
 */
import { randomUUID } from 'node:crypto';
import { Utf8StreamDecoder } from './decode';
import type { StreamShape, WireFormat } from './formats';
import type { EndKind } from '../shared/outcome';
import { isMaskedToken, maskKey, maskSecrets, SecretStreamMasker } from '../shared/secretMask';

/** Where an exchange was started. */
export type Surface = 'command' | 'panel' | 'chat' | 'participant' | 'model' | 'tool' | 'replay';

/** The request as it was sent, the key masked. */
export interface RecordedRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /** The headers as sent; `Authorization` is `Bearer ••••` plus the key's last 4 characters. */
  readonly headers: Readonly<Record<string, string>>;
  /** The rendered JSON body text exactly as sent (absent for a GET). */
  readonly body?: string;
  /** Set when the body was longer than {@link REQUEST_BODY_CAP_BYTES} and only its start is kept: it cannot be replayed. */
  readonly bodyTruncated?: boolean;
}

/** The response as it was received; absent from an exchange that got none (refused, DNS, timeout before headers). */
export interface RecordedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The detected (or configured) wire format, once the body was read as an answer. */
  readonly format?: WireFormat;
  /** Whose event shape the answer used, when it tells ({@link detectStreamShape}). */
  readonly shape?: StreamShape;
  /** The body as it came over the wire, decoded as UTF-8, up to {@link RAW_BODY_CAP_BYTES}. */
  readonly raw: string;
  /** Whether more of the body came than `raw` holds (the full size is the exchange's `wireBytes`). */
  readonly rawTruncated: boolean;
  /** The answer text extracted from the body, up to {@link TEXT_CAP_BYTES}. */
  readonly text: string;
  /** Whether more answer text came than `text` holds (the full length is the exchange's `textChars`). */
  readonly textTruncated: boolean;
}

/** How the exchange ended, in the words every surface uses ({@link EndKind}). */
export interface RecordedOutcome {
  readonly kind: EndKind;
  /** Plain-language description of anything but a clean `done`. */
  readonly message?: string;
  /** A warning about a complete answer (a cut character, no text extracted…). */
  readonly warning?: string;
  /** The body had bytes but no answer text could be extracted from them: offer the raw response and `responseField`. */
  readonly noTextExtracted?: boolean;
}

/** Milliseconds from the moment the request was sent. */
export interface RecordedTimings {
  /** Until the response headers arrived. */
  readonly headersMs?: number;
  /** Until the first byte of the body arrived. */
  readonly firstByteMs?: number;
  /** Until the exchange ended, however it ended. */
  readonly durationMs: number;
}

/** One recorded exchange. Holds no API key: see {@link HistoryStore.add}. */
export interface Exchange {
  readonly id: string;
  /** When the request was sent (ISO 8601). */
  readonly when: string;
  readonly applicationId: string;
  /** The application's name as the user saw it then. */
  readonly applicationLabel: string;
  readonly surface: Surface;
  readonly request: RecordedRequest;
  readonly response?: RecordedResponse;
  readonly outcome: RecordedOutcome;
  readonly timings: RecordedTimings;
  /** Body bytes received on the wire (all of them, also those past the raw cap). */
  readonly wireBytes: number;
  /** Characters of answer text delivered (UTF-16 code units, all of them). */
  readonly textChars: number;
  /** The exchange this one replayed, if it is a replay. */
  readonly replayOf?: string;
}

/** Most exchanges kept: the oldest go first. */
export const HISTORY_MAX_ENTRIES = 200;
/** Most serialized size kept (UTF-8 bytes of the stored JSON): the oldest exchanges go first. */
export const HISTORY_MAX_BYTES = 8 * 1024 * 1024;
/** How much of a request body is kept (UTF-8 bytes); a longer one is kept cut and cannot be replayed. */
export const REQUEST_BODY_CAP_BYTES = 1024 * 1024;
/** How much of a raw response body is kept (UTF-8 bytes). */
export const RAW_BODY_CAP_BYTES = 512 * 1024;
/** How much extracted answer text is kept (UTF-8 bytes). */
export const TEXT_CAP_BYTES = 512 * 1024;

const SURFACES: ReadonlySet<string> = new Set(['command', 'panel', 'chat', 'participant', 'model', 'tool', 'replay']);
const END_KINDS: ReadonlySet<string> = new Set(['done', 'stopped', 'interrupted', 'error']);
const WIRE_FORMATS: ReadonlySet<string> = new Set(['text', 'sse', 'ndjson', 'vercel-data']);
// Masking lives in secretMask.ts; these stay importable from here, where History's callers look.
export { maskKey, maskSecrets };

/** The request headers of a query as History records them: the key masked, the rest as sent. */
export function maskHeaders(headers: Readonly<Record<string, string>>, secrets: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization') {
      const parts = /^(\S+)\s+(.*)$/.exec(value.trim());
      const token = parts === null ? value.trim() : parts[2];
      const masked = isMaskedToken(token) ? token : maskKey(token);
      out[name] = parts === null ? masked : `${parts[1]} ${masked}`;
    } else {
      out[name] = maskSecrets(value, secrets);
    }
  }
  return out;
}

/** Response headers (a fetch `Headers` or a plain record) as a plain record, for recording. */
export function headersRecord(headers: Iterable<[string, string]> | Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Symbol.iterator in headers ? headers : Object.entries(headers);
  for (const [name, value] of entries) {
    out[name] = value;
  }
  return out;
}

/** Whether an exchange's request can be sent again exactly (its whole body was kept). */
export function isReplayable(exchange: Exchange): boolean {
  return exchange.request.bodyTruncated !== true;
}

/**
 * Keeps the start of a stream as it flows by, up to a cap in UTF-8 bytes, never ending inside a
 * character, and counts all of it. Tee the raw body (`QueryRequest.onRaw` text, or bytes) or the
 * answer text into it; past the cap it only counts.
 */
export class StreamCapture {
  private readonly parts: string[] = [];
  private kept = 0;
  private bytes = 0;
  private chars = 0;
  private full = false;
  private decoder: Utf8StreamDecoder | undefined;

  constructor(readonly capBytes: number) {}

  /** Adds the next piece: decoded text, or raw bytes (decoded here, characters split across chunks joined). */
  write(chunk: string | Uint8Array): void {
    if (typeof chunk === 'string') {
      this.bytes += Buffer.byteLength(chunk, 'utf8');
      this.keep(chunk);
      return;
    }
    this.bytes += chunk.byteLength;
    if (!this.full) {
      this.decoder ??= new Utf8StreamDecoder();
      this.keep(this.decoder.push(chunk));
    }
  }

  /** Flushes a character the bytes left incomplete (it becomes U+FFFD). */
  end(): void {
    if (this.decoder !== undefined && !this.full) {
      this.keep(this.decoder.end().text);
    }
    this.decoder = undefined;
  }

  /** The kept start of the stream. */
  get text(): string {
    if (this.parts.length > 1) {
      this.parts.splice(0, this.parts.length, this.parts.join(''));
    }
    return this.parts[0] ?? '';
  }

  /** Whether more came than {@link text} holds. */
  get truncated(): boolean {
    return this.full;
  }

  /** UTF-8 bytes seen, kept or not (for bytes written as bytes: exactly those). */
  get totalBytes(): number {
    return this.bytes;
  }

  /** Characters kept (UTF-16 code units). */
  get keptChars(): number {
    return this.chars;
  }

  private keep(text: string): void {
    if (this.full || text === '') {
      return;
    }
    const size = Buffer.byteLength(text, 'utf8');
    if (this.kept + size <= this.capBytes) {
      this.parts.push(text);
      this.kept += size;
      this.chars += text.length;
      return;
    }
    const head = utf8Prefix(text, this.capBytes - this.kept);
    if (head !== '') {
      this.parts.push(head);
      this.kept += Buffer.byteLength(head, 'utf8');
      this.chars += head.length;
    }
    this.full = true;
  }
}

/** A {@link StreamCapture} for a raw response body, capped at {@link RAW_BODY_CAP_BYTES}. */
export function recordingSink(capBytes: number = RAW_BODY_CAP_BYTES): StreamCapture {
  return new StreamCapture(capBytes);
}

/** The longest start of `text` whose UTF-8 form fits in `maxBytes`, never splitting a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) {
    return '';
  }
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) {
    return text;
  }
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) {
    end--;
  }
  return bytes.subarray(0, end).toString('utf8');
}

/** What starts a recording: the request as it is about to be sent. */
export interface ExchangeStart {
  readonly applicationId: string;
  readonly applicationLabel: string;
  readonly surface: Surface;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /** The headers about to be sent, key included: they are masked here. */
  readonly headers: Readonly<Record<string, string>>;
  /** The rendered JSON body text. */
  readonly body?: string;
  /** Masked wherever they appear (the API key). */
  readonly secrets?: readonly string[];
  readonly replayOf?: string;
}

/** How the recorded exchange ended; counts are the query's own (they include what the caps cut). */
export interface ExchangeEnd extends RecordedOutcome {
  /** Body bytes on the wire (`QueryResponse.bytesReceived()`); defaults to what the raw capture counted. */
  readonly wireBytes?: number;
}

/**
 * Records one exchange as it happens, timing it with `now` (ms). Call {@link headers} when the
 * response starts, feed {@link raw} (the wire text: `onRaw: (t) => recorder.raw(t)`) and
 * {@link text} (the answer pieces), then {@link finish} once, on every path. The raw body and the
 * answer pass a {@link SecretStreamMasker} before their capture caps, so no cut keeps a piece of a key.
 */
export class ExchangeRecorder {
  private readonly rawCapture = recordingSink();
  private readonly answer = new StreamCapture(TEXT_CAP_BYTES);
  private readonly rawMasker: SecretStreamMasker;
  private readonly answerMasker: SecretStreamMasker;
  private rawDecoder: Utf8StreamDecoder | undefined;
  private wireBytes = 0;
  private readonly startedAt: number;
  private readonly when: string;
  private response: Omit<RecordedResponse, 'raw' | 'rawTruncated' | 'text' | 'textTruncated'> | undefined;
  private headersMs: number | undefined;
  private firstByteMs: number | undefined;
  private textChars = 0;

  constructor(
    private readonly start: ExchangeStart,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.when = new Date(this.startedAt).toISOString();
    this.rawMasker = new SecretStreamMasker(start.secrets ?? []);
    this.answerMasker = new SecretStreamMasker(start.secrets ?? []);
  }

  /** The response headers arrived (also for an error status). */
  headers(status: number, statusText: string, headers: Iterable<[string, string]> | Readonly<Record<string, string>>, format?: WireFormat): void {
    this.headersMs ??= this.now() - this.startedAt;
    this.response = { status, statusText, headers: headersRecord(headers), format };
  }

  /** The detected format and shape, when known later than the headers. */
  format(format: WireFormat, shape?: StreamShape): void {
    if (this.response !== undefined) {
      this.response = { ...this.response, format, shape };
    }
  }

  /** The next raw wire text or bytes of the body (the first one times the first byte). */
  raw(chunk: string | Uint8Array): void {
    if (this.firstByteMs === undefined && (typeof chunk === 'string' ? chunk.length : chunk.byteLength) > 0) {
      this.firstByteMs = this.now() - this.startedAt;
    }
    if (typeof chunk === 'string') {
      this.wireBytes += Buffer.byteLength(chunk, 'utf8');
      // Past the cap nothing more is kept, so nothing more needs masking: only counting.
      if (!this.rawCapture.truncated) this.rawCapture.write(this.rawMasker.push(chunk));
      return;
    }
    this.wireBytes += chunk.byteLength;
    if (!this.rawCapture.truncated) {
      this.rawDecoder ??= new Utf8StreamDecoder();
      this.rawCapture.write(this.rawMasker.push(this.rawDecoder.push(chunk)));
    }
  }

  /** The next piece of answer text. */
  text(piece: string): void {
    this.textChars += piece.length;
    if (!this.answer.truncated) this.answer.write(this.answerMasker.push(piece));
  }

  /** The finished, masked exchange (give it to {@link HistoryStore.add}). */
  finish(end: ExchangeEnd): Exchange {
    if (this.rawDecoder !== undefined) this.rawCapture.write(this.rawMasker.push(this.rawDecoder.end().text));
    this.rawCapture.write(this.rawMasker.end());
    this.rawCapture.end();
    this.answer.write(this.answerMasker.end());
    const secrets = this.start.secrets ?? [];
    // Masked before it is cut: a cut must never keep the start of a key.
    const body = this.start.body === undefined ? undefined : maskSecrets(this.start.body, secrets);
    const keptBody = body === undefined ? undefined : utf8Prefix(body, REQUEST_BODY_CAP_BYTES);
    const request: RecordedRequest = {
      method: this.start.method,
      url: this.start.url,
      headers: maskHeaders(this.start.headers, secrets),
      ...(keptBody === undefined ? {} : { body: keptBody }),
      ...(keptBody !== undefined && keptBody.length < (body ?? '').length ? { bodyTruncated: true } : {}),
    };
    const response: RecordedResponse | undefined =
      this.response === undefined
        ? undefined
        : { ...this.response, raw: this.rawCapture.text, rawTruncated: this.rawCapture.truncated, text: this.answer.text, textTruncated: this.answer.truncated };
    return scrubExchange(
      {
        id: randomUUID(),
        when: this.when,
        applicationId: this.start.applicationId,
        applicationLabel: this.start.applicationLabel,
        surface: this.start.surface,
        request,
        ...(response === undefined ? {} : { response }),
        outcome: dropUndefined({ kind: end.kind, message: end.message, warning: end.warning, noTextExtracted: end.noTextExtracted }),
        timings: dropUndefined({ headersMs: this.headersMs, firstByteMs: this.firstByteMs, durationMs: Math.max(0, this.now() - this.startedAt) }),
        wireBytes: end.wireBytes ?? this.wireBytes,
        textChars: this.textChars,
        ...(this.start.replayOf === undefined ? {} : { replayOf: this.start.replayOf }),
      },
      secrets,
    );
  }
}

/**
 * Stored History as JSON text, as a file storage reads it: at most the bytes asked for, so a huge
 * or hostile file is never read or parsed whole (`complete` is false when the file was longer).
 */
export class StoredHistoryText {
  constructor(
    readonly text: string,
    readonly complete: boolean,
    readonly totalBytes: number,
  ) {}
}

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
    let mergedOthers = false;
    const merge = async (): Promise<void> => {
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
    this.writing = next.catch(() => undefined);
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

/**
 * The elements of the JSON array that starts at `start` in `text`, parsed one at a time, until the
 * array or the text ends (an element cut off at the end of the text is left out). Stops at the
 * first element that is not valid JSON.
 */
function* jsonArrayElements(text: string, start: number): Generator<unknown> {
  let i = start;
  const length = text.length;
  for (;;) {
    while (i < length && /[\s,]/.test(text[i])) {
      i++;
    }
    if (i >= length || text[i] === ']') {
      return;
    }
    const begin = i;
    let depth = 0;
    let inString = false;
    for (; i < length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) {
          i++;
        } else if (c === 0x22) {
          inString = false;
        }
      } else if (c === 0x22) {
        inString = true;
      } else if (c === 0x7b || c === 0x5b) {
        depth++;
      } else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      } else if (depth === 0 && c === 0x2c) {
        break;
      }
    }
    if (depth !== 0 || inString) {
      return;
    }
    try {
      yield JSON.parse(text.slice(begin, i)) as unknown;
    } catch {
      return;
    }
  }
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

/** A copy of a JSON-like value with {@link maskSecrets} applied to every string in it (keys of objects too). */
export function maskSecretsIn<T>(value: T, secrets: readonly string[] = []): T {
  return mapStrings(value, (text) => maskSecrets(text, secrets)) as T;
}

/** The exchange with every string masked ({@link maskSecrets}) and the Authorization header in its masked form. */
function scrubExchange(exchange: Exchange, secrets: readonly string[]): Exchange {
  const scrubbed = maskSecretsIn(exchange, secrets);
  return { ...scrubbed, request: { ...scrubbed.request, headers: maskHeaders(scrubbed.request.headers, secrets) } };
}

function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') {
    return fn(value);
  }
  if (Array.isArray(value)) {
    return value.map((item) => mapStrings(item, fn));
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[fn(key)] = mapStrings(item, fn);
    }
    return out;
  }
  return value;
}

/** Reads one stored exchange, or `undefined` when it is not a valid one. Never throws. */
export function parseExchange(value: unknown): Exchange | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const { id, when, applicationId, applicationLabel, surface, request, response, outcome, timings, wireBytes, textChars, replayOf } = value;
  if (
    !isString(id) ||
    id === '' ||
    !isString(when) ||
    Number.isNaN(Date.parse(when)) ||
    !isString(applicationId) ||
    !isString(applicationLabel) ||
    !isString(surface) ||
    !SURFACES.has(surface) ||
    !isCount(wireBytes) ||
    !isCount(textChars) ||
    (replayOf !== undefined && !isString(replayOf))
  ) {
    return undefined;
  }
  const req = parseRequest(request);
  const out = parseOutcome(outcome);
  const time = parseTimings(timings);
  const res = response === undefined ? undefined : parseResponse(response);
  if (req === undefined || out === undefined || time === undefined || (response !== undefined && res === undefined)) {
    return undefined;
  }
  return {
    id,
    when,
    applicationId,
    applicationLabel,
    surface: surface as Surface,
    request: req,
    ...(res === undefined ? {} : { response: res }),
    outcome: out,
    timings: time,
    wireBytes,
    textChars,
    ...(replayOf === undefined ? {} : { replayOf }),
  };
}

function parseRequest(value: unknown): RecordedRequest | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const { method, url, headers, body, bodyTruncated } = value;
  if ((method !== 'GET' && method !== 'POST') || !isString(url) || !isStringRecord(headers) || (body !== undefined && !isString(body))) {
    return undefined;
  }
  return { method, url, headers, ...(body === undefined ? {} : { body }), ...(bodyTruncated === true ? { bodyTruncated: true } : {}) };
}

function parseResponse(value: unknown): RecordedResponse | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const { status, statusText, headers, format, shape, raw, rawTruncated, text, textTruncated } = value;
  if (
    !isCount(status) ||
    !isString(statusText) ||
    !isStringRecord(headers) ||
    (format !== undefined && !(isString(format) && WIRE_FORMATS.has(format))) ||
    (shape !== undefined && !isString(shape)) ||
    !isString(raw) ||
    typeof rawTruncated !== 'boolean' ||
    !isString(text) ||
    typeof textTruncated !== 'boolean'
  ) {
    return undefined;
  }
  return dropUndefined({
    status,
    statusText,
    headers,
    format: format as WireFormat | undefined,
    shape: shape as StreamShape | undefined,
    raw,
    rawTruncated,
    text,
    textTruncated,
  });
}

function parseOutcome(value: unknown): RecordedOutcome | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const { kind, message, warning, noTextExtracted } = value;
  if (!isString(kind) || !END_KINDS.has(kind) || (message !== undefined && !isString(message)) || (warning !== undefined && !isString(warning))) {
    return undefined;
  }
  return dropUndefined({ kind: kind as EndKind, message, warning, noTextExtracted: noTextExtracted === true ? true : undefined });
}

function parseTimings(value: unknown): RecordedTimings | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const { headersMs, firstByteMs, durationMs } = value;
  if (!isCount(durationMs) || (headersMs !== undefined && !isCount(headersMs)) || (firstByteMs !== undefined && !isCount(firstByteMs))) {
    return undefined;
  }
  return dropUndefined({ headersMs, firstByteMs, durationMs });
}

function dropUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) {
      out[key] = item;
    }
  }
  return out as T;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every(isString);
}
