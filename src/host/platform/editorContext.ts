import * as path from 'node:path';
import * as vscode from 'vscode';
import type { QueryContext } from '../../shared/prepare';

/** Editors of these schemes are the workbench's own (the Output view, the debug console), not the user's text. */
const NOT_USER_TEXT = new Set(['output', 'debug', 'vscode-terminal']);

/** The editor the user is working in: the active text editor unless it is the Output view, else a visible one. */
export function userEditor(): vscode.TextEditor | undefined {
  const isUser = (e: vscode.TextEditor | undefined): e is vscode.TextEditor => e !== undefined && !NOT_USER_TEXT.has(e.document.uri.scheme);
  const active = vscode.window.activeTextEditor;
  return isUser(active) ? active : vscode.window.visibleTextEditors.find(isUser);
}

/** The active editor's selection as query context, or undefined if nothing is selected. */
export function selectionContext(editor: vscode.TextEditor | undefined): QueryContext | undefined {
  if (!editor) {
    return undefined;
  }
  const parts = editor.selections.filter((s) => !s.isEmpty);
  if (parts.length === 0) {
    return undefined;
  }
  const doc = editor.document;
  const text = parts.map((s) => doc.getText(s)).join('\n');
  const first = parts[0];
  const name = displayName(doc);
  const lines = first.start.line === first.end.line ? `${first.start.line + 1}` : `${first.start.line + 1}-${first.end.line + 1}`;
  return {
    kind: 'selection',
    label: `${name}:${lines}${parts.length > 1 ? ` (+${parts.length - 1} more)` : ''}`,
    text,
    fileName: name,
    languageId: doc.languageId,
    fileText: doc.getText(),
  };
}

/** A whole document as query context. */
export function fileContext(doc: vscode.TextDocument): QueryContext {
  const name = displayName(doc);
  const text = doc.getText();
  return { kind: 'file', label: name, text, fileName: name, languageId: doc.languageId, fileText: text };
}

/** The document a file command is about: the explorer's resource, else the active editor's. */
export async function documentFor(uri: unknown): Promise<vscode.TextDocument | undefined> {
  if (uri instanceof vscode.Uri) {
    return vscode.workspace.openTextDocument(uri);
  }
  return userEditor()?.document;
}

function displayName(doc: vscode.TextDocument): string {
  if (doc.isUntitled) {
    return doc.uri.path;
  }
  return vscode.workspace.asRelativePath(doc.uri, false) || path.basename(doc.uri.fsPath);
}
