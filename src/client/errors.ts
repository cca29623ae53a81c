/** What went wrong with a request, as one word the UI can switch on. */
export type QueryErrorKind =
  | 'http'
  | 'redirect'
  | 'timeout'
  | 'interrupted'
  | 'stopped'
  | 'network'
  | 'unexpectedContent'
  | 'format'
  | 'invalidJson'
  | 'config';

/** The base of every error the core throws; `message` is plain language, fit for a notification. */
export class QueryError extends Error {
  /** What went wrong. */
  readonly kind: QueryErrorKind;

  constructor(kind: QueryErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.name = new.target.name;
  }
}

/** The service answered with a non-success HTTP status. */
export class HttpStatusError extends QueryError {
  /** The numeric HTTP status. */
  readonly status: number;
  /** The reason phrase the service sent (may be empty over HTTP/2). */
  readonly statusText: string;
  /** The start of the response body as plain text (at most 500 characters, no control characters). */
  readonly bodyExcerpt: string;
  /** How long the service asked us to wait (Retry-After), in milliseconds. */
  readonly retryAfterMs?: number;

  constructor(status: number, statusText: string, bodyExcerpt: string, retryAfterMs?: number) {
    super('http', httpStatusMessage(status, statusText, bodyExcerpt, retryAfterMs));
    this.status = status;
    this.statusText = statusText;
    this.bodyExcerpt = bodyExcerpt;
    if (retryAfterMs !== undefined) {
      this.retryAfterMs = retryAfterMs;
    }
  }
}

/** The service answered with a redirect; it was not followed so the key goes nowhere else. */
export class RedirectError extends QueryError {
  /** The 3xx status. */
  readonly status: number;
  /** The absolute redirect target, when the service named one. */
  readonly location: string | undefined;

  constructor(status: number, location: string | undefined) {
    super(
      'redirect',
      `HTTP ${status}: the service redirected the request to ${location ?? 'an unnamed location'}. ` +
        'Redirects are not followed, so your API key is never sent anywhere else. ' +
        'If that address is the right service, set applicationQuery.baseUrl to it.',
    );
    this.status = status;
    this.location = location;
  }
}

/** Nothing arrived in time: either no response headers, or no body bytes for too long. */
export class TimeoutError extends QueryError {
  /** `headers`: waiting for the response to start; `idle`: waiting for more of the body. */
  readonly phase: 'headers' | 'idle';
  /** The limit that was reached, in seconds. */
  readonly seconds: number;

  constructor(phase: 'headers' | 'idle', seconds: number) {
    super(
      'timeout',
      phase === 'headers'
        ? `The service did not start answering within ${formatSeconds(seconds)} (applicationQuery.headersTimeoutSeconds).`
        : `The answer stalled: nothing arrived for ${formatSeconds(seconds)} (applicationQuery.idleTimeoutSeconds). What arrived is kept.`,
    );
    this.phase = phase;
    this.seconds = seconds;
  }
}

/** The connection broke while the answer was streaming; what arrived before is kept. */
export class StreamInterruptedError extends QueryError {
  /** Body bytes received before the cut. */
  readonly bytesReceived: number;

  constructor(bytesReceived: number, cause: string, options?: { cause?: unknown }) {
    super('interrupted', `The answer was interrupted after ${bytesReceived} bytes: ${cause}`, options);
    this.bytesReceived = bytesReceived;
  }
}

/** The user stopped the request. Not a failure: what arrived is kept and shown as stopped. */
export class StoppedError extends QueryError {
  constructor(message = 'The request was stopped.') {
    super('stopped', message);
  }
}

/** The request never got a response: connection refused, DNS, TLS, proxy… The message names the cause. */
export class NetworkError extends QueryError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('network', message, options);
  }
}

/** The service answered 2xx with something that is not an answer (e.g. an HTML login page). */
export class UnexpectedContentError extends QueryError {
  /** The Content-Type the service sent. */
  readonly contentType: string;

  constructor(contentType: string, message: string) {
    super('unexpectedContent', message);
    this.contentType = contentType;
  }
}

