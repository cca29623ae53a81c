// What sendQuery and getJson share: one request's abort plumbing and timers, and turning fetch's
// failures into plain-language errors. Internal to the client (src/client).
import { Utf8StreamDecoder } from './decode';
import { AbortedError, HttpStatusError, NetworkError, parseRetryAfter, RedirectError, StreamInterruptedError, TimeoutError, type QueryError } from './errors';
import { mediaType } from './formats';
import { maskCutText, maskSecrets } from '../shared/secretMask';

/** Why a request's connection was aborted by us: the user, a timeout, or because we are done with it. */
export type AbortCause = 'user' | 'headers' | 'idle' | 'done';

/**
 * One request in flight: links the caller's AbortSignal to the fetch, runs the headers and idle
 * timers, and counts body bytes. `dispose` clears everything; it is safe to call more than once.
 */
export class Transfer {
  /** The signal given to fetch. */
  readonly controller = new AbortController();
  /** Set once, by the first abort. */
  abortedBy: AbortCause | undefined;
  /** Body bytes received so far. */
  bytes = 0;
  private headersTimer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private reading = false;
  private readStartedAt = 0;
  private disposed = false;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly headersTimeoutMs: number,
    private readonly idleTimeoutMs: number,
  ) {
    if (signal?.aborted === true) {
      this.abort('user');
    } else {
      signal?.addEventListener('abort', this.onUserAbort, { once: true });
    }
  }

  /** Aborts the connection (the first cause wins). */
  abort(cause: AbortCause): void {
    if (this.abortedBy !== undefined) {
      return;
    }
    this.abortedBy = cause;
    this.controller.abort(new Error(`aborted: ${cause}`));
    if (cause !== 'done') {
      this.clearTimers();
    }
  }

  /** Starts the wait for response headers. */
  startHeaders(): void {
    if (this.headersTimeoutMs > 0 && this.abortedBy === undefined) {
      this.headersTimer = setTimeout(() => this.abort('headers'), this.headersTimeoutMs);
    }
  }

  /** The response headers arrived (or fetch failed). */
  stopHeaders(): void {
    if (this.headersTimer !== undefined) {
      clearTimeout(this.headersTimer);
      this.headersTimer = undefined;
    }
  }

  /** A body read starts: the idle clock runs until {@link endRead}. */
  beginRead(): void {
    this.reading = true;
    if (this.idleTimeoutMs > 0) {
      // One timer for many reads: it checks the clock when it fires instead of being reset per chunk.
      this.readStartedAt = Date.now();
      if (this.idleTimer === undefined && !this.disposed) {
        this.idleTimer = setTimeout(this.onIdleTimer, this.idleTimeoutMs);
      }
    }
  }

  /** A body read finished. */
  endRead(): void {
    this.reading = false;
  }

  /** Clears the timers and unlinks the caller's signal. */
  dispose(): void {
    this.disposed = true;
    this.clearTimers();
    this.signal?.removeEventListener('abort', this.onUserAbort);
  }

  /** The error for a fetch that failed before any response. */
  connectError(error: unknown, origin: string): QueryError {
    switch (this.abortedBy) {
      case 'user':
        return new AbortedError();
      case 'headers':
        return new TimeoutError('headers', this.headersTimeoutMs / 1000);
      case 'idle':
        return new TimeoutError('idle', this.idleTimeoutMs / 1000);
      default:
        return new NetworkError(describeNetworkError(error, origin), { cause: error });
    }
  }

  /** The error for a body read that failed. */
  bodyError(error: unknown): QueryError {
    switch (this.abortedBy) {
      case 'user':
        return new AbortedError();
      case 'idle':
        return new TimeoutError('idle', this.idleTimeoutMs / 1000);
      case 'headers':
        return new TimeoutError('headers', this.headersTimeoutMs / 1000);
      default:
        return new StreamInterruptedError(this.bytes, describeCut(error), { cause: error });
    }
  }

  private readonly onUserAbort = (): void => {
    this.abort('user');
  };

  private readonly onIdleTimer = (): void => {
    this.idleTimer = undefined;
    if (!this.reading || this.disposed) {
      return;
    }
    const elapsed = Date.now() - this.readStartedAt;
    if (elapsed >= this.idleTimeoutMs) {
      this.abort('idle');
    } else {
      this.idleTimer = setTimeout(this.onIdleTimer, this.idleTimeoutMs - elapsed);
    }
  };

  private clearTimers(): void {
    this.stopHeaders();
    if (this.idleTimer !== undefined) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
  }
}

