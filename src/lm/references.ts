import * as vscode from 'vscode';
import type { QueryContext } from '../core/prepare';
import { fileContext } from '../workbench/editorContext';
import { joinContexts } from './conversation';

/** The context a chat request's references make, and the references that could not be read. */
export interface ReferenceContext {
  readonly context?: QueryContext;
  /** Labels of references that are not text (images, folders…) and were not sent. */
  readonly skipped: readonly string[];
}

/**
 * Reads a chat request's references (`#file`, `#selection`, attached files, the editor selection
 * the chat attaches) as query context: a file reference sends the file, a location sends its
 * range, a string value is sent as it is. Anything else is skipped and named, never guessed at.
 */
export async function referenceContext(references: readonly vscode.ChatPromptReference[]): Promise<ReferenceContext> {
  const contexts: QueryContext[] = [];
  const skipped: string[] = [];
  for (const reference of references) {
    const value = reference.value;
    try {
      if (value instanceof vscode.Uri) {
        contexts.push(fileContext(await vscode.workspace.openTextDocument(value)));
      } else if (value instanceof vscode.Location) {
        contexts.push(locationContext(await vscode.workspace.openTextDocument(value.uri), value.range));
      } else if (typeof value === 'string') {
        const label = reference.modelDescription ?? reference.id;
        contexts.push({ kind: 'selection', label, text: value, fileName: '', languageId: '', fileText: value });
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

function locationContext(doc: vscode.TextDocument, range: vscode.Range): QueryContext {
  const whole = fileContext(doc);
  if (range.isEmpty) return whole;
  const lines = range.start.line === range.end.line ? `${range.start.line + 1}` : `${range.start.line + 1}-${range.end.line + 1}`;
  return { ...whole, kind: 'selection', label: `${whole.label}:${lines}`, text: doc.getText(range) };
}

function referenceName(reference: vscode.ChatPromptReference): string {
  const value = reference.value;
  if (value instanceof vscode.Uri) return vscode.workspace.asRelativePath(value, false);
  return reference.id;
}
