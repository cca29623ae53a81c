// Problems in `applicationQuery.applications`, as a person meets them: they edit settings.json
// (a repeated id), open the window again, and are told what is wrong instead of the entry being
// skipped silently.
import * as assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitForActivation } from '../support/workbench/diagnostics';
import { e2eVersion, launchWorkbench, reloadWindow, useWorkbench, type Workbench } from '../support/workbench/launch';
import { clearNotifications, notificationCenterText } from '../support/workbench/notifications';
import { openViewContainer } from '../support/workbench/views';

/** Rewrites the user's settings.json on disk, as a person editing it in another editor would. */
async function editUserSettings(workbench: Workbench, change: (settings: Record<string, unknown>) => void): Promise<void> {
  const file = path.join(workbench.userDataDir, 'User', 'settings.json');
  const settings = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  change(settings);
  await writeFile(file, JSON.stringify(settings, null, 2));
}

describe(`Settings problems end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(240_000);
  const wb = useWorkbench(() => launchWorkbench({ serviceOptions: { quiet: true } }), { beforeEach: clearNotifications });

  it('shows a repeated application id in a warning with Open Settings, once the window opens', async () => {
    const workbench = wb();
    await editUserSettings(workbench, (settings) => {
      const apps = settings['applicationQuery.applications'] as unknown[];
      settings['applicationQuery.applications'] = [...apps, { id: 'demo-assistant', name: 'Duplicate' }];
    });
    const activations = await reloadWindow(workbench);
    await openViewContainer(workbench.page, 'Application Query');
    await waitForActivation(workbench, 60_000, activations);
    const text = await notificationCenterText(workbench.page, /repeats the id "demo-assistant"/);
    assert.match(text, /Application Query: applicationQuery\.applications\[\d+\] repeats the id "demo-assistant"; only the first entry with that id is used\./);
  });
});
