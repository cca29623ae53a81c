import { GapMeter } from '../shared/streamPace';
import { StoppedError, HttpStatusError, QueryError, RedirectError, StreamInterruptedError, TimeoutError } from './errors';
import { EventLoopSlices } from './eventLoop';
import { detectStreamShape } from './formats';
import { ExchangeRecorder, type Exchange as RecordedExchange, type Surface } from './history';
import { QUERY_ACCEPT, sendQuery } from './queryClient';
import { formatBytes } from '../shared/format';
import { statusRemedies, type QueryOutcome, type Remedy } from '../shared/outcome';
import type { PreparedRequest } from '../shared/prepare';
import { maskSecrets, SecretStreamMasker } from '../shared/secretMask';

/** Where the pipeline writes what happened (the extension's log, the command line's debug output). */
export interface PipelineLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Where a query's answer goes as it streams: the status once, then the masked text in pieces. */
export interface AnswerOut {
  status(httpStatus: number): void;
  append(text: string): void;
}

/** How one prepared request is sent once its key is known. */
export interface SendOptions {
  readonly apiKey: string;
  /** Every key to mask in what is shown or recorded (the request's, and any other a service might echo). */
  readonly secrets: readonly string[];
  readonly signal: AbortSignal;
  readonly headersTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly surface: Surface;
  readonly replayOf?: string;
  /** Whether to keep the masked record of the exchange for a history (default true; the command line keeps none). */
  readonly record?: boolean;
}

/** How many characters of the wire text are looked at to name the stream's shape. */
const SHAPE_SAMPLE_CHARS = 4096;

/** How long a stream may stay silent before the text the key masker held back is shown (a pause, not a chunk's gap). */
const SILENCE_RELEASE_MS = 250;

/**
 * What one query has seen so far: status, wire bytes, text characters, and the recorder once a
 * request goes out. Once the keys are known ({@link protect}), the answer passes a
 * {@link SecretStreamMasker} before anything (an output, the recorder) sees it. The wire text reaches
 * only the recorder, which masks it before its cap, so it needs no masker here.
 */
export class QueryProgress {
  status: number | undefined;
  wireBytes = 0;
  textChars = 0;
  recorder: ExchangeRecorder | undefined;
  /** The start of the wire text, to name the stream's shape in the history. */
  firstRaw = '';
  /** The keys masked in everything this query shows or records. */
  secrets: readonly string[] = [];
  private textMasker: SecretStreamMasker | undefined;
  private silence: ReturnType<typeof setTimeout> | undefined;
  private lastPieceAt = 0;
  private sentAt: number | undefined;
  private firstByteMs: number | undefined;
  private bytesReceived: (() => number) | undefined;
  /** The stream's pace, for `max gap under`. */
  private readonly pace = new GapMeter();

  constructor(private readonly startedAt: number) {}

  /** Masks these keys from now on. */
  protect(secrets: readonly string[]): void {
    this.secrets = secrets;
    this.textMasker = new SecretStreamMasker(secrets);
  }

  headers(response: { status: number; bytesReceived: () => number }): void {
    this.status = response.status;
    this.bytesReceived = response.bytesReceived;
  }

  /** The request goes out now (time to first byte counts from here). */
  sent(): void {
    this.sentAt = Date.now();
  }

  /** Whether a request went out (else a missing key or a setting stopped the query first). */
  wasSent(): boolean {
    return this.sentAt !== undefined;
  }

  raw(text: string): void {
    if (text !== '' && this.firstByteMs === undefined && this.sentAt !== undefined) this.firstByteMs = Date.now() - this.sentAt;
    if (text === '') return;
    this.pace.chunk(performance.now());
    if (this.firstRaw.length < SHAPE_SAMPLE_CHARS) this.firstRaw += text.slice(0, SHAPE_SAMPLE_CHARS - this.firstRaw.length);
    this.recorder?.raw(text);
  }

  /** The next piece of the answer in; what may be shown now out (masked, maybe empty: a possible key's start waits). */
  text(piece: string): string {
    return this.recordText(this.textMasker === undefined ? piece : this.textMasker.push(piece));
  }

