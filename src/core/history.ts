/**
 * The pure model of History: every exchange (a request as sent and the response as received),
 * recorded from any surface, kept newest first in a small key-value storage (VS Code's Memento),
 * bounded by count and size, and never holding an API key.
 */
import { randomUUID } from 'node:crypto';
import { redact } from './apiKey';
import { Utf8StreamDecoder } from './decode';
import type { StreamShape, WireFormat } from './formats';
import type { EndKind } from './outcome';

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
const MASK = '••••';

/**
 * A key as History and the inspector show it: `••••` plus its last 4 characters, or only `••••`
 * when the key is shorter than 12 characters (so at most a third of it ever shows).
 */
export function maskKey(key: string): string {
  return key.length >= 12 ? `${MASK}${key.slice(-4)}` : MASK;
}

/** Whether an Authorization value is a Bearer token as {@link maskKey} leaves it. */
function isMaskedToken(token: string): boolean {
  return token.startsWith(MASK) && token.length <= MASK.length + 4;
}

// A Bearer token, also JSON-escaped or URL-encoded in a body; stops at quotes, backslashes and separators.
const BEARER = /\b(Bearer)(\s+|%20|\+)([^\s"'<>,;\\&]+)/gi;

/**
 * Masks every `Bearer <token>` that is not masked already, and every known secret, in a text.
 * This is the guard that keeps keys out of History whatever a service echoes back.
 */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  const clean = redact(text, secrets);
  return clean.replace(BEARER, (whole, word: string, space: string, token: string) =>
    isMaskedToken(token) ? whole : `${word}${space}${maskKey(token)}`,
  );
}

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
 * {@link text} (the answer pieces), then {@link finish} once, on every path.
 */
export class ExchangeRecorder {
  private readonly rawCapture = recordingSink();
  private readonly answer = new StreamCapture(TEXT_CAP_BYTES);
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
    this.rawCapture.write(chunk);
  }

  /** The next piece of answer text. */
  text(piece: string): void {
    this.textChars += piece.length;
    this.answer.write(piece);
  }

  /** The finished, masked exchange (give it to {@link HistoryStore.add}). */
  finish(end: ExchangeEnd): Exchange {
    this.rawCapture.end();
    const secrets = this.start.secrets ?? [];
    const body = this.start.body;
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
        wireBytes: end.wireBytes ?? this.rawCapture.totalBytes,
        textChars: this.textChars,
        ...(this.start.replayOf === undefined ? {} : { replayOf: this.start.replayOf }),
      },
      secrets,
    );
  }
}

/** The little of VS Code's Memento that History needs (e.g. over `context.globalState` and one key). */
export interface HistoryStorage {
  get(): unknown;
  update(value: unknown): Promise<void>;
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

/**
 * The recorded exchanges, newest first, kept in a {@link HistoryStorage}: at most 200 of them and
 * 8 MiB of stored JSON by default (the oldest go first; one exchange too large on its own has its
 * raw body, answer text and request body cut until it fits a quarter of the size bound). Loading
 * never throws: what is not a valid exchange is dropped (see {@link problems}). Nothing stored ever
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
    this.entries = this.bound([stored, ...this.entries.filter((entry) => entry.id !== stored.id)]);
    await this.write();
    return stored;
  }

  /** Forgets every exchange. */
  async clear(): Promise<void> {
    this.sync();
    this.entries = [];
    await this.write();
  }

  /** Calls `listener` after every change (add, clear). */
  onDidChange(listener: () => void): Subscription {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Re-reads the storage when another writer (another window) changed it. */
  private sync(): void {
    let raw: unknown;
    try {
      raw = this.storage.get();
    } catch {
      raw = undefined;
    }
    // While our writes are pending the storage may still hold an older value: ours is the newest.
    if (this.loaded && (this.pendingWrites > 0 || raw === this.loadedFrom)) {
      return;
    }
    this.loaded = true;
    this.loadedFrom = raw;
    this.entries = this.bound(this.parse(raw));
  }

  private parse(raw: unknown): Exchange[] {
    if (raw === undefined || raw === null) {
      return [];
    }
    if (!isRecord(raw) || raw['version'] !== STORAGE_VERSION || !Array.isArray(raw['exchanges'])) {
      this.problems.push('The stored history was not in a known form; it starts empty.');
      return [];
    }
    const out: Exchange[] = [];
    const seen = new Set<string>();
    let dropped = 0;
    for (const item of raw['exchanges'] as unknown[]) {
      const exchange = parseExchange(item);
      if (exchange === undefined || seen.has(exchange.id)) {
        dropped++;
        continue;
      }
      seen.add(exchange.id);
      out.push(this.fit(scrubExchange(exchange, [])));
    }
    if (dropped > 0) {
      this.problems.push(`${dropped} stored history ${dropped === 1 ? 'entry was' : 'entries were'} not valid and ${dropped === 1 ? 'was' : 'were'} dropped.`);
    }
    return out;
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

  private async write(): Promise<void> {
    const value = { version: STORAGE_VERSION, exchanges: this.entries };
    // One write at a time, in order: the last one holds the newest state.
    const next = this.writing.then(() => this.storage.update(value));
    this.writing = next.catch(() => undefined);
    this.pendingWrites++;
    this.fire();
    try {
      await next;
    } finally {
      this.pendingWrites--;
      if (this.pendingWrites === 0) {
        // Whatever the storage returns now is what we wrote (a copy, maybe): no need to read it again.
        try {
          this.loadedFrom = this.storage.get();
        } catch {
          this.loadedFrom = undefined;
        }
      }
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