/** The answer stream was framed wrongly (bad NDJSON line) or carried an error event. */
export class StreamFormatError extends QueryError {
  /** The 1-based line of the stream at fault, when there is one. */
  readonly line?: number;

  constructor(message: string, line?: number) {
    super('format', message);
    if (line !== undefined) {
      this.line = line;
    }
  }
}

/** A GET endpoint answered with something that is not JSON. */
export class InvalidJsonError extends QueryError {
  constructor(message: string) {
    super('invalidJson', message);
  }
}

const STATUS_MEANINGS: Readonly<Record<number, string>> = {
  304: 'The service (or a proxy in front of it) answered "not modified" as if to a cached request, but no cache is used here: a proxy or the service is misbehaving. Check applicationQuery.baseUrl and your proxy settings.',
  400: 'The service rejected the request body. Check the request template of this application (applicationQuery.requestTemplate).',
  401: 'The API key is missing or not valid for this application. Set the key again with "Set API Key…".',
  403: 'The API key is not allowed to use this application. Check that the key belongs to this application.',
  404: 'The service does not know this address: check the application id and applicationQuery.baseUrl.',
  405: 'The service does not accept this request method here: check applicationQuery.baseUrl (it may point at the wrong service).',
  408: 'The service gave up waiting for the request. Try again.',
  413: 'The request is too large for the service: send a smaller selection instead of the whole file.',
  415: 'The service does not accept a JSON body here: check applicationQuery.baseUrl.',
  429: 'Too many requests: the service is rate limiting this key. Wait a moment and try again.',
  500: 'The service failed while handling the request (internal server error). Try again later.',
  502: 'A gateway or proxy in front of the service got no valid answer from it (bad gateway). Try again later.',
  503: 'The service is unavailable right now (overloaded or under maintenance). Try again later.',
  504: 'A gateway or proxy in front of the service timed out waiting for it. Try again later.',
};

/** The plain-language meaning of an HTTP status, for notifications. */
export function describeStatus(status: number): string {
  const known = STATUS_MEANINGS[status];
  if (known !== undefined) {
    return known;
  }
  if (status >= 400 && status < 500) {
    return 'The service refused the request (client error).';
  }
  if (status >= 500 && status < 600) {
    return 'The service failed while handling the request (server error). Try again later.';
  }
  if (status >= 300 && status < 400) {
    return 'The service answered with a redirect, which is not followed.';
  }
  return 'The service answered with an unexpected status.';
}

const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Reads a Retry-After header (delay in seconds, or an HTTP date) as milliseconds from `now`.
 * Never negative; capped at one day; `undefined` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) {
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    return undefined;
  }
  let ms: number;
  if (/^\d+$/.test(trimmed)) {
    ms = Number(trimmed) * 1000;
  } else if (/^\d+\.\d+$/.test(trimmed)) {
    // Not allowed by RFC 9110, but some services send it; reading it beats ignoring it.
    ms = Math.round(Number(trimmed) * 1000);
  } else if (/[a-z]{3}/i.test(trimmed)) {
    // An HTTP date names its month ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse alone accepts "-5".
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) {
      return undefined;
    }
    ms = date - now;
  } else {
    return undefined;
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

function httpStatusMessage(status: number, statusText: string, excerpt: string, retryAfterMs: number | undefined): string {
  let message = `HTTP ${status}${statusText === '' ? '' : ` ${statusText}`}: ${describeStatus(status)}`;
  if (retryAfterMs !== undefined) {
    message += ` The service asked to wait ${formatSeconds(Math.ceil(retryAfterMs / 1000))}.`;
  }
  if (excerpt !== '') {
    message += ` The service said: ${excerpt.length > 200 ? `${excerpt.slice(0, 199)}…` : excerpt}`;
  }
  return message;
}

function formatSeconds(seconds: number): string {
  const rounded = Math.round(seconds * 10) / 10;
  return `${rounded} ${rounded === 1 ? 'second' : 'seconds'}`;
}
