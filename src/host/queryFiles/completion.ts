import * as vscode from 'vscode';
import { applicationName } from '../../shared/applications';
import { plainText } from '../../shared/plainText';
import type { Settings } from '../platform/settings';

/** The option keys, with what each does. */
const KEYS: readonly (readonly [string, string])[] = [
  ['application', 'The application to ask: an id or a name; several, comma-separated, run each.'],
  ['environment', 'The environment to send to (a name from applicationQuery.environments).'],
  ['context', 'A workspace-relative file sent with the question, optionally #L10-40. Repeatable.'],
  ['expect', 'What the answer must satisfy. Repeatable.'],
  ['cases', 'A CSV (header row), JSON Lines or JSON array file: each row is one case, its values fill {{column}}.'],
  ['runs', 'Send the query this many times (at most 20).'],
  ['passes', 'How many of the runs must pass (default: all).'],
];

/** The `expect:` forms, as snippets. */
const EXPECT_FORMS: readonly (readonly [string, string, string])[] = [
  ['contains "…"', 'contains "${1:text}"', 'The answer contains the text (case-sensitive).'],
  ['not contains "…"', 'not contains "${1:text}"', 'The answer does not contain the text.'],
  ['matches /…/', 'matches /${1:pattern}/${2:i}', 'The answer matches the regular expression: JavaScript syntax and flags (i, m, s, u), run in linear time, so no backreferences (\\1) or lookaround ((?=…), (?<=…)).'],
  ['status 200', 'status ${1:200}', 'The HTTP status (also 2xx).'],
  ['first byte under 2s', 'first byte under ${1:2s}', 'The first byte of the answer arrives in time.'],
  ['total under 10s', 'total under ${1:10s}', 'The whole answer arrives in time.'],
  ['json', 'json', 'The answer (or the single fenced block it consists of) is JSON.'],
  ['json schema …', 'json schema ${1:schemas/answer.schema.json}', 'The answer is JSON that validates against this JSON Schema file.'],
  ['max gap under 2s', 'max gap under ${1:2s}', 'No silence between two chunks of the stream lasts this long.'],
  ['judged by …: …', 'judged by ${1:grader}: ${2:criterion}', 'Another application grades the answer against the criterion (PASS or FAIL).'],
  ['judged by model …', 'judged by model ${1:name}: ${2:criterion}', 'One of VS Code\'s language models grades the answer (asks for your consent).'],
];

const OPTION_LINE = /^(\s*[-*+]\s+)([A-Za-z0-9_-]*)$/;
const OPTION_VALUE = /^\s*[-*+]\s+([A-Za-z0-9_-]+)\s*:\s*(.*)$/;

/**
 * Completion in query files: the option keys under a heading, the user's application and
 * environment names, workspace-relative paths for `context:`, and the `expect:` forms.
 */
export class QueryFileCompletion implements vscode.CompletionItemProvider {
  constructor(private readonly settings: Settings) {}

