// `npm run package` as a user of the VSIX meets it: exactly one .vsix at the repository root, with
// the bundles, media, README, CHANGELOG, LICENSE and the manifest and nothing else, under 1 MB; it
// installs into code-server with `--install-extension` and the extension activates there.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { filesBelow, repoRoot, runProcess } from '../launch/util';
import { launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { quickInput, quickPickLabels, runCommand } from '../support/workbench/palette';
import { openViewContainer, surfaceFrame } from '../support/workbench/views';
import { isExtensionActivated, waitForActivation } from '../support/workbench/diagnostics';

const root = repoRoot();
const VSIX = path.join(root, 'application-query.vsix');
/** What the installed extension may contain (paths relative to its folder). */
const ALLOWED = /^(package\.json|readme\.md|changelog\.md|license(\.txt)?|\.vsixmanifest|dist\/(extension|webview)\.js|dist\/webview\.css|dist\/codicons\/codicon\.(css|ttf)|media\/[\w.-]+\.(png|svg)|media\/walkthrough\/[\w.-]+\.md|docs\/images\/[\w.-]+\.png)$/i;
const REQUIRED = ['package.json', 'dist/extension.js', 'dist/webview.js', 'dist/codicons/codicon.css', 'dist/webview.css', 'media/icon.png'];

describe('The packaged extension (npm run package, installed into code-server 4.100.3 / VS Code 1.100)', function () {
  this.timeout(600_000);
  let packaged = '';

  const wb = useWorkbench(async () => {
    const run = await runProcess('npm', ['run', 'package'], { cwd: root });
    packaged = run.output;
    assert.equal(run.code, 0, `npm run package failed:\n${run.output.slice(-3000)}`);
    return launchWorkbench({ version: '4.100.3', vsix: VSIX });
  });

  it('writes exactly one .vsix at the repository root, under 1 MB', async () => {
    const vsixes = (await readdir(root)).filter((name) => name.endsWith('.vsix'));
    assert.deepEqual(vsixes, ['application-query.vsix'], `npm run package said:\n${packaged.slice(-1500)}`);
    const { size } = await stat(VSIX);
    assert.ok(size < 1024 * 1024, `the VSIX is ${size} bytes`);
  });

  it('holds the bundles, media, README, CHANGELOG, LICENSE and the manifest, nothing else', async () => {
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
    const installed = path.join(path.dirname(wb().userDataDir), 'ext', `${manifest.publisher}.${manifest.name}-${manifest.version}`);
    assert.ok(existsSync(installed), `code-server installed it as ${path.basename(installed)}`);
    const files = (await filesBelow(installed)).map((file) => path.relative(installed, file).split(path.sep).join('/'));
    const unexpected = files.filter((file) => !ALLOWED.test(file));
    assert.deepEqual(unexpected, [], 'no source, tests, source maps or node_modules');
    for (const file of REQUIRED) assert.ok(files.includes(file), `${file} is in the package`);
    for (const doc of [/^readme\.md$/i, /^changelog\.md$/i, /^license/i]) assert.ok(files.some((file) => doc.test(file)), `${String(doc)} is in the package`);
  });

  it('ships no test or benchmark code in its bundles', async () => {
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
    const installed = path.join(path.dirname(wb().userDataDir), 'ext', `${manifest.publisher}.${manifest.name}-${manifest.version}`);
    const host = await readFile(path.join(installed, 'dist', 'extension.js'), 'utf8');
    // Object keys survive minification; only the test build's hooks (test/integration/testHooks.ts) have these.
    const markers = ['runQueryInto', 'storedHistory', 'setApiKeyWhilePrompting'];
    for (const marker of markers) assert.ok(!host.includes(marker), `dist/extension.js holds "${marker}"`);
    // The test build does hold every one of them, so the check above can fail.
    const testBuild = await readFile(path.join(root, 'out', 'test-extension', 'dist', 'extension.js'), 'utf8');
    for (const marker of markers) assert.ok(testBuild.includes(marker), `the test build holds "${marker}"`);
  });

  it('activates in code-server: its view container, Chat view and commands work', async () => {
    const workbench = wb();
    const { page } = workbench;
    await openViewContainer(page, 'Application Query');
    const chat = await surfaceFrame(page, 'chat');
    await chat.locator('textarea[aria-label="Ask the application"]').waitFor({ state: 'visible', timeout: 60_000 });
    await waitForActivation(workbench);
    assert.equal(isExtensionActivated(workbench), true);
    await runCommand(page, 'Application Query: Select Application…');
    await quickInput(page).waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok((await quickPickLabels(page)).includes('Demo Assistant'), 'the applications from the settings are offered');
    await page.keyboard.press('Escape');
  });
});
