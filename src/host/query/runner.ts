import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { AbortedError, HttpStatusError, QueryError, RedirectError, StreamInterruptedError, TimeoutError } from '../../client/errors';
import { detectStreamShape } from '../../client/formats';
import { ExchangeRecorder, type Exchange as RecordedExchange } from '../../client/history';
import { formatBytes } from '../../shared/format';
import type { QueryOutcome, Remedy } from '../../shared/outcome';
import { plainText } from '../../shared/plainText';
import { CONFIRM_ABOVE_CHARS, prepare, type PreparedRequest, type QueryInput } from '../../shared/prepare';
import { QUERY_ACCEPT, sendQuery } from '../../client/queryClient';
import { maskSecrets, SecretStreamMasker } from '../../shared/secretMask';
import { GapMeter } from '../../shared/streamPace';
import type { Settings } from '../platform/settings';
import type { Log } from '../platform/log';
import { promptForApiKey } from '../platform/keyPrompt';
import type { KeyStore } from '../platform/keyStore';
import type { QueryRegistry } from './registry';
import type { QueryInfo, QuerySink, Surface } from './types';

/** How one run is started. */
export interface RunOptions {
  /** Which surface started it (the registry can stop one surface's queries). */
  readonly surface: Surface;
  /** Stops this query from outside (a chat's Stop, a cancellation token). */
  readonly signal?: AbortSignal;
  /** The query id to use, so a surface can address the query (Stop) before it starts. */
  readonly queryId?: string;
  /** Ask for a missing key in a password box (default true); otherwise end with Set API Key…. */
  readonly promptForKey?: boolean;
  /** The recorded exchange this run replays (the history links the two). */
  readonly replayOf?: string;
  /** What the user confirmed: the run sends only this request, else ends "Not sent: …" (the agent tool). */
  readonly expect?: { readonly applicationId: string; readonly origin: string; readonly bodyText: string };
  /** The environment to send to (empty: `applicationQuery.baseUrl`); absent: the current one. */
  readonly environment?: string;
}

/** Receives every exchange that sent a request, masked (the history). */
export type ExchangeListener = (exchange: RecordedExchange) => void;

/**
 * The one query pipeline: prepare (pure), then key, confirmation, request and stream, into the
 * sinks. Whatever happens after the sinks started, every sink is ended exactly once, the query
 * leaves the registry, and `run` resolves with the outcome (it never rejects). Notifications about
 * failures are not its business: callers hand the outcome to the failure policy.
 */
export class QueryRunner {
  private readonly listeners = new Set<ExchangeListener>();

  constructor(
    private readonly settings: Settings,
    private readonly keys: KeyStore,
    private readonly log: Log,
    private readonly registry: QueryRegistry,
  ) {}

  /** Subscribes to finished exchanges (the history); returns the unsubscribe function. */
  onExchange(listener: ExchangeListener): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  /** Runs one query to its end. Never rejects: every outcome reaches every sink once and is returned. */
  async run(input: QueryInput, sinks: readonly QuerySink[], options: RunOptions): Promise<QueryOutcome> {
    const queryId = options.queryId ?? randomUUID();
    const startedAt = Date.now();
    const prepared = prepare(input, {
      applications: this.settings.applications().applications,
      defaultTemplate: this.settings.defaultTemplate(),
      baseUrl: options.environment === undefined ? this.settings.baseUrl() : this.settings.serviceFor(options.environment),
      confirmAboveChars: CONFIRM_ABOVE_CHARS,
    });
    const info: QueryInfo = {
      queryId,
      applicationId: input.applicationId,
      applicationLabel: prepared.label,
      question: input.question,
      contextLabel: input.context?.label,
      startedAt,
    };
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort();
    options.signal?.addEventListener('abort', onOuterAbort);
    if (options.signal?.aborted === true) controller.abort();
    const unregister = this.registry.add(queryId, prepared.label, options.surface, controller);
    const fanout = new Fanout(sinks, this.log);
    const progress = new Progress(startedAt);
    let outcome: QueryOutcome | undefined;
    try {
      fanout.start(info);
      if (!prepared.ok) {
        this.log.warn(`${prepared.label}: ${prepared.message}`);
        outcome = progress.outcome({ kind: 'error', message: prepared.message, retryable: false, remedies: prepared.remedies });
      } else if (options.expect !== undefined && (prepared.applicationId !== options.expect.applicationId || prepared.origin !== options.expect.origin || prepared.bodyText !== options.expect.bodyText)) {
        outcome = progress.outcome({ kind: 'error', message: 'Not sent: the request is no longer the one you confirmed (the settings changed).', retryable: false, remedies: [] });
      } else {
        outcome = await this.send(prepared, fanout, progress, controller, options);
      }
    } catch (error) {
      // What the masker held back is part of the answer: it reaches the sinks (masked) before the outcome.
      progress.flush(fanout);
      outcome = this.failure(error, progress, prepared.ok ? prepared.url : undefined);
    } finally {
      progress.flush(fanout);
      outcome ??= progress.outcome({ kind: 'error', message: 'The query ended unexpectedly.', retryable: true, remedies: ['retry'] });
      options.signal?.removeEventListener('abort', onOuterAbort);
      unregister();
      fanout.end(outcome);
    }
    const recorded = this.finishRecord(progress, outcome);
    return recorded === undefined ? outcome : { ...outcome, exchangeId: recorded.id };
  }

