import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { joinContexts } from '../../shared/conversation';
import type { QueryContext } from '../../shared/prepare';
import type { ContextRef } from '../../shared/queryFile';

/** A context file that cannot be sent, and why (shown on its line). */
export interface ContextProblem {
  readonly ref: ContextRef;
  readonly message: string;
}

/** The context files of a query read and joined, or the first one that cannot be sent (then nothing is sent). */
export type ContextResult = { readonly ok: true; readonly context?: QueryContext } | ({ readonly ok: false } & ContextProblem);

/**
 * Where a context file really is, or why it may not be read. The fence: the file must lie inside
 * the workspace folder that holds the query file, checked on resolved paths (every symbolic link
 * followed, on both sides), so neither `..`, an absolute path nor a link inside the repository can
 * reach a file outside it. Without a workspace folder a query file may name no context at all.
 */
export async function locateContextFile(queryFile: vscode.Uri, ref: ContextRef): Promise<{ uri: vscode.Uri } | { problem: string }> {
  const folder = vscode.workspace.getWorkspaceFolder(queryFile);
  if (folder === undefined) return { problem: 'A query file outside the workspace folders cannot name context files: open its folder, or save it inside one.' };
  const target = vscode.Uri.joinPath(folder.uri, ref.path);
  if (!inside(folder.uri.path, target.path, path.posix)) return { problem: `${ref.path} is outside the workspace folder ${folder.name}: a context file must be inside it.` };
  if (folder.uri.scheme !== 'file') return locateVirtual(folder, target, ref);
  let root: string;
  let real: string;
  let isFile: boolean;
  try {
    root = await fs.realpath(folder.uri.fsPath);
    real = await fs.realpath(target.fsPath);
    isFile = (await fs.stat(real)).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' || code === 'ENOTDIR' ? `${ref.path} does not exist in the workspace folder ${folder.name}.` : `${ref.path} cannot be read (${code ?? 'error'}).` };
  }
  if (!inside(root, real, path)) return { problem: `${ref.path} leads outside the workspace folder ${folder.name} (through a symbolic link): a context file must be inside it.` };
  if (!isFile) return { problem: `${ref.path} is not a file.` };
  return { uri: vscode.Uri.file(real) };
}

/** A virtual workspace (no local paths): links cannot be resolved there, so a link is refused. */
async function locateVirtual(folder: vscode.WorkspaceFolder, target: vscode.Uri, ref: ContextRef): Promise<{ uri: vscode.Uri } | { problem: string }> {
  try {
    const stat = await vscode.workspace.fs.stat(target);
    if ((stat.type & vscode.FileType.SymbolicLink) !== 0) return { problem: `${ref.path} is a symbolic link: in this workspace a context file must be a plain file.` };
    if ((stat.type & vscode.FileType.File) === 0) return { problem: `${ref.path} is not a file.` };
    return { uri: target };
  } catch {
    return { problem: `${ref.path} does not exist in the workspace folder ${folder.name}.` };
  }
}

/** Whether `child` is `root` or below it, comparing resolved paths (case-insensitively where the file system is). */
function inside(root: string, child: string, paths: typeof path.posix): boolean {
  const fold = process.platform === 'win32' || process.platform === 'darwin' ? (p: string) => p.toLowerCase() : (p: string) => p;
  const relative = paths.relative(fold(root), fold(child));
  return relative === '' || (!relative.startsWith('..') && !paths.isAbsolute(relative));
}

/**
 * Reads a query's context files (inside the fence, the line range cut), joined as one context the
 * way Chat attachments are; the first that cannot be sent stops the query before anything is sent.
 */
export async function readQueryContext(queryFile: vscode.Uri, refs: readonly ContextRef[]): Promise<ContextResult> {
  const contexts: QueryContext[] = [];
  for (const ref of refs) {
    const located = await locateContextFile(queryFile, ref);
    if ('problem' in located) return { ok: false, ref, message: located.problem };
    let doc: vscode.TextDocument;
    try {
      doc = await vscode.workspace.openTextDocument(located.uri);
    } catch (error) {
      return { ok: false, ref, message: `${ref.path} cannot be read as text: ${error instanceof Error ? error.message : String(error)}` };
    }
    const whole = doc.getText();
    if (ref.startLine === undefined) {
      contexts.push({ kind: 'file', label: ref.path, text: whole, fileName: ref.path, languageId: doc.languageId, fileText: whole });
      continue;
    }
    const end = ref.endLine ?? ref.startLine;
    if (ref.startLine > doc.lineCount) return { ok: false, ref, message: `${ref.path} has ${doc.lineCount} lines; line ${ref.startLine} does not exist.` };
    const last = Math.min(end, doc.lineCount) - 1;
    const text = doc.getText(new vscode.Range(ref.startLine - 1, 0, last, doc.lineAt(last).text.length));
    const lines = ref.startLine === end ? `${ref.startLine}` : `${ref.startLine}-${end}`;
    contexts.push({ kind: 'selection', label: `${ref.path}:${lines}`, text, fileName: ref.path, languageId: doc.languageId, fileText: whole });
  }
  return { ok: true, context: joinContexts(contexts) };
}
