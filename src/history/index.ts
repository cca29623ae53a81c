import { statSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HistoryStorage, HistoryStore } from '../core/history';
import type { Log } from '../log/log';
import { registerHistoryCommands, type HistoryCommandDeps } from './historyCommands';
import { registerHistoryView } from './historyView';
import { INSPECTOR_SCHEME, Inspector } from './inspector';

const STORAGE_KEY = 'applicationQuery.history';
const FILE_NAME = 'history.json';

/**
 * Where History lives: `history.json` in the extension's global storage folder (this machine's
 * storage for the extension: not settings, not workspace files, not synced). A file rather than
 * globalState, which VS Code loads whole at every start and which is meant for small values. A
 * host without a file system (a web extension host) falls back to globalState.
 */
export function historyStorage(context: vscode.ExtensionContext): HistoryStorage {
  if (context.globalStorageUri.scheme !== 'file') {
    return { get: () => context.globalState.get<unknown>(STORAGE_KEY), update: (value) => Promise.resolve(context.globalState.update(STORAGE_KEY, value)) };
  }
  return fileStorage(path.join(context.globalStorageUri.fsPath, FILE_NAME));
}

/**
 * A JSON file as History's storage. `get` re-reads the file only when another window changed it
 * (its size or modification time moved), so the same parsed value comes back otherwise; `update`
 * writes a temporary file and renames it over the old one, so a crash never leaves half a file.
 */
function fileStorage(file: string): HistoryStorage {
  let cache: { readonly mtimeMs: number; readonly size: number; readonly value: unknown } | undefined;
  const stamp = (): { mtimeMs: number; size: number } | undefined => {
    try {
      const { mtimeMs, size } = statSync(file);
      return { mtimeMs, size };
    } catch {
      return undefined;
    }
  };
  return {
    get: () => {
      const now = stamp();
      if (now === undefined) return undefined;
      if (cache !== undefined && cache.mtimeMs === now.mtimeMs && cache.size === now.size) return cache.value;
      try {
        cache = { ...now, value: JSON.parse(readFileSync(file, 'utf8')) as unknown };
      } catch {
        cache = { ...now, value: undefined };
      }
      return cache.value;
    },
    update: async (value) => {
      await mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(value));
      await rename(temporary, file);
      const now = stamp();
      if (now !== undefined) cache = { ...now, value };
    },
  };
}

/** Registers History: every exchange the runner reports is recorded; the view, the inspector and their commands. */
export function registerHistory(context: vscode.ExtensionContext, deps: Omit<HistoryCommandDeps, 'inspector'> & { readonly history: HistoryStore; readonly log: Log }): void {
  const inspector = new Inspector(deps.history);
  for (const problem of deps.history.problems) deps.log.warn(`History: ${problem}`);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(INSPECTOR_SCHEME, inspector),
    deps.runner.onExchange((exchange) => {
      deps.history.add(exchange).catch((error: unknown) => deps.log.error(`History could not record the exchange: ${error instanceof Error ? error.message : String(error)}`));
    }),
  );
  registerHistoryView(context, deps.history);
  registerHistoryCommands(context, { ...deps, inspector });
}
