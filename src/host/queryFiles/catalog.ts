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

/** How long created paths gather before they are looked at (a checkout or an unpacked folder creates many at once). */
const CREATED_SETTLE_MS = 200;

/** Paths never searched for query files, as discovery skips them. */
const SKIPPED = /\/(node_modules|\.git)(\/|$)/;

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
  /**
   * Bumped on every read started and every entry set or removed, per file: a read applies only if
   * nothing about its file happened since it started, so a slow read never puts back older text,
   * and discovery never drops a file a watcher added while it searched.
   */
  private readonly tickets = new Map<string, number>();
  private readonly created = new Set<string>();
  private createdTimer: ReturnType<typeof setTimeout> | undefined;
  /** Fires when a file is added, changed (entry) or gone (undefined). */
  readonly onDidChange = this.changed.event;

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher(QUERY_FILE_GLOB);
    // A folder deleted (or moved away) is reported as the folder only, which the glob does not
    // match. A folder created or moved in may be reported without the files in it: a move reports
    // only the folder, and files written into a new folder before the watcher watches it are never
    // reported (Linux's inotify watches each folder on its own). Each such folder is searched.
    const folders = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    this.disposables.push(
      watcher,
      folders,
      folders.onDidDelete((uri) => this.removeUnder(uri)),
      folders.onDidCreate((uri) => this.createdPath(uri)),
      { dispose: () => clearTimeout(this.createdTimer) },
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
    const before = new Map(this.tickets);
    const uris = await vscode.workspace.findFiles(QUERY_FILE_GLOB, '**/node_modules/**');
    const found = new Set(uris.map((uri) => uri.toString()));
    for (const [key, entry] of [...this.entries]) {
      // A file added or changed while the search ran is newer than the search.
      if (!found.has(key) && entry.uri.scheme !== 'untitled' && this.tickets.get(key) === before.get(key)) this.remove(entry.uri);
    }
    await this.readAll(uris);
  }

  /** Reads and parses files in batches, in slices of the event loop. */
  private async readAll(uris: readonly vscode.Uri[]): Promise<void> {
    const slices = new EventLoopSlices();
    for (let i = 0; i < uris.length; i += READ_BATCH) {
      const batch = uris.slice(i, i + READ_BATCH);
      const tickets = batch.map((uri) => this.ticket(uri));
      const reads = await Promise.all(batch.map(async (uri) => this.openText(uri) ?? readText(uri)));
      for (let j = 0; j < batch.length; j++) {
        const read = reads[j];
        if (read !== undefined && this.holds(batch[j], tickets[j])) this.set(batch[j], read);
        const turn = slices.due();
        if (turn !== undefined) await turn;
      }
    }
  }

  /** A path the workspace gained: gathered for a moment, then each folder among them is searched for query files. */
  private createdPath(uri: vscode.Uri): void {
    if (isQueryFile(uri) || SKIPPED.test(uri.path) || vscode.workspace.getWorkspaceFolder(uri) === undefined) return;
    this.created.add(uri.toString());
    clearTimeout(this.createdTimer);
    this.createdTimer = setTimeout(() => void this.searchCreated(), CREATED_SETTLE_MS);
  }

  private async searchCreated(): Promise<void> {
    const keys = new Set(this.created);
    this.created.clear();
    // A folder's search covers what was created inside it: only paths whose parent was there before are looked at.
    const tops = [...keys].filter((key) => !hasAncestorIn(key, keys));
    const slices = new EventLoopSlices();
    for (let i = 0; i < tops.length; i += READ_BATCH) {
      const batch = tops.slice(i, i + READ_BATCH).map((key) => vscode.Uri.parse(key));
      const folders = await Promise.all(batch.map(async (uri) => ((await isFolder(uri)) ? uri : undefined)));
      for (const folder of folders) {
        if (folder === undefined) continue;
        const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, QUERY_FILE_GLOB), '**/node_modules/**');
        await this.readAll(found.filter((uri) => !this.entries.has(uri.toString())));
      }
      const turn = slices.due();
      if (turn !== undefined) await turn;
    }
  }

  /** Starts a read of a file: the ticket it must still hold when the read is done. */
  private ticket(uri: vscode.Uri): number {
    const key = uri.toString();
    const next = (this.tickets.get(key) ?? 0) + 1;
    this.tickets.set(key, next);
    return next;
  }

  /** Whether nothing happened to a file since its read took this ticket. */
  private holds(uri: vscode.Uri, ticket: number): boolean {
    return this.tickets.get(uri.toString()) === ticket;
  }

  private openText(uri: vscode.Uri): Read | undefined {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    return open === undefined ? undefined : documentText(open);
  }

  private async refresh(uri: vscode.Uri): Promise<void> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    if (open !== undefined && open.isDirty) return; // the editor's text wins until it is saved or closed
    const ticket = this.ticket(uri);
    const read = open === undefined ? await readText(uri) : documentText(open);
    if (!this.holds(uri, ticket)) return;
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
    this.ticket(uri);
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
    this.ticket(uri);
    if (this.entries.delete(uri.toString())) this.changed.fire({ uri, entry: undefined });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Whether any folder above this URI (as a string) is in the set. */
function hasAncestorIn(key: string, keys: ReadonlySet<string>): boolean {
  for (let cut = key.lastIndexOf('/'); cut > 0; cut = key.lastIndexOf('/', cut - 1)) {
    if (keys.has(key.slice(0, cut))) return true;
  }
  return false;
}

/** Whether a path is a folder now (false when it is gone or unreadable). */
async function isFolder(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
  } catch {
    return false;
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
