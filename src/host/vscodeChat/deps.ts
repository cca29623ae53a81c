import type * as vscode from 'vscode';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import type { Log } from '../platform/log';
import type { QueryRunner } from '../query/runner';
import type { KeyStore } from '../platform/keyStore';

/** What the parts in VS Code's own Chat (participant, models, tool) need. */
export interface LanguageModelDeps {
  readonly extensionUri: vscode.Uri;
  readonly settings: Settings;
  readonly keys: KeyStore;
  readonly current: CurrentApplication;
  readonly runner: QueryRunner;
  readonly log: Log;
}
