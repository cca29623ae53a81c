import * as vscode from 'vscode';
import { parseQueryFile, QUERY_FILE_MAX_BYTES, tooLargeQueryFile, type ParsedQueryFile } from '../../shared/queryFile';
import { EventLoopSlices } from '../../client/eventLoop';

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
  /** Set when the file is over QUERY_FILE_MAX_BYTES: its size; it was not read, `parsed` holds only the problem. */
  readonly tooLarge?: number;
}

/** A query file's text as read, or its size when it is too large to read. */
type Read = { readonly text: string } | { readonly tooLarge: number };

/** An entry's parse: the text's, or the too-large problem without reading further. */
function parsedOf(read: Read): ParsedQueryFile {
  return 'text' in read ? parseQueryFile(read.text) : tooLargeQueryFile(read.tooLarge);
}

/** Files read from disk at once. */
const READ_BATCH = 16;

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
    const parsed = parsedOf(documentText(doc));
    this.documents.set(key, { version: doc.version, parsed });
    return parsed;
  }

  /** A query file as it is now: its open document's text, else the file on disk (a run reads this, never a stale list). */
  async current(uri: vscode.Uri): Promise<CatalogEntry | undefined> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    if (open !== undefined) return this.documentEntry(open);
    const read = await readText(uri);
    return read === undefined ? undefined : entryOf(uri, read, parsedOf(read));
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
    const slices = new EventLoopSlices();
    for (let i = 0; i < uris.length; i += READ_BATCH) {
      const batch = uris.slice(i, i + READ_BATCH);
      const reads = await Promise.all(batch.map(async (uri) => this.openText(uri) ?? readText(uri)));
      for (let j = 0; j < batch.length; j++) {
        const read = reads[j];
        if (read !== undefined) this.set(batch[j], read);
        const turn = slices.due();
        if (turn !== undefined) await turn;
      }
    }
  }

  private openText(uri: vscode.Uri): Read | undefined {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    return open === undefined ? undefined : documentText(open);
  }

  private async refresh(uri: vscode.Uri): Promise<void> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    if (open !== undefined && open.isDirty) return; // the editor's text wins until it is saved or closed
    const read = open === undefined ? await readText(uri) : documentText(open);
    if (read === undefined) this.remove(uri);
    else this.set(uri, read);
  }

  private fromDocument(doc: vscode.TextDocument): void {
    // Only saved files of the workspace are tests; any other query file still gets CodeLens and diagnostics.
    if (doc.isUntitled || vscode.workspace.getWorkspaceFolder(doc.uri) === undefined) return;
    this.setParsed(this.documentEntry(doc));
  }

  /** An open document's entry, parsed (and cached) by {@link parse}. */
  private documentEntry(doc: vscode.TextDocument): CatalogEntry {
    const parsed = this.parse(doc);
    const length = documentLength(doc);
    return length > QUERY_FILE_MAX_BYTES ? { uri: doc.uri, parsed, tooLarge: length } : { uri: doc.uri, parsed };
  }

  private set(uri: vscode.Uri, read: Read): void {
    this.setParsed(entryOf(uri, read, parsedOf(read)));
  }

  private setParsed(entry: CatalogEntry): void {
    const uri = entry.uri;
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

/** An entry of what was read and its parse. */
function entryOf(uri: vscode.Uri, read: Read, parsed: ParsedQueryFile): CatalogEntry {
  return 'tooLarge' in read ? { uri, parsed, tooLarge: read.tooLarge } : { uri, parsed };
}

/** An open document's length in UTF-16 characters, measured without copying its text. */
function documentLength(doc: vscode.TextDocument): number {
  return doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end);
}

/** An open document's text, or its length when it is over the limit. */
function documentText(doc: vscode.TextDocument): Read {
  const length = documentLength(doc);
  return length > QUERY_FILE_MAX_BYTES ? { tooLarge: length } : { text: doc.getText() };
}

/**
 * A file's text (UTF-8, a byte order mark dropped), its size when it is over the limit (then it is
 * not read), or undefined when it cannot be read.
 */
async function readText(uri: vscode.Uri): Promise<Read | undefined> {
  try {
    const { size } = await vscode.workspace.fs.stat(uri);
    if (size > QUERY_FILE_MAX_BYTES) return { tooLarge: size };
    const bytes = await vscode.workspace.fs.readFile(uri);
    // It may have grown since: its text is in memory now, but it is still not parsed.
    if (bytes.byteLength > QUERY_FILE_MAX_BYTES) return { tooLarge: bytes.byteLength };
    const text = new TextDecoder('utf-8').decode(bytes);
    return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
  } catch {
    return undefined;
  }
}