/**
 * Reads at most `limit` bytes of a body as text, then closes it. Failures while reading end the
 * read quietly: this is for error excerpts, where some text beats none.
 */
export async function readLimitedText(
  body: ReadableStream<Uint8Array> | null,
  transfer: Transfer,
  limit: number,
): Promise<{ text: string; complete: boolean }> {
  if (body === null) {
    return { text: '', complete: true };
  }
  const reader = body.getReader();
  const decoder = new Utf8StreamDecoder();
  let text = '';
  let complete = false;
  try {
    while (transfer.bytes < limit) {
      transfer.beginRead();
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } finally {
        transfer.endRead();
      }
      if (result.done) {
        complete = true;
        break;
      }
      const room = limit - transfer.bytes;
      const chunk = result.value.byteLength > room ? result.value.subarray(0, room) : result.value;
      transfer.bytes += chunk.byteLength;
      text += decoder.push(chunk);
    }
  } catch {
    if (transfer.abortedBy === 'user') {
      throw new AbortedError();
    }
  } finally {
    if (!complete) {
      transfer.abort('done');
      void reader.cancel().catch(() => undefined);
    }
  }
  return { text: text + decoder.end().text, complete };
}

/** Closes a response body we will not read. */
export function discardBody(body: ReadableStream<Uint8Array> | null, transfer: Transfer): void {
  transfer.abort('done');
  if (body !== null) {
    void body.cancel().catch(() => undefined);
  }
}

const EXCERPT_LENGTH = 500;

/**
 * An error body as one line of plain text (at most 500 characters): HTML is reduced to its text,
 * a JSON error object to its message, control characters and runs of spaces to one space. The
 * `secrets` are masked in any encoded form before anything is cut, also at the end of a body that
 * was read only up to a limit (see {@link maskCutText}).
 */
export function plainExcerpt(text: string, contentType: string, secrets: readonly string[] = []): string {
  const type = mediaType(contentType);
  const source = maskCutText(text, secrets);
  let plain = source;
  if (type === 'text/html' || type === 'application/xhtml+xml' || /^\s*<(!doctype\s+html|html|head|body)\b/i.test(source)) {
    plain = decodeEntities(
      source
        .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
        .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
        .replace(/<[^>]*>?/g, ' '),
    );
  } else {
    const message = jsonErrorMessage(source);
    if (message !== undefined) {
      plain = message;
    }
  }
  // eslint-disable-next-line no-control-regex
  plain = plain.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim();
  // Decoding entities or a JSON string may have spelled out a key the encoded body hid.
  plain = maskCutText(plain, secrets);
  return plain.length > EXCERPT_LENGTH ? `${plain.slice(0, EXCERPT_LENGTH - 1)}…` : plain;
}

function jsonErrorMessage(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const error = record['error'];
  const candidates: unknown[] = [
    typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['message'] : error,
    record['message'],
    record['detail'],
    record['error_description'],
    record['title'],
  ];
  const found = candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate.trim() !== '');
  return found;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The first error code found along an error's cause chain (AggregateError members included). */
function findCode(error: unknown, depth = 0): { code: string; message: string } | undefined {
  if (depth > 8 || typeof error !== 'object' || error === null) {
    return undefined;
  }
  const record = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string') {
    return { code: record.code, message: typeof record.message === 'string' ? record.message : record.code };
  }
  const fromCause = findCode(record.cause, depth + 1);
  if (fromCause !== undefined) {
    return fromCause;
  }
  if (Array.isArray(record.errors)) {
    for (const member of record.errors) {
      const found = findCode(member, depth + 1);
      if (found !== undefined) {
        return found;
      }
    }
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let current: unknown = error;
  let message = 'unknown error';
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const record = current as { message?: unknown; cause?: unknown };
    if (typeof record.message === 'string' && record.message !== '') {
      message = record.message;
    }
    current = record.cause;
  }
  if (typeof error === 'string') {
    message = error;
  }
  return message;
}

const TLS_CODES = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH)/;