  /**
   * After `piece`'s text went out: if the stream then stays silent for {@link SILENCE_RELEASE_MS},
   * what the masker held back for a piece that may still grow goes to `out` too, so a stalled
   * answer, and one stopped during the silence, shows all that arrived.
   */
  releaseOnSilence(out: AnswerOut): void {
    this.lastPieceAt = Date.now();
    // One timer for the whole stream: when it fires early (pieces kept coming), it waits the rest.
    if (this.silence !== undefined || this.textMasker === undefined) return;
    const check = (): void => {
      const quiet = Date.now() - this.lastPieceAt;
      if (quiet < SILENCE_RELEASE_MS) {
        this.silence = setTimeout(check, SILENCE_RELEASE_MS - quiet);
        return;
      }
      this.silence = undefined;
      const held = this.recordText(this.textMasker?.releaseHeld() ?? '');
      if (held !== '') out.append(held);
    };
    this.silence = setTimeout(check, SILENCE_RELEASE_MS);
  }

  /** Releases what the masker holds (a partial key at the very end masked) to the recorder and the output; safe to call again. */
  flush(out: AnswerOut): void {
    if (this.silence !== undefined) clearTimeout(this.silence);
    this.silence = undefined;
    const tail = this.recordText(this.textMasker?.end() ?? '');
    if (tail !== '') out.append(tail);
  }

  private recordText(piece: string): string {
    if (piece === '') return '';
    this.textChars += piece.length;
    this.recorder?.text(piece);
    return piece;
  }

  /** Body bytes received on the wire so far. */
  received(): number {
    return this.bytesReceived?.() ?? this.wireBytes;
  }

  outcome(fields: Omit<QueryOutcome, 'durationMs' | 'wireBytes' | 'textChars'> & { wireBytes?: number }): QueryOutcome {
    this.wireBytes = fields.wireBytes ?? this.received();
    const firstByte = this.firstByteMs === undefined ? {} : { firstByteMs: this.firstByteMs };
    const gap = this.pace.maxGapMs === undefined ? {} : { maxGapMs: this.pace.maxGapMs };
    return { ...fields, ...firstByte, ...gap, httpStatus: fields.httpStatus ?? this.status, wireBytes: this.wireBytes, textChars: this.textChars, durationMs: Date.now() - this.startedAt };
  }

  /** The masked record of a query that sent a request (undefined when none went out); never throws. */
  finish(outcome: QueryOutcome, log: PipelineLog): RecordedExchange | undefined {
    try {
      return this.recorder?.finish({ ...outcome, noTextExtracted: outcome.remedies.includes('showRaw') || undefined, answerHeldKey: (this.textMasker?.masked ?? 0) > 0 });
    } catch (error) {
      log.error(`Recording the exchange failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }
}

/**
 * Runs the steps of one query that can fail (`steps`), and turns whatever stops them into the
 * outcome; what the masker held back reaches `out` (masked) before the outcome is returned. Never rejects.
 */
export async function settleQuery(progress: QueryProgress, out: AnswerOut, log: PipelineLog, url: string | undefined, steps: () => Promise<QueryOutcome>): Promise<QueryOutcome> {
  try {
    return await steps();
  } catch (error) {
    progress.flush(out);
    return failureOutcome(error, progress, url, log);
  } finally {
    progress.flush(out);
  }
}

/**
 * Sends a prepared request with its key: the request goes out, the status and the masked answer
 * reach `out` as they arrive, and the exchange is recorded (masked). Throws on any failure; {@link settleQuery} turns it into an outcome.
 */
export async function sendPrepared(prepared: PreparedRequest, progress: QueryProgress, out: AnswerOut, log: PipelineLog, options: SendOptions): Promise<QueryOutcome> {
  if (options.signal.aborted) throw new StoppedError();
  progress.protect(options.secrets);
  progress.sent();
  const recorder = options.record === false ? undefined : new ExchangeRecorder({
    applicationId: prepared.applicationId,
    applicationLabel: prepared.label,
    surface: options.surface,
    method: 'POST',
    url: prepared.url,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${options.apiKey}`, Accept: QUERY_ACCEPT },
    body: prepared.bodyText,
    secrets: options.secrets,
    replayOf: options.replayOf,
    environment: prepared.environment,
  });
  progress.recorder = recorder;
  const response = await sendQuery({
    baseUrl: prepared.baseUrl,
    applicationId: prepared.applicationId,
    apiKey: options.apiKey,
    body: prepared.body,
    bodyText: prepared.bodyText,
    signal: options.signal,
    headersTimeoutMs: options.headersTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    responseFormat: prepared.responseFormat,
    responseField: prepared.responseField,
    onRaw: (text) => progress.raw(text),
  });
  progress.headers(response);
  recorder?.headers(response.status, response.statusText, response.headers, response.format);
  out.status(response.status);
  log.info(`POST ${response.url} → ${response.status} ${response.statusText} (${response.contentType || 'no content type'}, read as ${response.format})`);
  const slices = new EventLoopSlices();
  for await (const piece of response.text) {
    const shown = progress.text(piece);
    if (shown !== '') out.append(shown);
    progress.releaseOnSilence(out);
    const turn = slices.due();
    if (turn !== undefined) await turn;
  }
  progress.flush(out);
  recorder?.format(response.format, detectStreamShape(response.format, progress.firstRaw));
  const warnings = response.warnings.map((warning) => maskSecrets(warning, options.secrets));
  const remedies: Remedy[] = [];
  if (response.noTextExtracted()) remedies.push('showRaw');
  const warning = warnings.length > 0 ? warnings.join(' ') : undefined;
  if (warning !== undefined) log.warn(`${prepared.label}: ${warning}`);
  const outcome = progress.outcome({ kind: 'done', httpStatus: response.status, wireBytes: response.bytesReceived(), warning, retryable: false, remedies });
  log.info(`POST ${response.url} → ${response.status}, ${outcome.wireBytes} bytes, ${outcome.durationMs} ms, complete`);
  return outcome;
}

