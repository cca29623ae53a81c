// `node out/test/launch/prepareProfile.js`: the profile the "Extension Tests" launch configuration
// (.vscode/launch.json) opens desktop VS Code with: user settings pointing at the reference service
// that `npm run service` starts on 127.0.0.1:8787, and the integration suite's workspace folder.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { APPLICATIONS } from '../../service/apps';
import { QUIET_SETTINGS } from './codeServer';
import { repoRoot } from './util';
import { integrationWorkspaceFiles, serviceUserSettings } from './workspace';

/** Where the profile goes (git-ignored). */
export function extensionTestsProfile(): { root: string; userDataDir: string; workspace: string } {
  const root = path.join(repoRoot(), '.vscode-test', 'extension-tests');
  return { root, userDataDir: path.join(root, 'user-data'), workspace: path.join(root, 'workspace') };
}

async function main(): Promise<void> {
  const serviceUrl = process.env.AQ_SERVICE_URL ?? 'http://127.0.0.1:8787';
  const profile = extensionTestsProfile();
  await rm(profile.root, { recursive: true, force: true });
  await mkdir(path.join(profile.userDataDir, 'User'), { recursive: true });
  const settings = { ...QUIET_SETTINGS, ...serviceUserSettings({ url: serviceUrl, applications: APPLICATIONS }) };
  await writeFile(path.join(profile.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  for (const [relative, text] of Object.entries(integrationWorkspaceFiles())) {
    const target = path.join(profile.workspace, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  console.log(`extension tests profile ready: ${path.relative(repoRoot(), profile.root)} (service ${serviceUrl})`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
