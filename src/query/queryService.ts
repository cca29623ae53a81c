import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { applicationLabel } from '../core/applications';
import { AbortedError, HttpStatusError, QueryError, RedirectError, StreamInterruptedError, TimeoutError } from '../core/errors';
import { formatBytes, formatDuration } from '../core/format';
import { sendQuery } from '../core/queryClient';
import { composeInput, renderTemplate } from '../core/template';
import type { Settings } from '../config/settings';
import type { Log } from '../log/log';
import { promptForApiKey } from '../secrets/keyPrompt';
import type { KeyStore } from '../secrets/keyStore';
import type { QueryRegistry } from './registry';
import type { QueryInfo, QueryInput, QueryOutcome, QuerySink } from './types';

/** Options for one run of a query. */
export interface RunOptions {
  /** Which surface started it (Stop in a surface stops only its own queries). */
  readonly surface: string;
  /** Show the cancellable progress notification and failure notifications (commands do; chat shows its own). */
  readonly notify: boolean;
  /** Called when the user picks Retry on a failure notification. */
  readonly retry?: () => void;
  /** Stops this query from outside (e.g. the chat's Stop button). */
  readonly signal?: AbortSignal;
  /** The query id to use (so a surface can address it before it starts). */
  readonly queryId?: string;
}

/** Sends queries: resolves the application, base URL and key, streams into sinks, reports failures. */
export class QueryService {
  constructor(
    private readonly settings: Settings,
    private readonly keys: KeyStore,
    private readonly log: Log,
    private readonly registry: QueryRegistry,
  ) {}

  /** Runs one query to its end. Never throws: every outcome reaches the sinks and is returned. */
  async run(input: QueryInput, sinks: readonly QuerySink[], options: RunOptions): Promise<QueryOutcome> {
    const queryId = options.queryId ?? randomUUID();
    const startedAt = Date.now();
    const app = this.settings.resolve(input.applicationId);
    const label = app ? applicationLabel(app) : input.applicationId;
    const info: QueryInfo = {
      queryId,
      applicationId: input.applicationId,
      applicationLabel: label,
      question: input.question,
      contextLabel: input.context?.label,
      startedAt,
    };
    const fanout = new Fanout(sinks, this.log);
    fanout.start(info);

    const end = (outcome: Omit<QueryOutcome, 'durationMs'>): QueryOutcome => {
      const full: QueryOutcome = { ...outcome, durationMs: Date.now() - startedAt };
      fanout.end(full);
      return full;
    };

    if (!app) {
      const message = `The application "${input.applicationId}" is not in applicationQuery.applications. Add it with "Add Application…".`;
      this.failBeforeRequest(message, options, 'Add Application…', 'applicationQuery.addApplication');
      return end({ kind: 'error', bytes: 0, chars: 0, message, retryable: false });
    }
    const base = this.settings.baseUrl();
    if (!base.ok) {
      this.failBeforeRequest(base.message, options, 'Open Settings', 'workbench.action.openSettings', 'applicationQuery.baseUrl');
      return end({ kind: 'error', bytes: 0, chars: 0, message: base.message, retryable: false });
    }
    const ref = { origin: base.origin, applicationId: app.id };
    let apiKey = await this.keys.get(ref);
    if (!apiKey) {
      apiKey = await promptForApiKey(label, base.origin, `No API key is stored for ${label} on ${base.origin}.`);
      if (!apiKey) {
        const message = `No API key for ${label}: the query was not sent. Run "Set API Key…" to add one.`;
        return end({ kind: 'stopped', bytes: 0, chars: 0, message, retryable: true });
      }
      await this.keys.set(ref, apiKey);
      this.log.info(`API key stored for ${label} on ${base.origin}.`);
    }

    const inputText = composeInput(input.question, input.context);
    const body = renderTemplate(app.template, {
      input: inputText,
      question: input.question,
      selection: input.context?.kind === 'selection' ? input.context.text : '',
      file: input.context?.fileText ?? '',
      fileName: input.context?.fileName ?? '',
      languageId: input.context?.languageId ?? '',
      history: input.history ?? '',
    });

    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort();
    options.signal?.addEventListener('abort', onOuterAbort);
    if (options.signal?.aborted) {
      controller.abort();
    }
    const unregister = this.registry.add(queryId, label, options.surface, controller);
    const progress = options.notify ? new ProgressReporter(label, controller) : undefined;
    fanout.add(progress);

    let httpStatus: number | undefined;
    let bytes = 0;
    let chars = 0;
    let bytesReceived = (): number => bytes;
    const url = `${base.normalized}/api/applications/${encodeURIComponent(app.id)}/query`;
    try {
      const response = await sendQuery({
        baseUrl: base.normalized,
        applicationId: app.id,
        apiKey,
        body,
        signal: controller.signal,
        headersTimeoutMs: this.settings.headersTimeoutMs(),
        idleTimeoutMs: this.settings.idleTimeoutMs(),
        responseFormat: app.format,
        responseField: app.responseField,
      });
      httpStatus = response.status;
      bytesReceived = response.bytesReceived;
      fanout.status(response.status);
      this.log.info(`POST ${url} → ${response.status} ${response.statusText} (${response.contentType || 'no content type'}, read as ${response.format})`);
      for await (const piece of response.text) {
        chars += piece.length;
        fanout.append(piece);
      }
      bytes = response.bytesReceived();
      const warning = response.warnings.length > 0 ? response.warnings.join(' ') : undefined;
      if (warning) {
        this.log.warn(`${label}: ${warning}`);
      }
      this.log.info(`POST ${url} → ${response.status}, ${bytes} bytes, ${Date.now() - startedAt} ms, complete`);
      return end({ kind: 'done', httpStatus, bytes, chars, retryable: false, warning });
    } catch (err) {
      bytes = bytesReceived();
      const outcome = this.describeFailure(err, httpStatus, bytes, chars);
      const ms = Date.now() - startedAt;
      const logLine = `POST ${url} → ${outcome.httpStatus ?? 'no response'}, ${bytes} bytes, ${ms} ms, ${outcome.kind}: ${outcome.message ?? ''}`;
      if (outcome.kind === 'stopped') {
        this.log.info(logLine);
      } else {
        this.log.error(logLine);
      }
      const result = end(outcome);
      if (options.notify && outcome.kind !== 'stopped') {
        this.notifyFailure(label, app.id, err, result, options.retry);
      }
      return result;
    } finally {
      options.signal?.removeEventListener('abort', onOuterAbort);
      unregister();
    }
  }

