// The layers of src/, by where their code runs and what it is for, and which may import which.
// eslint.config.mjs hands them to the `aq/layers` rule (lint/layers.mjs), which resolves every
// import's path before it compares; test/unit/lint/layers.test.ts proves the fences hold.

/** The extension host's surfaces: each uses the runner and the platform, never another surface (but for types). */
export const SURFACES = ['commands', 'answerPanel', 'sidebarChat', 'vscodeChat', 'history', 'output', 'applications', 'queryFiles', 'compare'];

const BELOW_SURFACES = ['shared', 'client', 'host/platform', 'host/query'];

/** Every zone: a folder (or one file) of src/, what it may import, and whether it may use vscode and Node. */
export const ZONES = [
  { name: 'shared', path: 'src/shared', allow: [], vscode: 'none', node: false },
  { name: 'client', path: 'src/client', allow: ['shared'], vscode: 'none', node: true },
  { name: 'webview', path: 'src/webview', allow: ['shared'], vscode: 'none', node: false },
  // The command line: the same engine (shared, client) with its own settings, keys and reporters; never the editor's code.
  { name: 'cli', path: 'src/cli', allow: ['shared', 'client'], vscode: 'none', node: true },
  { name: 'host/platform', path: 'src/host/platform', allow: ['shared', 'client'], vscode: 'value', node: true },
  { name: 'host/query', path: 'src/host/query', allow: ['shared', 'client', 'host/platform'], vscode: 'value', node: true },
  ...SURFACES.map((surface) => ({
    name: `host/${surface}`,
    path: `src/host/${surface}`,
    allow: BELOW_SURFACES,
    typeOnly: SURFACES.filter((other) => other !== surface).map((other) => `host/${other}`),
    vscode: 'value',
    node: true,
  })),
  {
    name: 'extension.ts',
    path: 'src/extension.ts',
    allow: [...BELOW_SURFACES, ...SURFACES.map((surface) => `host/${surface}`)],
    vscode: 'value',
    node: true,
  },
];

/**
 * Benches and scripts share what tests share (test/support, test/launch) and never reach into a
 * test lane; the one type they take from a lane is the test build's hooks (bench/exthost).
 */
export const TOOL_ZONES = [
  ...['src/shared', 'src/client', 'src/host', 'src/webview', 'src/cli'].map((path) => ({ name: path, path, allow: [], vscode: 'value', node: true })),
  { name: 'src/extension.ts', path: 'src/extension.ts', allow: [], vscode: 'value', node: true },
  { name: 'service', path: 'service', allow: [], vscode: 'none', node: true },
  { name: 'test/support', path: 'test/support', allow: [], vscode: 'value', node: true },
  { name: 'test/launch', path: 'test/launch', allow: [], vscode: 'value', node: true },
  { name: 'test/integration', path: 'test/integration', allow: [], vscode: 'value', node: true },
  { name: 'test/unit', path: 'test/unit', allow: [], vscode: 'value', node: true },
  { name: 'test/browser', path: 'test/browser', allow: [], vscode: 'value', node: true },
  { name: 'test/e2e', path: 'test/e2e', allow: [], vscode: 'value', node: true },
  { name: 'test/package', path: 'test/package', allow: [], vscode: 'value', node: true },
  { name: 'test', path: 'test', allow: [], vscode: 'value', node: true },
  {
    name: 'bench',
    path: 'bench',
    allow: ['src/shared', 'src/client', 'src/host', 'src/webview', 'src/cli', 'service', 'test/support', 'test/launch'],
    typeOnly: ['test/integration'],
    vscode: 'value',
    node: true,
  },
  { name: 'scripts', path: 'scripts', allow: ['src/shared', 'src/client', 'service', 'test/support', 'test/launch'], vscode: 'none', node: true },
];
