// Type-aware lint. Besides the usual rules it holds the house together: the layers of src/ and
// which may import which (lint/zones.mjs, checked on resolved paths by lint/layers.mjs), outside
// text only through src/shared/plainText.ts (lint/outsideText.mjs), and command ids from one table.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { readFileSync } from 'node:fs';
import layers from './lint/layers.mjs';
import outsideText from './lint/outsideText.mjs';
import { TOOL_ZONES, ZONES } from './lint/zones.mjs';

/** Command ids come from one table (src/host/platform/commandIds.ts), which mirrors package.json. */
const commandIds = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).contributes.commands.map((c) => c.command);
const commandIdLiteral = `Literal[value=/^(${commandIds.map((id) => id.replace(/\./g, '\\.')).join('|')})$/]`;
const noMathRandom = { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'Use crypto for ids and nonces.' };

export default tseslint.config(
  { ignores: ['lint/**', 'dist/**', 'cli/dist/**', 'out/**', 'node_modules/**', '.cache/**', '.vscode-test/**', 'esbuild.mjs', 'eslint.config.mjs'] },
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
      'no-restricted-syntax': ['error', noMathRandom],
    },
  },
  {
    // Every file of src/ lies in one layer; imports cross layers only where lint/zones.mjs allows.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.d.ts'],
    plugins: { aq: { rules: { ...layers.rules, ...outsideText.rules } } },
    rules: { 'aq/layers': ['error', { root: import.meta.dirname, zones: ZONES }] },
  },
  {
    files: ['src/webview/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/host/platform/commandIds.ts'],
    rules: {
      'no-restricted-syntax': ['error', noMathRandom, { selector: commandIdLiteral, message: 'Use the command id table (src/host/platform/commandIds.ts).' }],
    },
  },
  {
    // Outside text reaches VS Code's UI only through src/shared/plainText.ts (lint/outsideText.mjs).
    files: ['src/host/**/*.ts', 'src/extension.ts'],
    rules: { 'aq/outside-text': 'error' },
  },
  {
    // Benches and scripts use what tests share (test/support, test/launch), never a lane's own files.
    files: ['bench/**/*.ts', 'scripts/**/*.ts'],
    plugins: { aq: { rules: { ...layers.rules } } },
    rules: { 'aq/layers': ['error', { root: import.meta.dirname, zones: TOOL_ZONES }] },
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