  private describeFailure(err: unknown, httpStatus: number | undefined, bytes: number, chars: number): Omit<QueryOutcome, 'durationMs'> {
    if (err instanceof AbortedError) {
      return { kind: 'stopped', httpStatus, bytes, chars, message: `Stopped after ${formatBytes(bytes)}.`, retryable: true };
    }
    if (err instanceof HttpStatusError) {
      return {
        kind: 'error',
        httpStatus: err.status,
        bytes,
        chars,
        message: err.message,
        retryable: err.status >= 500 || err.status === 429 || err.status === 408,
      };
    }
    if (err instanceof StreamInterruptedError || (err instanceof TimeoutError && err.phase === 'idle')) {
      return { kind: 'interrupted', httpStatus, bytes, chars, message: err.message, retryable: true };
    }
    if (err instanceof QueryError) {
      const status = err instanceof RedirectError ? err.status : httpStatus;
      return { kind: chars > 0 ? 'interrupted' : 'error', httpStatus: status, bytes, chars, message: err.message, retryable: err.kind !== 'config' };
    }
    const message = err instanceof Error ? err.message : String(err);
    return { kind: chars > 0 ? 'interrupted' : 'error', httpStatus, bytes, chars, message: `Unexpected failure: ${message}`, retryable: true };
  }

  private failBeforeRequest(message: string, options: RunOptions, action: string, command: string, arg?: string): void {
    this.log.warn(message);
    if (!options.notify) {
      return;
    }
    void vscode.window.showErrorMessage(message, action).then((choice) => {
      if (choice === action) {
        void vscode.commands.executeCommand(command, arg);
      }
    });
  }

