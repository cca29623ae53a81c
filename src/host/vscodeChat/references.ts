import * as vscode from 'vscode';
import type { QueryContext } from '../../shared/prepare';
import { fileContext } from '../platform/editorContext';
import { joinContexts } from '../../shared/conversation';

/** The context a chat request's references make, and the references that could not be read. */
export interface ReferenceContext {
  readonly context?: QueryContext;
  /** Names of references the user attached that are not text (images, folders, problems…) and were not sent. */
  readonly skipped: readonly string[];
}

/**
 * Ids of the references VS Code's Chat adds on its own (1.139: instructions and prompt files as
 * `vscode.instructions.file.root__<uri>`, `vscode.prompt.file__<uri>`; the "customizations index"
 * of its skills, with local paths, as `vscode.customizations.index`). They are the Chat's own
 * context for its own models, never something the user attached.
 */
const CHAT_OWN_IDS = /^vscode\.(prompt|instructions|customizations|promptCache|agent)/;
/** Files that are prompts or instructions for a chat (VS Code's prompt files, skills, agent notes). */
const PROMPT_FILE = /(\.(prompt|instructions|agent|chatmode)\.md|\/SKILL\.md|\/copilot-instructions\.md|\/AGENTS\.md|\/CLAUDE\.md)$/i;
/** Text the user pasted into the Chat as an attachment (1.139: `chat-paste-<uuid>`). */
const PASTED = /^chat-paste-/;

/**
 * Reads what the user attached to a chat request (`#file`, `#selection`, attached files, the
 * editor selection the Chat attaches, pasted text) as query context: a file sends the file, a
 * location sends its range, pasted text is sent as it is. The Chat's own instructions, indexes and
 * prompt files, and tool references, are never sent. Anything else is not sent and is named.
 */
export async function referenceContext(references: readonly vscode.ChatPromptReference[]): Promise<ReferenceContext> {
  const contexts: QueryContext[] = [];
  const skipped: string[] = [];
  for (const reference of references) {
    const value: unknown = reference.value;
    if (isChatOwn(reference)) continue;
    try {
      if (value instanceof vscode.Uri) {
        contexts.push(fileContext(await vscode.workspace.openTextDocument(value)));
      } else if (value instanceof vscode.Location) {
        contexts.push(locationContext(await vscode.workspace.openTextDocument(value.uri), value.range));
      } else if (typeof value === 'string' && PASTED.test(reference.id)) {
        contexts.push({ kind: 'selection', label: 'Pasted text', text: value, fileName: '', languageId: '', fileText: value });
      } else {
        skipped.push(referenceName(reference));
      }
    } catch {
      // A folder, a binary file or one that is gone: nothing to send as text.
      skipped.push(referenceName(reference));
    }
  }
  return { context: joinContexts(contexts), skipped };
}

/** The Chat's (or another extension's) own context: by its id, a prompt file's path, or tool references. */
function isChatOwn(reference: vscode.ChatPromptReference): boolean {
  if (CHAT_OWN_IDS.test(reference.id)) return true;
  const { toolReferences } = reference as { readonly toolReferences?: unknown };
  if (toolReferences !== undefined) return true;
  const value: unknown = reference.value;
  const uri = value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined;
  return uri !== undefined && PROMPT_FILE.test(uri.path);
}

function locationContext(doc: vscode.TextDocument, range: vscode.Range): QueryContext {
  const whole = fileContext(doc);
  if (range.isEmpty) return whole;
  const lines = range.start.line === range.end.line ? `${range.start.line + 1}` : `${range.start.line + 1}-${range.end.line + 1}`;
  return { ...whole, kind: 'selection', label: `${whole.label}:${lines}`, text: doc.getText(range) };
}

function referenceName(reference: vscode.ChatPromptReference): string {
  const value = reference.value;
  if (value instanceof vscode.Uri) return vscode.workspace.asRelativePath(value, false);
  // 1.139 gives every reference the name the Chat shows for it (not in the 1.100 typings).
  const { name } = reference as { readonly name?: unknown };
  return typeof name === 'string' && name !== '' ? name : reference.id;
}