/** Turns whatever stopped a query into its outcome (masked), and logs it. */
export function failureOutcome(error: unknown, progress: QueryProgress, url: string | undefined, log: PipelineLog): QueryOutcome {
  const status = progress.status;
  const chars = progress.textChars;
  let outcome: QueryOutcome;
  if (error instanceof StoppedError) {
    outcome = progress.outcome({ kind: 'stopped', httpStatus: status, message: `Stopped after ${formatBytes(progress.received())}.`, retryable: true, remedies: ['retry'] });
  } else if (error instanceof HttpStatusError) {
    progress.recorder?.headers(error.status, maskSecrets(error.statusText, progress.secrets), {});
    // The recorder masks the raw body it keeps (the excerpt was masked whole before it was cut, too).
    if (error.bodyExcerpt !== '') progress.recorder?.raw(error.bodyExcerpt);
    const { remedies, retryable } = statusRemedies(error.status);
    outcome = progress.outcome({ kind: 'error', httpStatus: error.status, message: error.message, retryable, remedies, retryAfterMs: error.retryAfterMs });
  } else if (error instanceof StreamInterruptedError || (error instanceof TimeoutError && error.phase === 'idle')) {
    outcome = progress.outcome({ kind: 'interrupted', httpStatus: status, message: error.message, retryable: true, remedies: ['retry'] });
  } else if (error instanceof QueryError) {
    const retryable = error.kind !== 'config';
    outcome = progress.outcome({
      kind: chars > 0 ? 'interrupted' : 'error',
      httpStatus: error instanceof RedirectError ? error.status : status,
      message: error.message,
      retryable,
      remedies: error.kind === 'config' ? ['openBaseUrlSetting'] : ['retry'],
    });
  } else {
    const message = error instanceof Error ? error.message : String(error);
    outcome = progress.outcome({ kind: chars > 0 ? 'interrupted' : 'error', httpStatus: status, message: `Unexpected failure: ${message}`, retryable: true, remedies: ['retry'] });
  }
  if (outcome.message !== undefined) outcome = { ...outcome, message: maskSecrets(outcome.message, progress.secrets) };
  const line = `POST ${url ?? '(not sent)'} → ${outcome.httpStatus ?? 'no response'}, ${outcome.wireBytes} bytes, ${outcome.durationMs} ms, ${outcome.kind}: ${outcome.message ?? ''}`;
  if (outcome.kind === 'stopped') log.info(line);
  else log.error(line);
  return outcome;
}