  private notifyFailure(label: string, applicationId: string, err: unknown, outcome: QueryOutcome, retry?: () => void): void {
    const actions: string[] = [];
    const status = outcome.httpStatus;
    const isHttp = err instanceof HttpStatusError;
    if (isHttp && (status === 401 || status === 403)) {
      actions.push('Set API Key…');
    } else if (isHttp && status === 404) {
      actions.push('Check Applications');
    }
    const retryAfterMs = err instanceof HttpStatusError ? err.retryAfterMs : undefined;
    const retryLabel = retryAfterMs !== undefined && retryAfterMs > 0 ? `Retry in ${formatDuration(retryAfterMs)}` : 'Retry';
    if (retry && outcome.retryable && !(isHttp && (status === 401 || status === 403))) {
      actions.push(retryLabel);
    }
    actions.push('Show Log');
    const kept = outcome.chars > 0 ? ` The partial answer (${formatBytes(outcome.bytes)}) is kept.` : '';
    const text = `${label}: ${outcome.message ?? 'The query failed.'}${kept}`;
    void vscode.window.showErrorMessage(text, ...actions).then((choice) => {
      switch (choice) {
        case 'Set API Key…':
          void vscode.commands.executeCommand('applicationQuery.setApiKey', applicationId);
          break;
        case 'Check Applications':
          void vscode.commands.executeCommand('workbench.action.openSettings', 'applicationQuery.applications');
          break;
        case 'Show Log':
          this.log.show();
          break;
        case retryLabel:
          if (retryAfterMs !== undefined && retryAfterMs > 0) {
            setTimeout(() => retry?.(), retryAfterMs);
          } else {
            retry?.();
          }
          break;
        default:
          break;
      }
    });
  }
}

/** Sends each event to every sink; a sink that throws is logged and never breaks the others. */
class Fanout implements QuerySink {
  private readonly sinks: QuerySink[];

  constructor(sinks: readonly QuerySink[], private readonly log: Log) {
    this.sinks = [...sinks];
  }

  add(sink: QuerySink | undefined): void {
    if (sink) {
      this.sinks.push(sink);
    }
  }

  private each(fn: (s: QuerySink) => void): void {
    for (const sink of this.sinks) {
      try {
        fn(sink);
      } catch (err) {
        this.log.error(`An answer view failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  start(info: QueryInfo): void {
    this.each((s) => s.start(info));
  }
  status(httpStatus: number): void {
    this.each((s) => s.status(httpStatus));
  }
  append(text: string): void {
    this.each((s) => s.append(text));
  }
  end(outcome: QueryOutcome): void {
    this.each((s) => s.end(outcome));
  }
}

/**
 * The cancellable progress notification of a command query: names the application, shows the
 * HTTP status, the amount received and the tail of what has arrived. Updated at most 4 times a second.
 */
class ProgressReporter implements QuerySink {
  private httpStatus: number | undefined;
  private chars = 0;
  private tail = '';
  private progress: vscode.Progress<{ message?: string }> | undefined;
  private ended = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private finish: (() => void) | undefined;

  constructor(label: string, controller: AbortController) {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Querying ${label}`, cancellable: true },
      (progress, token) => {
        this.progress = progress;
        const sub = token.onCancellationRequested(() => controller.abort());
        this.render();
        return new Promise<void>((resolve) => {
          this.finish = () => {
            sub.dispose();
            resolve();
          };
          if (this.ended) {
            this.finish();
          }
        });
      },
    );
  }

  start(): void {
    // The notification opens in the constructor.
  }

  status(httpStatus: number): void {
    this.httpStatus = httpStatus;
    this.schedule();
  }

  append(text: string): void {
    this.chars += text.length;
    this.tail = (this.tail + text).slice(-200);
    this.schedule();
  }

  end(): void {
    this.ended = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.finish?.();
  }

  private schedule(): void {
    if (!this.timer && !this.ended) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.render();
      }, 250);
    }
  }

  private render(): void {
    if (!this.progress || this.ended) {
      return;
    }
    const parts = [this.httpStatus === undefined ? 'Waiting for the service…' : `HTTP ${this.httpStatus}`];
    if (this.chars > 0) {
      parts.push(`${this.chars.toLocaleString('en-US')} characters`);
      const snippet = this.tail.replace(/\s+/g, ' ').trim().slice(-60);
      if (snippet) {
        parts.push(`…${snippet}`);
      }
    }
    this.progress.report({ message: parts.join(' · ') });
  }
}
