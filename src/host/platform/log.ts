import * as vscode from 'vscode';
import { maskCredentials, maskSecrets } from '../../shared/secretMask';

/** Channel names, fixed by the product contract. */
export const ANSWER_CHANNEL = 'Application Query';
export const LOG_CHANNEL = 'Application Query Log';

/**
 * The diagnostics log ("Application Query Log"). Every line passes through masking of every key
 * the session has handled, so a key can never reach the log even by mistake.
 */
export class Log implements vscode.Disposable {
  private readonly channel: vscode.LogOutputChannel;

  constructor(private readonly secrets: () => readonly string[]) {
    this.channel = vscode.window.createOutputChannel(LOG_CHANNEL, { log: true });
  }

  /** The text with every key this session has handled masked (in any encoded form): for anything shown to the user. */
  mask(message: string): string {
    return maskSecrets(message, this.secrets());
  }

  /** A log line may quote headers or a request: a `Bearer` token there is a credential too. */
  private clean(message: string): string {
    return maskCredentials(message, this.secrets());
  }

  /** A normal event: a request and its outcome. */
  info(message: string): void {
    this.channel.info(this.clean(message));
  }

  /** Something the user may want to know about. */
  warn(message: string): void {
    this.channel.warn(this.clean(message));
  }

  /** A failure. */
  error(message: string): void {
    this.channel.error(this.clean(message));
  }

  /** Detail for troubleshooting (shown at Trace level), e.g. the raw wire text. */
  trace(message: string): void {
    this.channel.trace(this.clean(message));
  }

  /** Reveals the log. */
  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
