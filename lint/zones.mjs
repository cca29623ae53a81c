// The layers of src/, by where their code runs and what it is for, and which may import which.
// eslint.config.mjs hands them to the `aq/layers` rule (lint/layers.mjs), which resolves every
// import's path before it compares; test/unit/lint/layers.test.ts proves the fences hold.

/** The extension host's surfaces: each uses the runner and the platform, never another surface (but for types). */
export const SURFACES = ['commands', 'answerPanel', 'sidebarChat', 'vscodeChat', 'history', 'output', 'applications'];

const BELOW_SURFACES = ['shared', 'client', 'host/platform', 'host/query'];

/** Every zone: a folder (or one file) of src/, what it may import, and whether it may use vscode and Node. */
export const ZONES = [
  { name: 'shared', path: 'src/shared', allow: [], vscode: 'none', node: false },
  { name: 'client', path: 'src/client', allow: ['shared'], vscode: 'none', node: true },
  { name: 'webview', path: 'src/webview', allow: ['shared'], vscode: 'none', node: false },
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
