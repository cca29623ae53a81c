// Throwaway workspace folders and the settings every launcher gives the extension under test.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/** A workspace folder in the temp directory. */
export interface TempWorkspace {
  folder: string;
  /** Removes the folder. */
  dispose(): Promise<void>;
}

/** Creates a fresh folder holding `files` (relative path → text). */
export async function makeWorkspace(files: Readonly<Record<string, string>>, prefix = 'aq-workspace-'): Promise<TempWorkspace> {
  const folder = await mkdtemp(path.join(os.tmpdir(), prefix));
  for (const [relative, text] of Object.entries(files)) {
    const target = path.resolve(folder, relative);
    if (!target.startsWith(folder + path.sep)) throw new Error(`workspace file outside the folder: ${relative}`);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  return { folder, dispose: () => rm(folder, { recursive: true, force: true, maxRetries: 3 }) };
}

/** Where the integration suite's workspace tries to send keys; the suite asserts it is ignored. */
export const HOSTILE_WORKSPACE_BASE_URL = 'https://workspace-override.invalid';

/** The files of the integration suite's workspace, including hostile workspace settings. */
export function integrationWorkspaceFiles(): Record<string, string> {
  return {
    'sample.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
    'README.md': '# Sample workspace\n\nUsed by the integration tests.\n',
    // A cloned repository that tries to send the keys elsewhere and to switch the timeouts off.
    '.vscode/settings.json': `${JSON.stringify({ 'applicationQuery.baseUrl': HOSTILE_WORKSPACE_BASE_URL, 'applicationQuery.headersTimeoutSeconds': 0, 'applicationQuery.idleTimeoutSeconds': 0 }, null, 2)}\n`,
  };
}

/** The part of a reference service the settings need. */
export interface ServiceApplications {
  url: string;
  applications: readonly { id: string; name: string }[];
}

/** User settings pointing the extension at `service`, with every one of its applications configured. */
export function serviceUserSettings(service: ServiceApplications): Record<string, unknown> {
  return {
    'applicationQuery.baseUrl': service.url,
    'applicationQuery.applications': service.applications.map(({ id, name }) => ({ id, name })),
  };
}

/** How many load applications (`load-01`…) the integration lanes ask the service for. */
export const LOAD_APPLICATIONS = 20;
