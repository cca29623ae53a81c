import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { Exchange as RecordedExchange } from '../../client/history';
import { QueryProgress, sendPrepared, settleQuery } from '../../client/queryPipeline';
import type { QueryOutcome } from '../../shared/outcome';
import { plainText } from '../../shared/plainText';
import { CONFIRM_ABOVE_CHARS, prepare, type PreparedRequest, type QueryInput } from '../../shared/prepare';
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
    const progress = new QueryProgress(startedAt);
    let outcome: QueryOutcome | undefined;
    try {
      fanout.start(info);
      outcome = await settleQuery(progress, fanout, this.log, prepared.ok ? prepared.url : undefined, async () => {
        if (!prepared.ok) {
          this.log.warn(`${prepared.label}: ${prepared.message}`);
          return progress.outcome({ kind: 'error', message: prepared.message, retryable: false, remedies: prepared.remedies });
        }
        if (options.expect !== undefined && (prepared.applicationId !== options.expect.applicationId || prepared.origin !== options.expect.origin || prepared.bodyText !== options.expect.bodyText)) {
          return progress.outcome({ kind: 'error', message: 'Not sent: the request is no longer the one you confirmed (the settings changed).', retryable: false, remedies: [] });
        }
        return this.send(prepared, fanout, progress, controller, options);
      });
    } finally {
      outcome ??= progress.outcome({ kind: 'error', message: 'The query ended unexpectedly.', retryable: true, remedies: ['retry'] });
      options.signal?.removeEventListener('abort', onOuterAbort);
      unregister();
      fanout.end(outcome);
    }
    const recorded = progress.finish(outcome, this.log);
    if (recorded !== undefined) this.record(recorded);
    return recorded === undefined ? outcome : { ...outcome, exchangeId: recorded.id };
  }

  /** The key (asked for when allowed), the confirmation of a large request, then the request itself. */
  private async send(prepared: PreparedRequest, fanout: Fanout, progress: QueryProgress, controller: AbortController, options: RunOptions): Promise<QueryOutcome> {
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
    // Every key this session knows, not only this request's: a service may echo any of them.
    const secrets = [...new Set([apiKey, ...this.keys.knownSecrets()])];
    return sendPrepared(prepared, progress, fanout, this.log, {
      apiKey,
      secrets,
      signal: controller.signal,
      headersTimeoutMs: this.settings.headersTimeoutMs(),
      idleTimeoutMs: this.settings.idleTimeoutMs(),
      surface: options.surface,
      ...(options.replayOf === undefined ? {} : { replayOf: options.replayOf }),
    });
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