/** A plain-language sentence for a fetch that got no response. */
export function describeNetworkError(error: unknown, origin: string): string {
  const found = findCode(error);
  if (found === undefined) {
    return `The request to ${origin} failed: ${innermostMessage(error)}.`;
  }
  const host = hostOf(origin);
  switch (found.code) {
    case 'ECONNREFUSED':
      return `Could not connect to ${origin} (connection refused). Is the service running, and is applicationQuery.baseUrl right?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `Could not find the host ${host} (DNS lookup failed). Check applicationQuery.baseUrl and your network connection.`;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return `The connection to ${origin} was closed before the service answered (${found.message}).`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `Connecting to ${origin} timed out. Check applicationQuery.baseUrl, your network and any proxy settings.`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return `${origin} cannot be reached from this machine (${found.code}). Check your network connection.`;
    default:
      if (TLS_CODES.test(found.code)) {
        return `The secure connection to ${origin} failed: its certificate is not trusted (${found.code}: ${found.message}).`;
      }
      return `The request to ${origin} failed (${found.code}: ${found.message}).`;
  }
}

function describeCut(error: unknown): string {
  const found = findCode(error);
  if (found === undefined) {
    return `${innermostMessage(error)}.`;
  }
  switch (found.code) {
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'the service closed the connection before the answer was complete.';
    case 'ECONNRESET':
      return 'the connection was reset.';
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'the answer was shorter than the service announced.';
    default:
      return `${found.message} (${found.code}).`;
  }
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
}

/** Makes sure an error leaving the core names no secret: masks them in its message (and excerpt). */
export function sanitizeError(error: unknown, secrets: readonly string[]): unknown {
  if (error instanceof Error) {
    const clean = maskSecrets(error.message, secrets);
    if (clean !== error.message) {
      error.message = clean;
    }
    return error;
  }
  return typeof error === 'string' ? maskSecrets(error, secrets) : error;
}

/** One request as both clients send it. */
export interface Exchange {
  readonly url: string;
  /** The base URL's origin, for the connection error messages. */
  readonly origin: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly fetchImpl?: typeof fetch;
  readonly transfer: Transfer;
  /** Redacted from anything an error quotes (the key). */
  readonly secrets: readonly string[];
  /** How much of a failure's body is kept for its excerpt. */
  readonly excerptBytes: number;
}

/**
 * Sends the request under the transfer's signal and headers timer, never following a redirect and
 * never sending anything from the cache, and returns the response when it is a 2xx. A 3xx becomes
 * a {@link RedirectError} naming the target, any other status an {@link HttpStatusError} with a
 * plain, redacted excerpt of the body and the Retry-After wait; connection failures become
 * {@link NetworkError}, {@link TimeoutError} or {@link AbortedError}.
 */
export async function openExchange(exchange: Exchange): Promise<Response> {
  const { transfer, url } = exchange;
  if (transfer.abortedBy === 'user') {
    throw new AbortedError();
  }
  const fetchImpl = exchange.fetchImpl ?? globalThis.fetch;
  let response: Response;
  transfer.startHeaders();
  try {
    response = await fetchImpl(url, {
      method: exchange.method,
      headers: exchange.headers,
      body: exchange.body,
      redirect: 'manual',
      signal: transfer.controller.signal,
    });
  } catch (error) {
    throw transfer.connectError(error, exchange.origin);
  } finally {
    transfer.stopHeaders();
  }
  const { status, headers } = response;
  // 304 carries no target: it is a (misplaced) cache answer, not a redirect.
  if (response.type === 'opaqueredirect' || (status >= 300 && status < 400 && status !== 304)) {
    discardBody(response.body, transfer);
    throw new RedirectError(status, resolveLocation(headers.get('location'), url, exchange.secrets));
  }
  if (status < 200 || status >= 300) {
    const { text } = await readLimitedText(response.body, transfer, exchange.excerptBytes);
    // plainExcerpt masks the whole body (also a key cut at the read limit) before it cuts the excerpt.
    const excerpt = plainExcerpt(text, headers.get('content-type') ?? '', exchange.secrets);
    const statusText = maskSecrets(response.statusText, exchange.secrets);
    throw new HttpStatusError(status, statusText, excerpt, parseRetryAfter(headers.get('retry-after')));
  }
  return response;
}

/** A redirect's Location as an absolute URL (relative to the request), masked; as sent (masked) when it held a key. */
function resolveLocation(location: string | null, requestUrl: string, secrets: readonly string[]): string | undefined {
  if (location === null || location.trim() === '') {
    return undefined;
  }
  // Resolving rewrites characters (`\` becomes `/`, quotes are encoded), which could hide a key from the mask.
  const masked = maskSecrets(location.trim(), secrets);
  if (masked !== location.trim()) {
    return masked;
  }
  let resolved: string;
  try {
    resolved = new URL(location.trim(), requestUrl).href;
  } catch {
    resolved = location.trim();
  }
  return maskSecrets(resolved, secrets);
}
