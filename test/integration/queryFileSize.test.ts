// A query file over the size limit in a real extension host: listed in the Testing view with its
// problem and never parsed, with an error on its first line when it is opened; a file under the limit
// is listed as usual.
import * as assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { QUERY_FILE_MAX_BYTES } from '../../src/shared/queryFile';
import { hooks, waitFor } from './hooks';

const DIR = 'aq-size';
const folder = (): string => {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (first === undefined) throw new Error('the integration suite needs a workspace folder');
  return first.uri.fsPath;
};

/** A query file of at most `bytes` bytes (ASCII): numbered queries of about 100 bytes each. */
function queryFileOf(bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; ; i++) {
    const query = `## Query ${i}\n- application: echo\n- expect: matches /^(\\w+\\s?)+$/\n\nWhat is in the release notes?\n\n`;
    if (length + query.length > bytes) return parts.join('');
    parts.push(query);
    length += query.length;
  }
}

/** Opens a file in an editor and waits for its diagnostics. */
async function openedDiagnostics(uri: vscode.Uri, what: string): Promise<vscode.Diagnostic[]> {
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
  return waitFor(() => {
    const found = vscode.languages.getDiagnostics(uri);
    return found.length > 0 ? found : undefined;
  }, what);
}

describe('Query files: a file over the size limit is listed with its problem, never parsed', () => {
  after(async () => {
    await rm(path.join(folder(), DIR), { recursive: true, force: true });
  });

  it('lists a 10 MiB file with a clear problem and no queries, and shows the error when it is opened', async () => {
    const api = await hooks();
    await mkdir(path.join(folder(), DIR), { recursive: true });
    const big = vscode.Uri.file(path.join(folder(), DIR, 'big.aq.md'));
    const small = vscode.Uri.file(path.join(folder(), DIR, 'small.aq.md'));
    const bigText = queryFileOf(10 * 1024 * 1024);
    await writeFile(big.fsPath, bigText + ' '.repeat(10 * 1024 * 1024 - bigText.length));
    await writeFile(small.fsPath, queryFileOf(QUERY_FILE_MAX_BYTES));
    const nodes = await waitFor(async () => {
      const all = await api.queryTests();
      const bigNode = all.find((node) => node.id === big.toString());
      const smallNode = all.find((node) => node.id === small.toString());
      return bigNode !== undefined && smallNode !== undefined && smallNode.children.length > 0 ? { bigNode, smallNode } : undefined;
    }, 'both files listed');
    assert.deepEqual(nodes.bigNode.children, []);
    assert.match(nodes.bigNode.error ?? '', /^This query file is 10\.0 MiB; query files over 256 KiB are not read, so its queries are not listed or run\. Split it into smaller \*\.aq\.md files\.$/);
    assert.equal(nodes.smallNode.error, undefined);
    assert.ok(nodes.smallNode.children.length > QUERY_FILE_MAX_BYTES / 200, `a file just under the limit is read: ${nodes.smallNode.children.length} queries`);

    const diagnostics = await openedDiagnostics(big, 'the too-large diagnostic');
    assert.deepEqual(diagnostics.map((d) => [d.range.start.line, d.code, d.severity]), [[0, 'tooLarge', vscode.DiagnosticSeverity.Error]]);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', big);
    assert.deepEqual(lenses, [], 'no query, no CodeLens');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('a matches regex that cannot run in linear time is an error on its line in the editor', async () => {
    await mkdir(path.join(folder(), DIR), { recursive: true });
    const uri = vscode.Uri.file(path.join(folder(), DIR, 'regex.aq.md'));
    await writeFile(uri.fsPath, '## Lookahead\n- application: echo\n- expect: matches /refund(?= policy)/\n\nQ\n');
    const diagnostics = await openedDiagnostics(uri, 'the regex diagnostic');
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0].range.start.line, 2);
    assert.match(diagnostics[0].message, /"\(\?=" \(lookahead\) is not supported: they can take exponential time on a long answer/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
