// Type-aware lint. Besides the usual rules it enforces the layering: the pure core, the protocol
// and the webview bundle may not import `vscode` at run time (type-only imports are allowed).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { readFileSync } from 'node:fs';
import outsideText from './lint/outsideText.mjs';

/** Command ids come from one table (src/workbench/commandIds.ts), which mirrors package.json. */
const commandIds = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).contributes.commands.map((c) => c.command);
const commandIdLiteral = `Literal[value=/^(${commandIds.map((id) => id.replace(/\./g, '\\.')).join('|')})$/]`;

/**
 * The host's layers. Foundation folders serve every feature and never import one; a feature may use
 * the foundation, the core and the protocol, and another feature only as `import type` (the
 * composition root, src/extension.ts, hands the instances over).
 */
const FOUNDATION = ['config', 'log', 'secrets', 'query', 'notifications', 'webviewHost', 'workbench'];
const FEATURES = ['applications', 'chat', 'commands', 'output', 'panel', 'history', 'lm'];
const featureImports = (own) => FEATURES.filter((f) => f !== own).map((f) => `../${f}/*`);

const noVscode = {
  name: 'vscode',
  message: 'core/, protocol/ and webview/ must stay free of the vscode API (use `import type` for types).',
  allowTypeImports: true,
};

export default tseslint.config(
  { ignores: ['lint/**', 'dist/**', 'out/**', 'node_modules/**', '.cache/**', '.vscode-test/**', 'esbuild.mjs', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.tests.json', './tsconfig.json'], tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'eqeqeq': ['error', 'always'],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'Use crypto for ids and nonces.' }],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/protocol/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode], patterns: [{ group: ['../*', '!../core', '!../core/*', '!../protocol', '!../protocol/*'], message: 'core/ and protocol/ import only from core/ and protocol/.' }] }],
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode], patterns: [{ group: ['../*', '!../protocol', '!../protocol/*'], message: 'webview/ imports only protocol/ and its own modules.' }] }],
    },
  },
  {
    // One folder deeper: the same rule, written from there.
    files: ['src/webview/*/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode], patterns: [{ group: ['../../*', '!../../protocol', '!../../protocol/*'], message: 'webview/ imports only protocol/ and its own modules.' }] }],
    },
  },
  {
    files: FOUNDATION.map((f) => `src/${f}/**/*.ts`),
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: [...FEATURES.map((f) => `../${f}/*`), '../webview/*'], message: 'The foundation (config, log, secrets, query, notifications, webviewHost, workbench) never imports a feature folder or the webview.' }] }],
    },
  },
  ...FEATURES.map((feature) => ({
    files: [`src/${feature}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [
        { group: featureImports(feature), allowTypeImports: true, message: 'A feature uses another feature only as `import type`; src/extension.ts wires the instances.' },
        { group: ['../webview/*'], message: 'The webview is its own bundle; talk to it through protocol/.' },
      ] }],
    },
  })),
  {
    files: ['src/**/*.ts'],
    ignores: ['src/workbench/commandIds.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'Use crypto for ids and nonces.' },
        { selector: commandIdLiteral, message: 'Use the command id table (src/workbench/commandIds.ts).' },
      ],
    },
  },
  {
    // Outside text reaches VS Code's UI only through src/core/plainText.ts (lint/outsideText.mjs).
    files: ['src/**/*.ts'],
    ignores: ['src/core/**', 'src/protocol/**', 'src/webview/**'],
    plugins: { aq: outsideText },
    rules: { 'aq/outside-text': 'error' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'service/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      'no-restricted-syntax': 'off',
    },
  },
);
