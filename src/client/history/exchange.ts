/**
 * An exchange as History keeps it: the request as sent and the response as received, with how it
 * ended and how long it took, and how a stored one is read back (never trusting what was stored).
 */
import type { StreamShape, WireFormat } from '../formats';
import type { EndKind } from '../../shared/outcome';
import { isRecord } from '../formats/json';

/** Where an exchange was started (`queryFile`: a query file or the Testing view; `compare`: the Compare panel). */
export type Surface = 'command' | 'panel' | 'chat' | 'participant' | 'model' | 'tool' | 'replay' | 'queryFile' | 'compare';

/** The longest environment name a stored exchange may carry; a longer one is dropped when it is read back. */
export const ENVIRONMENT_NAME_MAX_CHARS = 200;

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
  /** Why `raw` is empty though a body came: it held a piece of a key that could not be masked in the raw form. */
  readonly rawWithheld?: string;
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
  /**
   * The environment (`applicationQuery.environments`) the request went to, as it was named then;
   * empty: `applicationQuery.baseUrl`; absent: not recorded (an older exchange, or no environment).
   */
  readonly environment?: string;
}

const SURFACES: ReadonlySet<string> = new Set(['command', 'panel', 'chat', 'participant', 'model', 'tool', 'replay', 'queryFile', 'compare']);
const END_KINDS: ReadonlySet<string> = new Set(['done', 'stopped', 'interrupted', 'error']);
const WIRE_FORMATS: ReadonlySet<string> = new Set(['text', 'sse', 'ndjson', 'vercel-data']);

/** Whether an exchange's request can be sent again exactly (its whole body was kept). */
export function isReplayable(exchange: Exchange): boolean {
  return exchange.request.bodyTruncated !== true;
}

/** Where a replay goes: an environment by name (empty: `applicationQuery.baseUrl`), or the current service. */
export interface ReplayTarget {
  /** The environment to send to; absent: the current one. */
  readonly environment?: string;
  /** Set when the recorded environment is gone (renamed, removed) and the replay goes to the current service: its name. */
  readonly missing?: string;
}

/**
 * Where a replay of `exchange` goes, given the environments configured now: the environment it was
 * recorded on while it still exists (its base URL as it is now, with that origin's key), or
 * `applicationQuery.baseUrl` when it was recorded there (an empty name). An exchange that does not
 * say (recorded before environments) goes to the current service, as it always did; so does one
 * whose environment is gone, with `missing` set so the caller can say so.
 */
export function replayTarget(exchange: Exchange, configured: readonly { readonly name: string }[]): ReplayTarget {
  const recorded = exchange.environment;
  if (recorded === undefined) return {};
  if (recorded === '' || configured.some((environment) => environment.name === recorded)) return { environment: recorded };
  return { missing: recorded };
}

/** Reads one stored exchange, or `undefined` when it is not a valid one. Never throws. */
export function parseExchange(value: unknown): Exchange | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const { id, when, applicationId, applicationLabel, surface, request, response, outcome, timings, wireBytes, textChars, replayOf, environment } = value;
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
    // Only a plausible name is kept: anything else (not a string, too long) is dropped, not the exchange.
    ...(isString(environment) && environment.length <= ENVIRONMENT_NAME_MAX_CHARS ? { environment } : {}),
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
  const { status, statusText, headers, format, shape, raw, rawTruncated, rawWithheld, text, textTruncated } = value;
  if (
    !isCount(status) ||
    !isString(statusText) ||
    !isStringRecord(headers) ||
    (format !== undefined && !(isString(format) && WIRE_FORMATS.has(format))) ||
    (shape !== undefined && !isString(shape)) ||
    !isString(raw) ||
    typeof rawTruncated !== 'boolean' ||
    (rawWithheld !== undefined && !isString(rawWithheld)) ||
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
    rawWithheld,
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

/** A copy of `value` without its `undefined` properties (so stored JSON and deep equality agree). */
export function dropUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) {
      out[key] = item;
    }
  }
  return out as T;
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
