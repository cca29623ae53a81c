import type * as vscode from 'vscode';
import type { CurrentApplication } from '../config/currentApplication';
import type { Settings } from '../config/settings';
import type { Log } from '../log/log';
import type { QueryRunner } from '../query/runner';
import type { KeyStore } from '../secrets/keyStore';

/** What the parts in VS Code's own Chat (participant, models, tool) need. */
export interface LanguageModelDeps {
  readonly extensionUri: vscode.Uri;
  readonly settings: Settings;
  readonly keys: KeyStore;
  readonly current: CurrentApplication;
  readonly runner: QueryRunner;
  readonly log: Log;
}
