import * as vscode from 'vscode';
import type { QueryRegistry } from './registry';
import type { QueryInfo, QuerySink } from './types';
import { plain } from '../../shared/plainText';

/** How often the notification's text is refreshed while an answer streams. */
const REFRESH_MS = 250;

/**
 * The cancellable progress notification of a command query: names the application, shows the
 * HTTP status, how much text arrived and its tail. Cancel stops the query through the registry.
 */
export class ProgressSink implements QuerySink {
  private httpStatus: number | undefined;
  private chars = 0;
  private tail = '';
  private progress: vscode.Progress<{ message?: string }> | undefined;
  private ended = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private finish: (() => void) | undefined;

  constructor(private readonly registry: QueryRegistry) {}

  start(info: QueryInfo): void {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: plain`Querying ${info.applicationLabel}`, cancellable: true },
      (progress, token) => {
        this.progress = progress;
        const subscription = token.onCancellationRequested(() => this.registry.stop(info.queryId));
        this.render();
        return new Promise<void>((resolve) => {
          this.finish = () => {
            subscription.dispose();
            resolve();
          };
          if (this.ended) this.finish();
        });
      },
    );
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
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.finish?.();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.ended) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.render();
    }, REFRESH_MS);
  }

  private render(): void {
    if (this.progress === undefined || this.ended) return;
    const status = this.httpStatus === undefined ? 'Waiting for the service…' : `HTTP ${this.httpStatus}`;
    if (this.chars === 0) {
      this.progress.report({ message: status });
      return;
    }
    // The answer's last words are outside text: cut first (never inside a character), then made inert.
    const snippet = Array.from(this.tail.replace(/\s+/g, ' ').trim()).slice(-60).join('');
    const count = `${this.chars.toLocaleString('en-US')} characters`;
    this.progress.report({ message: snippet === '' ? `${status} · ${count}` : plain`${status} · ${count} · …${snippet}` });
  }
}
