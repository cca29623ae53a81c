// What sendQuery and getJson share: one request's abort plumbing and timers, sending it, and reading
// or closing its body; the words for its failures are in failureText.ts. Internal to the client (src/client).
import { Utf8StreamDecoder } from './decode';
import { StoppedError, HttpStatusError, NetworkError, parseRetryAfter, QueryError, RedirectError, StreamInterruptedError, TimeoutError } from './errors';
import { describeCut, describeNetworkError, plainExcerpt } from './failureText';
import { maskSecrets } from '../shared/secretMask';
import { validateApiKey } from '../shared/apiKey';
import { validateBaseUrl } from '../shared/baseUrl';

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
        return new StoppedError();
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
        return new StoppedError();
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
      throw new StoppedError();
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
  /** Masked in anything an error quotes (the key). */
  readonly secrets: readonly string[];
  /** How much of a failure's body is kept for its excerpt. */
  readonly excerptBytes: number;
}

/**
 * Sends the request under the transfer's signal and headers timer, never following a redirect and
 * never sending anything from the cache, and returns the response when it is a 2xx. A 3xx becomes
 * a {@link RedirectError} naming the target, any other status an {@link HttpStatusError} with a
 * plain, masked excerpt of the body and the Retry-After wait; connection failures become
 * {@link NetworkError}, {@link TimeoutError} or {@link StoppedError}.
 */
export async function openExchange(exchange: Exchange): Promise<Response> {
  const { transfer, url } = exchange;
  if (transfer.abortedBy === 'user') {
    throw new StoppedError();
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

/** Where the service is, once its base URL and the key were checked ({@link checkService}). */
export interface ServiceTarget {
  /** The base URL as requests use it (no trailing slash). */
  readonly normalized: string;
  readonly origin: string;
  readonly apiKey: string;
}

/**
 * The checks every request to the service starts with: a usable base URL (https, or http on
 * loopback) and a key that can go in a header. Throws a `config` {@link QueryError} that never
 * names the key.
 */
export function checkService(baseUrl: string, apiKey: string): ServiceTarget {
  const base = validateBaseUrl(baseUrl);
  if (!base.ok) {
    throw new QueryError('config', base.message);
  }
  const keyProblem = validateApiKey(apiKey);
  if (keyProblem !== undefined) {
    throw new QueryError('config', `${keyProblem} Set it again with "Set API Key…".`);
  }
  return { normalized: base.normalized, origin: base.origin, apiKey };
}

/** How much of a failed response's body is read for its excerpt. */
const EXCERPT_BYTES = 64 * 1024;

/**
 * The one way a request to the service's API goes out (GET and POST alike): `{base}/api/{path}`,
 * the key only in the Authorization header, a JSON body when there is one, through
 * {@link openExchange}. Returns the 2xx response and the URL it came from.
 */
export async function openServiceRequest(request: {
  readonly target: ServiceTarget;
  /** Below `/api/`, already checked and encoded. */
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly accept: string;
  readonly body?: string;
  readonly fetchImpl?: typeof fetch;
  readonly transfer: Transfer;
  readonly secrets: readonly string[];
}): Promise<{ response: Response; url: string }> {
  const { target } = request;
  const url = `${target.normalized}/api/${request.path}`;
  const response = await openExchange({
    url,
    origin: target.origin,
    method: request.method,
    headers: { ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }), Authorization: `Bearer ${target.apiKey}`, Accept: request.accept },
    body: request.body,
    fetchImpl: request.fetchImpl,
    transfer: request.transfer,
    secrets: request.secrets,
    excerptBytes: EXCERPT_BYTES,
  });
  return { response, url };
}
