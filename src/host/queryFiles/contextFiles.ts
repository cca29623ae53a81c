import * as path from 'node:path';
import * as vscode from 'vscode';
import { isInside, openFenced, readFenced } from '../../client/queryFiles/contextFence';
import type { ContextFileReader } from '../../client/queryFiles/contextText';
import type { ContextRef } from '../../shared/queryFile';

const NO_FOLDER = 'A query file outside the workspace folders cannot name context files: open its folder, or save it inside one.';

/**
 * Reads the context files of one query file inside the fence: the file must lie inside the
 * workspace folder that holds the query file. In a local folder the engine's fence opens the file
 * first and then checks what it opened (its real path, a regular file, no hard link out), so
 * neither `..`, an absolute path, a link, nor a folder swapped for a link can reach a file outside.
 * In a virtual workspace (no local paths) links cannot be resolved, so a link is refused.
 */
export function contextReader(queryFile: vscode.Uri): ContextFileReader {
  return async (ref) => {
    const folder = vscode.workspace.getWorkspaceFolder(queryFile);
    if (folder === undefined) return { problem: NO_FOLDER };
    if (folder.uri.scheme === 'file') return readFenced(folder.uri.fsPath, folder.name, ref);
    const located = await locateVirtual(folder, ref);
    if ('problem' in located) return located;
    try {
      return { text: new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(located.uri)) };
    } catch (error) {
      return { problem: `${ref.path} cannot be read as text: ${error instanceof Error ? error.message : String(error)}` };
    }
  };
}

/** Whether a context file could be read now, or why not (the editor's diagnostics). Reads nothing of it. */
export async function checkContextFile(queryFile: vscode.Uri, ref: ContextRef): Promise<{ problem?: string }> {
  const folder = vscode.workspace.getWorkspaceFolder(queryFile);
  if (folder === undefined) return { problem: NO_FOLDER };
  if (folder.uri.scheme !== 'file') {
    const located = await locateVirtual(folder, ref);
    return 'problem' in located ? located : {};
  }
  const opened = await openFenced(folder.uri.fsPath, folder.name, ref);
  if ('problem' in opened) return opened;
  await opened.handle.close();
  return {};
}

/** A context file in a virtual workspace: inside the folder by its path, and a plain file (a link is refused). */
async function locateVirtual(folder: vscode.WorkspaceFolder, ref: ContextRef): Promise<{ uri: vscode.Uri } | { problem: string }> {
  const target = vscode.Uri.joinPath(folder.uri, ref.path);
  if (!isInside(folder.uri.path, target.path, path.posix)) return { problem: `${ref.path} is outside the workspace folder ${folder.name}: a context file must be inside it.` };
  try {
    const stat = await vscode.workspace.fs.stat(target);
    if ((stat.type & vscode.FileType.SymbolicLink) !== 0) return { problem: `${ref.path} is a symbolic link: in this workspace a context file must be a plain file.` };
    if ((stat.type & vscode.FileType.File) === 0) return { problem: `${ref.path} is not a file.` };
    return { uri: target };
  } catch {
    return { problem: `${ref.path} does not exist in the workspace folder ${folder.name}.` };
  }
}
