// Builds the two surfaces: the extension host bundle (Node, CommonJS, `vscode` external)
// and the webview bundle (browser); and the command line's one-file bundle (cli/dist). `--watch` rebuilds on change, `--production` minifies.
import * as esbuild from 'esbuild';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Prints esbuild's problems in the shape the `$esbuild-watch` problem matcher reads. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => { if (watch) console.log('[watch] build started'); });
    build.onEnd((result) => {
      for (const { text, location } of [...result.errors, ...result.warnings]) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (watch) console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  plugins: [problemMatcher],
};

const host = {
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
};

const webview = {
  ...common,
  // The page's script (every surface's).
  entryPoints: { webview: 'src/webview/main.ts' },
  outdir: 'dist',
  platform: 'browser',
  format: 'iife',
  target: 'chrome120',
};

/**
 * The command line (its own npm package in cli/): one file with everything it needs, no `vscode`,
 * its version from cli/package.json. Built with the extension; the VSIX never includes it.
 */
const cliVersion = JSON.parse(await readFile('cli/package.json', 'utf8')).version;
const cli = {
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'cli/dist/application-query.js',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // ES module builds first: jsonc-parser's other build loads its parts by paths a bundle cannot follow.
  mainFields: ['module', 'main'],
  // Minified always: the command line starts on every CI step, and parsing less makes it start sooner.
  minify: true,
  sourcemap: false,
  // ES module dependencies bundled as CommonJS still ask for their own URL (to make a `require`).
  banner: { js: "#!/usr/bin/env node\nvar __aqModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { AQ_CLI_VERSION: JSON.stringify(cliVersion), 'import.meta.url': '__aqModuleUrl' },
};

/**
 * The test build: the same extension with the integration suite's hooks as its entry point, in a
 * folder of its own (`out/test-extension/`), so the product bundle carries no test code. The
 * integration lane and the extension-host benchmark load this folder as the development extension.
 */
const testHost = {
  ...host,
  minify: false,
  entryPoints: ['test/integration/testHooks.ts'],
  outfile: 'out/test-extension/dist/extension.js',
};

async function assembleTestExtension() {
  const root = 'out/test-extension';
  await rm(`${root}/media`, { recursive: true, force: true });
  await mkdir(`${root}/dist`, { recursive: true });
  await cp('media', `${root}/media`, { recursive: true });
  await cp('dist/webview.js', `${root}/dist/webview.js`);
  await cp('dist/webview.css', `${root}/dist/webview.css`);
  await cp('dist/codicons', `${root}/dist/codicons`, { recursive: true });
  const manifest = JSON.parse(await readFile('package.json', 'utf8'));
  delete manifest.scripts;
  delete manifest.devDependencies;
  await writeFile(`${root}/package.json`, JSON.stringify(manifest, null, 2));
}

async function copyAssets() {
  await mkdir('dist/codicons', { recursive: true });
  await cp('src/webview/webview.css', 'dist/webview.css');
  for (const file of ['codicon.css', 'codicon.ttf']) {
    await cp(`node_modules/@vscode/codicons/dist/${file}`, `dist/codicons/${file}`);
  }
}

await copyAssets();
if (watch) {
  const contexts = await Promise.all([esbuild.context(host), esbuild.context(webview), esbuild.context(cli)]);
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all([esbuild.build(host), esbuild.build(webview), esbuild.build(cli), ...(production ? [] : [esbuild.build(testHost)])]);
  if (!production) await assembleTestExtension();
}
