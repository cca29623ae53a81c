import * as vscode from 'vscode';
import { userEditor } from '../commands/editorContext';

/** Copies text to the clipboard and says so in the status bar. */
export async function copyText(text: string): Promise<void> {
  await vscode.env.clipboard.writeText(text);
  vscode.window.setStatusBarMessage('$(check) Copied to the clipboard', 2000);
}

/** Inserts a code block at the cursor of the last active text editor. */
export async function insertAtCursor(code: string): Promise<void> {
  const editor = userEditor();
  if (!editor) {
    void vscode.window.showWarningMessage('Open an editor first: there is no cursor to insert the code at.');
    return;
  }
  await editor.edit((edit) => {
    for (const selection of editor.selections) {
      edit.replace(selection, code);
    }
  });
  await vscode.window.showTextDocument(editor.document, editor.viewColumn);
}

/** Opens text in a new untitled editor. */
export async function openInEditor(content: string, language?: string): Promise<void> {
  const known = language ? (await vscode.languages.getLanguages()).includes(language) : false;
  const doc = await vscode.workspace.openTextDocument({ content, language: known ? language : undefined });
  await vscode.window.showTextDocument(doc, { preview: false });
}

/** Opens an http(s) or mailto link from an answer in the user's browser; other schemes do nothing. */
export async function openLink(href: string): Promise<void> {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(href, true);
  } catch {
    return;
  }
  if (uri.scheme === 'http' || uri.scheme === 'https' || uri.scheme === 'mailto') {
    await vscode.env.openExternal(uri);
  }
}
