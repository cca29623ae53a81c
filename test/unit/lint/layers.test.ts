// The fences between the layers of src/ (lint/zones.mjs), as `npm run lint` applies them: each
// crossing fails however its path is spelled, and the crossings the layers allow pass.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter } from 'eslint';

// The rule is an ES module (eslint.config.mjs loads it). TypeScript turns import() into require() in
// this CommonJS build, so the real import() is reached through a function made at run time.
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

const root = path.resolve(__dirname, '..', '..', '..', '..');

/** The messages `aq/layers` gives `code` as the file `file` (a path under src/). */
async function lint(file: string, code: string): Promise<string[]> {
  const layers = (await importModule(pathToFileURL(path.join(root, 'lint', 'layers.mjs')).href)).default as { rules: Record<string, unknown> };
  const { ZONES } = (await importModule(pathToFileURL(path.join(root, 'lint', 'zones.mjs')).href)) as { ZONES: unknown[] };
  const tsParser = (await importModule('@typescript-eslint/parser')).default as Linter.Parser;
  const linter = new Linter({ configType: 'flat', cwd: root });
  const messages = linter.verify(code, [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
      plugins: { aq: layers as never },
      rules: { 'aq/layers': ['error', { root, zones: ZONES }] },
    },
  ], path.join(root, file));
  for (const message of messages) assert.equal(message.ruleId, 'aq/layers', message.message);
  return messages.map((message) => message.message);
}

describe('lint: the layers of src/ hold on resolved paths', () => {
  it('a webview file that imports a Node module fails', async () => {
    for (const code of ["import { readFile } from 'node:fs';", "import * as fs from 'fs';", "const cp = require('child_process');", "export { join } from 'path';"]) {
      const messages = await lint('src/webview/render/example.ts', code);
      assert.equal(messages.length, 1, code);
      assert.match(messages[0], /runs where Node is not/);
    }
  });

  it('a webview file that imports the client or the host fails, however the path is spelled', async () => {
    for (const specifier of ['../../client/http', '../../host/platform/log', './../../client/http', '../render/../../client/http', '../../../src/client/http', '../..//client/http']) {
      const messages = await lint('src/webview/render/example.ts', `import { x } from '${specifier}';`);
      assert.equal(messages.length, 1, specifier);
      assert.match(messages[0], /webview may not import (client|host\/platform)/);
    }
  });

  it('a shared file that imports vscode fails, even as `import type`', async () => {
    for (const code of ["import * as vscode from 'vscode';", "import type { Uri } from 'vscode';", "const vscode = require('vscode');", "export type { Uri } from 'vscode';"]) {
      const messages = await lint('src/shared/example.ts', code);
      assert.equal(messages.length, 1, code);
      assert.match(messages[0], /shared may not import the vscode API/);
    }
  });

  it('shared and client never import upward', async () => {
    assert.match((await lint('src/shared/example.ts', "import { sendQuery } from '../client/queryClient';"))[0], /shared may not import client/);
    assert.match((await lint('src/client/example.ts', "import { Log } from '../host/platform/log';"))[0], /client may not import host\/platform/);
    assert.match((await lint('src/client/example.ts', "import * as vscode from 'vscode';"))[0], /client may not import the vscode API/);
  });

  it('the command line never imports the editor’s code, and the editor never imports the command line’s', async () => {
    for (const specifier of ['../host/query/runner', '../host/queryFiles/testing', './../host/platform/settings', '../../src/host/platform/log']) {
      const messages = await lint('src/cli/example.ts', `import { x } from '${specifier}';`);
      assert.equal(messages.length, 1, specifier);
      assert.match(messages[0], /cli may not import host\//);
    }
    for (const code of ["import * as vscode from 'vscode';", "import type { Uri } from 'vscode';"]) assert.match((await lint('src/cli/example.ts', code))[0], /cli may not import the vscode API/);
    for (const file of ['src/host/queryFiles/example.ts', 'src/extension.ts', 'src/client/example.ts', 'src/shared/example.ts']) {
      const specifier = path.relative(path.dirname(path.join(root, file)), path.join(root, 'src/cli/main')).split(path.sep).join('/');
      const messages = await lint(file, `import { x } from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';`);
      assert.equal(messages.length, 1, file);
      assert.match(messages[0], /may not import cli/);
    }
    assert.deepEqual(await lint('src/cli/example.ts', "import { runQueries } from '../client/queryFiles/engine';\nimport { plainText } from '../shared/plainText';\nimport { readFile } from 'node:fs';"), []);
  });

  it('a surface that imports another surface fails, however it is spelled; `import type` passes', async () => {
    const file = 'src/host/answerPanel/example.ts';
    const spellings = [
      "import { ChatView } from '../sidebarChat/chatView';",
      "import { ChatView } from './../sidebarChat/chatView';",
      "import { ChatView } from '../answerPanel/../sidebarChat/chatView';",
      "import { ChatView } from '../../host/sidebarChat/chatView';",
      "import { ChatView } from '../../../src/host/sidebarChat/chatView';",
      "export * from '../sidebarChat/chatView';",
      "const view = require('../sidebarChat/chatView');",
      "const view = import('../sidebarChat/chatView');",
    ];
    for (const code of spellings) {
      const messages = await lint(file, code);
      assert.equal(messages.length, 1, code);
      assert.match(messages[0], /host\/answerPanel may not import host\/sidebarChat .* except as `import type`/);
    }
    assert.deepEqual(await lint(file, "import type { ChatView } from '../sidebarChat/chatView';"), []);
    assert.deepEqual(await lint(file, "import { type ChatView } from '../sidebarChat/chatView';"), []);
  });

  it('the platform and the runner never import a surface', async () => {
    assert.match((await lint('src/host/platform/example.ts', "import { AnswerPanels } from '../answerPanel/answerPanel';"))[0], /host\/platform may not import host\/answerPanel/);
    assert.match((await lint('src/host/query/example.ts', "import type { AnswerPanels } from '../answerPanel/answerPanel';"))[0], /host\/query may not import host\/answerPanel/);
  });

  it('what the layers allow passes', async () => {
    assert.deepEqual(await lint('src/webview/render/example.ts', "import type { HostToWebview } from '../../shared/protocol';\nimport MarkdownIt from 'markdown-it';"), []);
    assert.deepEqual(await lint('src/client/example.ts', "import { request } from 'node:http';\nimport { maskSecrets } from '../shared/secretMask';"), []);
    assert.deepEqual(await lint('src/host/sidebarChat/example.ts', "import * as vscode from 'vscode';\nimport { QueryRunner } from '../query/runner';\nimport { Log } from '../platform/log';\nimport { sendQuery } from '../../client/queryClient';"), []);
    assert.deepEqual(await lint('src/extension.ts', "import { registerChatView } from './host/sidebarChat/chatView';"), []);
  });

  it('a file outside every layer is reported', async () => {
    assert.match((await lint('src/stray/example.ts', 'export const x = 1;'))[0], /lies in no layer/);
  });
});
