import * as vscode from 'vscode';
import { plainText } from '../../shared/plainText';

/** The scheme of the read-only documents that hold answers for VS Code's diff editor. */
export const ANSWER_SCHEME = 'applicationQuery-answer';

/** How many answers are kept for open diff editors (the oldest are forgotten first). */
const KEPT = 64;

/** An answer to show in the diff editor: who gave it, and its text. */
export interface AnswerText {
  /** Unique per answer (a Compare column's turn, a History entry). */
  readonly id: string;
  /** What the editor's tab says, e.g. `Support Bot on staging`. */
  readonly label: string;
  readonly text: string;
}

/**
 * Answers as read-only documents (`applicationQuery-answer:` URIs), so VS Code's diff editor can
 * show any two side by side. The text is the answer exactly as received (already masked); the
 * documents cannot be edited or saved, and only the latest {@link KEPT} are kept.
 */
export class AnswerDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly registration: vscode.Disposable;
  /** Fires when an answer's text is replaced (a retried column). */
  readonly onDidChange = this.changed.event;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(ANSWER_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '(This answer is no longer kept: open the comparison again.)';
  }

  /** Opens VS Code's diff editor with `left` and `right`. */
  async diff(left: AnswerText, right: AnswerText): Promise<void> {
    const title = plainText(`${left.label} ↔ ${right.label}`);
    await vscode.commands.executeCommand('vscode.diff', this.keep(left), this.keep(right), title, { preview: false });
  }

  /** The document of an answer (its text kept, or replaced if it changed). */
  keep(answer: AnswerText): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: ANSWER_SCHEME, path: `/${fileName(answer.label)}.md`, query: answer.id });
    const before = this.texts.get(answer.id);
    this.texts.delete(answer.id);
    this.texts.set(answer.id, answer.text);
    while (this.texts.size > KEPT) this.texts.delete(this.texts.keys().next().value as string);
    if (before !== undefined && before !== answer.text) this.changed.fire(uri);
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.texts.clear();
  }
}

/** A label as a file name the editor shows: letters, digits, `.`, `-` and `_` only. */
function fileName(label: string): string {
  const name = label.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 80);
  return name === '' ? 'answer' : name;
}
