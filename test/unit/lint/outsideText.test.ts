// The lint rule that keeps outside text out of VS Code's link, command and icon syntax: a sink fed
// anything but the extension's own literals or the plainText helpers fails `npm run lint` (and so
// `npm test`), however the value reaches it.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter } from 'eslint';

// The rule is an ES module (eslint.config.mjs loads it). TypeScript turns import() into require() in
// this CommonJS build, so the real import() is reached through a function made at run time.
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<{ default: unknown }>;

const root = path.resolve(__dirname, '..', '..', '..', '..');

async function lint(code: string): Promise<string[]> {
  const plugin = (await importModule(pathToFileURL(path.join(root, 'lint', 'outsideText.mjs')).href)).default;
  const tsParser = (await importModule('@typescript-eslint/parser')).default as Linter.Parser;
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
      plugins: { aq: plugin as never },
      rules: { 'aq/outside-text': 'error' },
    },
  ], 'src/commands/example.ts');
  for (const message of messages) assert.equal(message.ruleId, 'aq/outside-text', message.message);
  return messages.map((message) => code.split('\n')[message.line - 1].trim());
}

const header = "import * as vscode from 'vscode';\nimport { plain, plainText, plainMarkdown, markdownText, terminalText } from '../core/plainText';\ndeclare const label: string;\ndeclare const item: vscode.StatusBarItem;\n";

describe('lint: outside text reaches VS Code only through plainText', () => {
  it('fails every sink fed outside text, however the value gets there', async () => {
    const bad = [
      'void vscode.window.showErrorMessage(label);',
      'void vscode.window.showErrorMessage(`Failed: ${label}`);',
      "void vscode.window.showWarningMessage('Failed: ' + label);",
      'const message = `x ${label}`; void vscode.window.showInformationMessage(message);',
      'let later = plain`x ${label}`; later = label; void vscode.window.showInformationMessage(later);',
      "void vscode.window.showInputBox({ prompt: `About ${label}` });",
      'void vscode.window.showQuickPick([label].map((l) => ({ label: l })));',
      'void vscode.window.withProgress({ location: 15, title: label }, async () => undefined);',
      'item.text = `$(key) ${label}`;',
      'item.tooltip = label;',
      'const tree = new vscode.TreeItem(label);',
      'const md = new vscode.MarkdownString(`**${label}**`);',
      'const md2 = new vscode.MarkdownString(plain`**${label}**`);',
      'declare const stream: vscode.ChatResponseStream; stream.markdown(plainText(label));',
      "const result = { errorDetails: { message: label } };",
      "const result2 = { errorDetails: { message: plainText(label) } };",
      // The Testing view, the editor's CodeLens, code actions, diagnostics and completion, panel and diff titles.
      'declare const controller: vscode.TestController; controller.createTestItem("id", label);',
      'declare const test: vscode.TestItem; test.label = label;',
      'declare const run: vscode.TestRun; run.appendOutput(`Answer: ${label}`);',
      'const tm = new vscode.TestMessage(`Expected ${label}`);',
      'const diff = vscode.TestMessage.diff(label, "a", "b");',
      'declare const range: vscode.Range; const lens = new vscode.CodeLens(range, { command: "x", title: `$(play) ${label}` });',
      'declare const lens2: vscode.CodeLens; lens2.command = { command: "x", title: label };',
      'const action = new vscode.CodeAction(`Use ${label}`, vscode.CodeActionKind.QuickFix);',
      'declare const r: vscode.Range; const d = new vscode.Diagnostic(r, label, vscode.DiagnosticSeverity.Error);',
      'const ci = new vscode.CompletionItem(label);',
      'const ci2 = new vscode.CompletionItem({ label: "x", description: label });',
      'declare const ci3: vscode.CompletionItem; ci3.detail = label;',
      'declare const ci4: vscode.CompletionItem; ci4.documentation = label;',
      'const panel = vscode.window.createWebviewPanel("aq", `Answer: ${label}`, 1);',
      'declare const panel2: vscode.WebviewPanel; panel2.title = label;',
      'declare const a: vscode.Uri; void vscode.commands.executeCommand("vscode.diff", a, a, `${label} ↔ x`);',
    ];
    for (const line of bad) {
      assert.deepEqual(await lint(header + line), [line], `expected one error for: ${line}`);
    }
  });

  it('passes the extension\'s own words and outside text made inert', async () => {
    const good = [
      "void vscode.window.showErrorMessage('The query failed.');",
      'void vscode.window.showErrorMessage(plain`Failed: ${label}`, "Retry");',
      'void vscode.window.showErrorMessage(plainText(label));',
      'const message = plain`x ${label}`; void vscode.window.showInformationMessage(message);',
      'void vscode.window.showInputBox({ prompt: plain`About ${label}`, placeHolder: "id" });',
      'void vscode.window.showQuickPick([label].map((l) => ({ label: plainText(l) })));',
      "item.text = `$(key) ${plainText(label)}`;",
      'const tree = new vscode.TreeItem(plainText(label));',
      'const md = new vscode.MarkdownString(plainMarkdown`**${label}**`);',
      'declare const stream: vscode.ChatResponseStream; stream.markdown(markdownText(label));',
      'const result = { errorDetails: { message: markdownText(label) } };',
      'declare const controller: vscode.TestController; controller.createTestItem(label, plainText(label));',
      'declare const run: vscode.TestRun; run.appendOutput(terminalText(label));',
      'const diff = vscode.TestMessage.diff(plain`Expected ${label}`, label, label);',
      'declare const range: vscode.Range; const lens = new vscode.CodeLens(range, { command: "x", title: "$(play) Run", arguments: [label] });',
      'declare const r: vscode.Range; const d = new vscode.Diagnostic(r, plainText(label), vscode.DiagnosticSeverity.Error);',
      'const ci = new vscode.CompletionItem(plainText(label)); ci.insertText = label; ci.filterText = label;',
      'const panel = vscode.window.createWebviewPanel(label, "Answer", 1);',
      'declare const a: vscode.Uri; void vscode.commands.executeCommand("vscode.diff", a, a, plain`${label} ↔ x`);',
      'const state = { message: "" }; state.message = label;',
    ];
    for (const line of good) {
      assert.deepEqual(await lint(header + line), [], `expected no error for: ${line}`);
    }
  });
});
