import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ViewKind } from '../../../shared/protocol';

/** What a webview may load from: the bundles and their stylesheets in dist/. Nothing else (not media/, not the README's pictures). */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist')];
}

/** Options every webview of this extension gets. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: webviewRoots(extensionUri) };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The one HTML page of every webview: a strict CSP (`default-src 'none'`), scripts only with a
 * nonce from `crypto`, images only from the webview's own source and `data:`, no inline styles,
 * no connections and no workers.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, surface: ViewKind, title: string): string {
  const nonce = randomBytes(18).toString('base64');
  const asset = (...parts: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...parts)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${asset('dist', 'codicons', 'codicon.css')}" rel="stylesheet">
<link href="${asset('dist', 'webview.css')}" rel="stylesheet">
<title>${escapeHtml(title)}</title>
</head>
<body data-surface="${surface}">
<div id="root"></div>
<script nonce="${nonce}" src="${asset('dist', 'webview.js')}"></script>
</body>
</html>`;
}
