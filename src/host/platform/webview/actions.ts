import * as vscode from 'vscode';
import { userEditor } from '../editorContext';
import type { PageToHost } from '../../../shared/protocol';
import { Commands } from '../commandIds';
import { plain } from '../../../shared/plainText';

/** Messages about an answer's content that every surface handles the same way. */
export type ContentAction = Extract<PageToHost, { type: 'copy' | 'insertCode' | 'openCode' | 'openLink' | 'setApiKey' }>;

/** Each content action by the name the user knows it by (for a failure's warning). */
const CONTENT_ACTIONS: Readonly<Record<ContentAction['type'], string>> = {
  copy: 'Copy',
  insertCode: 'Insert at Cursor',
  openCode: 'Open in New Editor',
  openLink: 'Opening the link',
  setApiKey: 'Set API Key…',
};

/** Whether `message` is one of the shared content actions (narrows it for the caller's own switch). */
export function isContentAction(message: { readonly type: string }): message is ContentAction {
  return Object.hasOwn(CONTENT_ACTIONS, message.type);
}

/**
 * Runs a content action from a webview. Failures (an editor that went read-only, a clipboard the
 * platform refuses) become a warning instead of an unhandled rejection in the extension host.
 */
export function runContentAction(message: ContentAction, applicationId: string | undefined): void {
  background(contentAction(message, applicationId), CONTENT_ACTIONS[message.type]);
}

function contentAction(message: ContentAction, applicationId: string | undefined): Thenable<unknown> {
  switch (message.type) {
    case 'copy':
      return copyText(message.text);
    case 'insertCode':
      return insertAtCursor(message.code);
    case 'openCode':
      return openInEditor(message.code, message.language);
    case 'openLink':
      return openLink(message.href);
    case 'setApiKey':
      return vscode.commands.executeCommand(Commands.setApiKey, applicationId);
  }
}

/** Lets a task run on its own; if it fails, says so in a warning rather than leaving the rejection unhandled. */
export function background(task: Thenable<unknown>, what: string): void {
  task.then(undefined, (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    void vscode.window.showWarningMessage(plain`${what} did not complete: ${reason}`);
  });
}

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
  const applied = await editor.edit((edit) => {
    for (const selection of editor.selections) {
      edit.replace(selection, code);
    }
  });
  if (!applied) {
    void vscode.window.showWarningMessage(plain`Could not insert the code into ${editor.document.fileName}: the editor refused the edit (is it read-only?).`);
    return;
  }
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
