// Recording one exchange as it happens: the request masked, the raw body and the answer text
// captured up to their caps, the timings taken, on every path.
import { randomUUID } from 'node:crypto';
import { Utf8StreamDecoder } from '../decode';
import type { StreamShape, WireFormat } from '../formats';
import { dropUndefined, type Exchange, type RecordedOutcome, type RecordedRequest, type RecordedResponse, type Surface } from './exchange';
import { maskHeaders, scrubExchange } from './masking';
import { maskCredentials, SecretStreamMasker } from '../../shared/secretMask';

/** How much of a request body is kept (UTF-8 bytes); a longer one is kept cut and cannot be replayed. */
export const REQUEST_BODY_CAP_BYTES = 1024 * 1024;
/** How much of a raw response body is kept (UTF-8 bytes). */
export const RAW_BODY_CAP_BYTES = 512 * 1024;
/** How much extracted answer text is kept (UTF-8 bytes). */
export const TEXT_CAP_BYTES = 512 * 1024;

/** Response headers (a fetch `Headers` or a plain record) as a plain record, for recording. */
export function headersRecord(headers: Iterable<[string, string]> | Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Symbol.iterator in headers ? headers : Object.entries(headers);
  for (const [name, value] of entries) {
    out[name] = value;
  }
  return out;
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
export function utf8Prefix(text: string, maxBytes: number): string {
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
  /** The environment the request goes to (empty: `applicationQuery.baseUrl`); recorded as given. */
  readonly environment?: string;
}

/** How the recorded exchange ended; counts are the query's own (they include what the caps cut). */
export interface ExchangeEnd extends RecordedOutcome {
  /** Body bytes on the wire (`QueryResponse.bytesReceived()`); defaults to what the raw capture counted. */
  readonly wireBytes?: number;
  /** Whether masking the answer found a piece of a key (then a framed raw body is withheld: see {@link ExchangeRecorder.finish}). */
  readonly answerHeldKey?: boolean;
}

/** Why a raw body is not kept (shown in the inspector in its place). */
export const RAW_WITHHELD_NOTE =
  'The raw body is not kept: the answer held a piece of an API key, and the stream\'s framing may split a key into parts too short to recognise in the raw body. The extracted answer below is masked.';

/**
 * Records one exchange as it happens, timing it with `now` (ms). Call {@link headers} when the
 * response starts, feed {@link raw} (the wire text: `onRaw: (t) => recorder.raw(t)`) and
 * {@link text} (the answer pieces, already masked by the caller's {@link SecretStreamMasker}), then
 * {@link finish} once, on every path. The raw body passes a masker of its own before its cap, and
 * the request body is masked once at the end, so no cut keeps a piece of a key.
 */
export class ExchangeRecorder {
  private readonly rawCapture = recordingSink();
  private readonly answer = new StreamCapture(TEXT_CAP_BYTES);
  private readonly rawMasker: SecretStreamMasker;
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

  /** The next piece of answer text, masked (the runner masks it once for every view and this record). */
  text(piece: string): void {
    this.textChars += piece.length;
    if (!this.answer.truncated) this.answer.write(piece);
  }

  /** The finished, masked exchange (give it to {@link HistoryStore.add}). */
  finish(end: ExchangeEnd): Exchange {
    if (this.rawDecoder !== undefined) this.rawCapture.write(this.rawMasker.push(this.rawDecoder.end().text));
    this.rawCapture.write(this.rawMasker.end());
    this.rawCapture.end();
    const secrets = this.start.secrets ?? [];
    // Masked before it is cut: a cut must never keep the start of a key.
    const body = this.start.body === undefined ? undefined : maskCredentials(this.start.body, secrets);
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
        : {
            ...this.response,
            ...(withholdRaw(this.response.format, end) ? { raw: '', rawTruncated: false, rawWithheld: RAW_WITHHELD_NOTE } : { raw: this.rawCapture.text, rawTruncated: this.rawCapture.truncated }),
            text: this.answer.text,
            textTruncated: this.answer.truncated,
          };
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
        ...(this.start.environment === undefined ? {} : { environment: this.start.environment }),
      },
      secrets,
      true,
    );
  }
}

/**
 * Whether the raw body must not be kept: the answer held a piece of a key and the body was framed
 * (SSE, NDJSON…), where a key split across events can leave parts in the raw text that are each too
 * short to be recognised. A plain-text body is the answer itself, masked the same way.
 */
function withholdRaw(format: WireFormat | undefined, end: ExchangeEnd): boolean {
  return end.answerHeldKey === true && format !== undefined && format !== 'text';
}
