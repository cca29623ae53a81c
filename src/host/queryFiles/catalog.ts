import * as vscode from 'vscode';
import { parseQueryFile, type ParsedQueryFile } from '../../shared/queryFile';

/** The glob of query files. */
export const QUERY_FILE_GLOB = '**/*.aq.md';

/** Whether a document or URI is a query file (by its name). */
export function isQueryFile(uri: vscode.Uri): boolean {
  return uri.path.toLowerCase().endsWith('.aq.md');
}

/** A query file as last read: from its open editor when it has one (unsaved edits included), else from disk. */
export interface CatalogEntry {
  readonly uri: vscode.Uri;
  readonly parsed: ParsedQueryFile;
}

/** How long discovery may hold the extension host before it lets other work run. */
const SLICE_MS = 8;
/** Files read from disk at once. */
const READ_BATCH = 16;

const yieldToHost = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Every query file of the workspace, parsed, kept current as files are created, changed (on disk
 * or in an editor) and deleted. Discovery reads in batches and parses in slices of a few
 * milliseconds, so a large repository never holds the extension host for long.
 */
export class QueryFileCatalog implements vscode.Disposable {
  private readonly entries = new Map<string, CatalogEntry>();
  private readonly documents = new Map<string, { version: number; parsed: ParsedQueryFile }>();
  private readonly changed = new vscode.EventEmitter<{ uri: vscode.Uri; entry: CatalogEntry | undefined }>();
  private readonly disposables: vscode.Disposable[] = [];
  private discovering: Promise<void> | undefined;
  /** Fires when a file is added, changed (entry) or gone (undefined). */
  readonly onDidChange = this.changed.event;

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher(QUERY_FILE_GLOB);
    // A folder deleted (or moved away) is reported as the folder only, which the glob does not match.
    const deletions = vscode.workspace.createFileSystemWatcher('**/*', true, true, false);
    this.disposables.push(
      watcher,
      deletions,
      deletions.onDidDelete((uri) => this.removeUnder(uri)),
      this.changed,
      watcher.onDidCreate((uri) => void this.refresh(uri)),
      watcher.onDidChange((uri) => void this.refresh(uri)),
      watcher.onDidDelete((uri) => this.remove(uri)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (isQueryFile(e.document.uri) && e.contentChanges.length > 0) this.fromDocument(e.document);
      }),
      vscode.workspace.onDidOpenTextDocument((doc) => {
        if (isQueryFile(doc.uri) && doc.uri.scheme !== 'git') this.fromDocument(doc);
      }),
      // Closing an edited file drops its unsaved edits: read it again from disk.
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (!isQueryFile(doc.uri)) return;
        this.documents.delete(doc.uri.toString());
        if (doc.uri.scheme === 'untitled') this.remove(doc.uri);
        else if (doc.isDirty) void this.refresh(doc.uri);
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.discover(true)),
    );
  }

  /** Every known query file, in no particular order. */
  all(): CatalogEntry[] {
    return [...this.entries.values()];
  }

  /** The entry of one file, if known. */
  get(uri: vscode.Uri): CatalogEntry | undefined {
    return this.entries.get(uri.toString());
  }

  /** A document parsed (cached by version): what CodeLens, diagnostics and completion read. */
  parse(doc: vscode.TextDocument): ParsedQueryFile {
    const key = doc.uri.toString();
    const cached = this.documents.get(key);
    if (cached !== undefined && cached.version === doc.version) return cached.parsed;
    const parsed = parseQueryFile(doc.getText());
    this.documents.set(key, { version: doc.version, parsed });
    return parsed;
  }

  /** A query file as it is now: its open document's text, else the file on disk (a run reads this, never a stale list). */
  async current(uri: vscode.Uri): Promise<CatalogEntry | undefined> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    if (open !== undefined) return { uri, parsed: this.parse(open) };
    const text = await readText(uri);
    return text === undefined ? undefined : { uri, parsed: parseQueryFile(text) };
  }

  /** Finds and parses every query file of the workspace (once, unless `again`); later changes arrive through events. */
  discover(again = false): Promise<void> {
    if (this.discovering === undefined || again) this.discovering = this.discoverNow();
    return this.discovering;
  }

  private async discoverNow(): Promise<void> {
    const uris = await vscode.workspace.findFiles(QUERY_FILE_GLOB, '**/node_modules/**');
    const found = new Set(uris.map((uri) => uri.toString()));
    for (const key of [...this.entries.keys()]) {
      const entry = this.entries.get(key);
      if (entry !== undefined && !found.has(key) && entry.uri.scheme !== 'untitled') this.remove(entry.uri);
    }
    let sliceStart = Date.now();
    for (let i = 0; i < uris.length; i += READ_BATCH) {
      const batch = uris.slice(i, i + READ_BATCH);
      const texts = await Promise.all(batch.map(async (uri) => this.openText(uri) ?? readText(uri)));
      for (let j = 0; j < batch.length; j++) {
        const text = texts[j];
        if (text !== undefined) this.set(batch[j], parseQueryFile(text));
        if (Date.now() - sliceStart >= SLICE_MS) {
          await yieldToHost();
          sliceStart = Date.now();
        }
      }
    }
  }

  private openText(uri: vscode.Uri): string | undefined {
    return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString())?.getText();
  }

  private async refresh(uri: vscode.Uri): Promise<void> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    if (open !== undefined && open.isDirty) return; // the editor's text wins until it is saved or closed
    const text = open?.getText() ?? (await readText(uri));
    if (text === undefined) this.remove(uri);
    else this.set(uri, parseQueryFile(text));
  }

  private fromDocument(doc: vscode.TextDocument): void {
    // Only saved files of the workspace are tests; any other query file still gets CodeLens and diagnostics.
    if (doc.isUntitled || vscode.workspace.getWorkspaceFolder(doc.uri) === undefined) return;
    this.set(doc.uri, this.parse(doc));
  }

  private set(uri: vscode.Uri, parsed: ParsedQueryFile): void {
    const entry = { uri, parsed };
    this.entries.set(uri.toString(), entry);
    this.changed.fire({ uri, entry });
  }

  /** Forgets every query file at or below a deleted path. */
  private removeUnder(uri: vscode.Uri): void {
    const prefix = `${uri.toString()}/`;
    for (const entry of [...this.entries.values()]) {
      const key = entry.uri.toString();
      if (key === uri.toString() || key.startsWith(prefix)) this.remove(entry.uri);
    }
  }

  private remove(uri: vscode.Uri): void {
    if (this.entries.delete(uri.toString())) this.changed.fire({ uri, entry: undefined });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** A file's text (UTF-8, a byte order mark dropped), or undefined when it cannot be read. */
async function readText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    const bytes = await vscode.workspace.fs.readFile(uri);
    const text = new TextDecoder('utf-8').decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return undefined;
  }
}