  /** The masked record of a run that sent a request, handed to the listeners (the history); never throws. */
  private finishRecord(progress: Progress, outcome: QueryOutcome): RecordedExchange | undefined {
    try {
      const recorded = progress.recorder?.finish({ ...outcome, noTextExtracted: outcome.remedies.includes('showRaw') || undefined });
      if (recorded !== undefined) this.record(recorded);
      return recorded;
    } catch (error) {
      this.log.error(`Recording the exchange failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  private async send(prepared: PreparedRequest, fanout: Fanout, progress: Progress, controller: AbortController, options: RunOptions): Promise<QueryOutcome> {
    const ref = { origin: prepared.origin, applicationId: prepared.applicationId };
    let apiKey = await this.keys.get(ref);
    if (apiKey === undefined) {
      const message = `No API key for ${prepared.label} on ${prepared.service}: the query was not sent. Run "Set API Key…" to add one.`;
      if (options.promptForKey === false) {
        return progress.outcome({ kind: 'error', message, retryable: false, remedies: ['setApiKey'] });
      }
      apiKey = await promptForApiKey(prepared.label, prepared.service, `No API key is stored for ${prepared.label} on ${prepared.service}.`);
      if (apiKey === undefined) return progress.outcome({ kind: 'stopped', message, retryable: true, remedies: ['setApiKey'] });
      await this.keys.set(ref, apiKey);
      this.log.info(`API key stored for ${prepared.label} on ${prepared.service}.`);
    }
    if (prepared.confirm !== undefined && !controller.signal.aborted) {
      const choice = await vscode.window.showWarningMessage(plainText(prepared.confirm), { modal: true }, 'Send');
      if (choice !== 'Send') return progress.outcome({ kind: 'stopped', message: 'Not sent: you chose not to send the large request.', retryable: true, remedies: [] });
    }
    if (controller.signal.aborted) throw new AbortedError();
    // Every key this session knows, not only this request's: a service may echo any of them.
    const secrets = [...new Set([apiKey, ...this.keys.knownSecrets()])];
    progress.protect(secrets);
    progress.sent();
    progress.recorder = new ExchangeRecorder({
      applicationId: prepared.applicationId,
      applicationLabel: prepared.label,
      surface: options.surface,
      method: 'POST',
      url: prepared.url,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}`, Accept: QUERY_ACCEPT },
      body: prepared.bodyText,
      secrets,
      replayOf: options.replayOf,
      environment: prepared.environment,
    });
    const response = await sendQuery({
      baseUrl: prepared.baseUrl,
      applicationId: prepared.applicationId,
      apiKey,
      body: prepared.body,
      bodyText: prepared.bodyText,
      signal: controller.signal,
      headersTimeoutMs: this.settings.headersTimeoutMs(),
      idleTimeoutMs: this.settings.idleTimeoutMs(),
      responseFormat: prepared.responseFormat,
      responseField: prepared.responseField,
      onRaw: (text) => progress.raw(text),
    });
    progress.headers(response);
    progress.recorder.headers(response.status, response.statusText, response.headers, response.format);
    fanout.status(response.status);
    this.log.info(`POST ${response.url} → ${response.status} ${response.statusText} (${response.contentType || 'no content type'}, read as ${response.format})`);
    for await (const piece of response.text) {
      const shown = progress.text(piece);
      if (shown !== '') fanout.append(shown);
    }
    progress.flush(fanout);
    progress.recorder.format(response.format, detectStreamShape(response.format, progress.firstRaw));
    const warnings = response.warnings.map((warning) => maskSecrets(warning, secrets));
    const remedies: Remedy[] = [];
    if (response.noTextExtracted()) remedies.push('showRaw');
    const warning = warnings.length > 0 ? warnings.join(' ') : undefined;
    if (warning !== undefined) this.log.warn(`${prepared.label}: ${warning}`);
    const outcome = progress.outcome({ kind: 'done', httpStatus: response.status, wireBytes: response.bytesReceived(), warning, retryable: false, remedies });
    this.log.info(`POST ${response.url} → ${response.status}, ${outcome.wireBytes} bytes, ${outcome.durationMs} ms, complete`);
    return outcome;
  }

  /** Turns whatever stopped the query into its outcome, and logs it. */
  private failure(error: unknown, progress: Progress, url: string | undefined): QueryOutcome {
    const status = progress.status;
    const chars = progress.textChars;
    let outcome: QueryOutcome;
    if (error instanceof AbortedError) {
      outcome = progress.outcome({ kind: 'stopped', httpStatus: status, message: `Stopped after ${formatBytes(progress.received())}.`, retryable: true, remedies: ['retry'] });
    } else if (error instanceof HttpStatusError) {
      progress.recorder?.headers(error.status, maskSecrets(error.statusText, progress.secrets), {});
      if (error.bodyExcerpt !== '') progress.recorder?.raw(maskSecrets(error.bodyExcerpt, progress.secrets));
      const keyProblem = error.status === 401 || error.status === 403;
      const remedies: Remedy[] = keyProblem ? ['setApiKey'] : error.status === 404 ? ['checkApplications'] : [];
      const retryable = error.status >= 500 || error.status === 429 || error.status === 408;
      if (retryable) remedies.push('retry');
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
    if (outcome.kind === 'stopped') this.log.info(line);
    else this.log.error(line);
    return outcome;
  }

  private record(record: RecordedExchange): void {
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch (error) {
        this.log.error(`Recording the exchange failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

/** How much of the wire text is looked at to name the stream's shape. */
const SHAPE_SAMPLE_CHARS = 4096;

/**
 * What one run has seen so far: status, wire bytes, text characters, and the recorder once a request
 * goes out. Once the keys are known ({@link protect}), the answer passes a {@link SecretStreamMasker}
 * before anything (a sink, the recorder) sees it. The wire text reaches only the recorder, which
 * masks it before its cap (and stops reading it past the cap), so it needs no masker here.
 */
class Progress {
  status: number | undefined;
  wireBytes = 0;
  textChars = 0;
  recorder: ExchangeRecorder | undefined;
  /** The start of the wire text, to name the stream's shape in the history. */
  firstRaw = '';
  /** The keys masked in everything this run shows or records. */
  secrets: readonly string[] = [];
  private textMasker: SecretStreamMasker | undefined;
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

  raw(text: string): void {
    if (text !== '' && this.firstByteMs === undefined && this.sentAt !== undefined) this.firstByteMs = Date.now() - this.sentAt;
    if (text !== '') this.pace.chunk(performance.now());
    this.recordRaw(text);
  }

  /** The next piece of the answer in; what may be shown now out (masked, maybe empty: a possible key's start waits). */
  text(piece: string): string {
    return this.recordText(this.textMasker === undefined ? piece : this.textMasker.push(piece));
  }

  /** Releases what the masker holds (a partial key at the very end masked) to the recorder and the sinks; safe to call again. */
  flush(fanout: Fanout): void {
    const tail = this.recordText(this.textMasker?.end() ?? '');
    if (tail !== '') fanout.append(tail);
  }

  private recordRaw(text: string): void {
    if (text === '') return;
    if (this.firstRaw.length < SHAPE_SAMPLE_CHARS) this.firstRaw += text.slice(0, SHAPE_SAMPLE_CHARS - this.firstRaw.length);
    this.recorder?.raw(text);
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
}

/** Sends each event to every sink; a sink that throws is logged and never breaks the others. */
class Fanout {
  private readonly sinks: readonly QuerySink[];

  constructor(sinks: readonly QuerySink[], private readonly log: Log) {
    this.sinks = [...sinks];
  }

  private each(event: string, fn: (sink: QuerySink) => void): void {
    for (const sink of this.sinks) {
      try {
        fn(sink);
      } catch (error) {
        this.log.error(`An answer view failed on ${event}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  start(info: QueryInfo): void {
    this.each('start', (sink) => sink.start(info));
  }

  status(httpStatus: number): void {
    this.each('status', (sink) => sink.status(httpStatus));
  }

  append(text: string): void {
    this.each('append', (sink) => sink.append(text));
  }

  end(outcome: QueryOutcome): void {
    this.each('end', (sink) => sink.end(outcome));
  }
}