  async provideCompletionItems(doc: vscode.TextDocument, position: vscode.Position): Promise<vscode.CompletionItem[]> {
    if (!inOptionList(doc, position.line)) return [];
    const before = doc.lineAt(position.line).text.slice(0, position.character);
    const keyOnly = OPTION_LINE.exec(before);
    if (keyOnly !== null) {
      return KEYS.map(([key, detail]) => {
        // eslint-disable-next-line aq/outside-text -- the option keys are the extension's own words (KEYS).
        const item = new vscode.CompletionItem(`${key}:`, vscode.CompletionItemKind.Property);
        item.insertText = `${key}: `;
        item.detail = plainText(detail);
        item.range = new vscode.Range(position.line, keyOnly[1].length, position.line, position.character);
        item.command = { command: 'editor.action.triggerSuggest', title: 'Suggest' };
        return item;
      });
    }
    const option = OPTION_VALUE.exec(before);
    if (option === null) return [];
    const key = option[1].toLowerCase();
    const value = option[2];
    if (key === 'application') {
      const typed = value.slice(value.lastIndexOf(',') + 1).trimStart();
      const from = position.character - typed.length;
      return this.settings.applications().applications.map((app) => {
        const item = outsideTextItem(app.id, vscode.CompletionItemKind.Value);
        item.detail = plainText(applicationName(app));
        item.range = new vscode.Range(position.line, from, position.line, position.character);
        return item;
      });
    }
    if (key === 'environment') {
      const from = position.character - value.length;
      return this.settings.environments().environments.map((e) => {
        const item = outsideTextItem(e.name, vscode.CompletionItemKind.EnumMember);
        item.detail = plainText(e.baseUrl);
        item.range = new vscode.Range(position.line, from, position.line, position.character);
        return item;
      });
    }
    if (key === 'expect') {
      const from = position.character - value.length;
      const judged = /^judged\s+by\s+([^:]*)$/i.exec(value);
      if (judged !== null) {
        const typed = position.character - judged[1].length;
        return this.settings.applications().applications.map((app) => {
          // Shown as plain text; inserted as written.
          const item = new vscode.CompletionItem(plainText(app.id), vscode.CompletionItemKind.Value);
          item.insertText = `${app.id}: `;
          item.filterText = app.id;
          item.detail = plainText(applicationName(app));
          item.range = new vscode.Range(position.line, typed, position.line, position.character);
          return item;
        });
      }
      return EXPECT_FORMS.map(([label, snippet, detail]) => {
        // eslint-disable-next-line aq/outside-text -- the expect forms are the extension's own words (EXPECT_FORMS).
        const item = new vscode.CompletionItem(label, vscode.CompletionItemKind.Snippet);
        item.insertText = new vscode.SnippetString(snippet);
        item.detail = plainText(detail);
        item.range = new vscode.Range(position.line, from, position.line, position.character);
        return item;
      });
    }
    if (key === 'context' || key === 'cases') return contextPaths(doc, position, value);
    return [];
  }
}

/** Whether a line lies in a query's option list: below a `##` heading, with only option lines or blank lines between. */
function inOptionList(doc: vscode.TextDocument, line: number): boolean {
  for (let i = line - 1; i >= 0; i--) {
    const text = doc.lineAt(i).text;
    if (/^##(?!#)/.test(text)) return true;
    if (text.trim() !== '' && !OPTION_VALUE.test(text)) return false;
  }
  return false;
}

/** Files and folders of the query file's workspace folder under what is typed (never outside it). */
async function contextPaths(doc: vscode.TextDocument, position: vscode.Position, value: string): Promise<vscode.CompletionItem[]> {
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const typed = value.replace(/^`/, '');
  if (folder === undefined || typed.includes('#') || typed.startsWith('/') || typed.split('/').includes('..')) return [];
  const dir = typed.slice(0, typed.lastIndexOf('/') + 1);
  let entries: [string, vscode.FileType][];
  try {
    entries = await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(folder.uri, dir));
  } catch {
    return [];
  }
  const from = position.character - (typed.length - dir.length);
  return entries
    .filter(([name]) => !name.startsWith('.') && name !== 'node_modules')
    .slice(0, 500)
    .map(([name, type]) => {
      const isDir = (type & vscode.FileType.Directory) !== 0;
      const item = outsideTextItem(isDir ? `${name}/` : name, isDir ? vscode.CompletionItemKind.Folder : vscode.CompletionItemKind.File);
      item.range = new vscode.Range(position.line, from, position.line, position.character);
      if (isDir) item.command = { command: 'editor.action.triggerSuggest', title: 'Suggest' };
      return item;
    });
}

/** A completion of outside text (an application id, an environment or file name): shown as plain text, inserted and filtered as written. */
function outsideTextItem(text: string, kind: vscode.CompletionItemKind): vscode.CompletionItem {
  const item = new vscode.CompletionItem(plainText(text), kind);
  item.insertText = text;
  item.filterText = text;
  return item;
}
