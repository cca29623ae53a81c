import * as vscode from 'vscode';
import { isKeyRefused } from '../../shared/outcome';
import { type ApplicationConfig, applicationLabel } from '../../shared/applications';
import { HttpStatusError, QueryError } from '../../client/errors';
import { getJson } from '../../client/getClient';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import type { Log } from '../platform/log';
import { promptForApiKey } from '../platform/keyPrompt';
import type { KeyStore } from '../platform/keyStore';
import { applicationIdFromArg } from '../platform/args';
import { Commands } from '../platform/commandIds';
import { plain } from '../../shared/plainText';
import { serviceLabel } from '../../shared/environments';

/** What the key commands need. */
export interface KeyCommandDeps {
  readonly settings: Settings;
  readonly keys: KeyStore;
  readonly current: CurrentApplication;
  readonly log: Log;
}

/** The base URL a key flow started with: where the key is stored and where it is checked. */
interface ServiceBase {
  readonly normalized: string;
  /** The service as the user knows it: its environment and origin, or the origin. */
  readonly label: string;
}

/** The service as it is now, or undefined (after telling the user) when the base URL is not usable. */
function currentService(settings: Settings): ServiceBase | undefined {
  const base = settings.baseUrl();
  if (!base.ok) {
    void vscode.window.showErrorMessage(plain`${base.message}`, 'Open Settings').then((c) => {
      if (c) {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'applicationQuery.baseUrl');
      }
    });
    return undefined;
  }
  return { normalized: base.normalized, label: serviceLabel(base) };
}

/**
 * Set API Key… for one application: asks for the key (in a password box by default), stores it for
 * the base URL as it was when the flow started, and checks it there, even if the base URL changes
 * while the box is open (the key is never sent to the new service).
 */
export async function setApiKeyFlow(deps: KeyCommandDeps, app: ApplicationConfig, prompt: typeof promptForApiKey = promptForApiKey): Promise<void> {
  const base = currentService(deps.settings);
  if (!base) {
    return;
  }
  const label = applicationLabel(app);
  const key = await prompt(label, base.label);
  if (!key) {
    return;
  }
  await deps.keys.set({ baseUrl: base.normalized, applicationId: app.id }, key);
  deps.log.info(`API key stored for ${label} on ${base.label}.`);
  await checkKey(deps, base, app, label, key);
}

/** Registers Set API Key… and Remove API Key…. */
export function registerKeyCommands(context: vscode.ExtensionContext, deps: KeyCommandDeps): void {
  const target = async (arg: unknown, title: string): Promise<ApplicationConfig | undefined> => {
    const id = applicationIdFromArg(arg);
    if (id) {
      return deps.settings.resolve(id) ?? { id };
    }
    return deps.current.pick({ title, always: true });
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.setApiKey, async (arg?: unknown) => {
      if (currentService(deps.settings) === undefined) {
        return;
      }
      const app = await target(arg, 'Set API Key…');
      if (app) {
        await setApiKeyFlow(deps, app);
      }
    }),
    vscode.commands.registerCommand(Commands.removeApiKey, async (arg?: unknown) => {
      const service = currentService(deps.settings);
      if (!service) {
        return;
      }
      const app = await target(arg, 'Remove API Key…');
      if (!app) {
        return;
      }
      const label = applicationLabel(app);
      const ref = { baseUrl: service.normalized, applicationId: app.id };
      if (!(await deps.keys.has(ref))) {
        void vscode.window.showInformationMessage(plain`No API key is stored for ${label} on ${service.label}.`);
        return;
      }
      await deps.keys.delete(ref);
      deps.log.info(`API key removed for ${label} on ${service.label}.`);
      void vscode.window.showInformationMessage(plain`Removed the API key for ${label}.`);
    }),
  );
}

/** Checks a new key with `GET /api/applications/{id}` and tells the user what the service said. */
async function checkKey(deps: KeyCommandDeps, base: ServiceBase, app: ApplicationConfig, label: string, apiKey: string): Promise<void> {
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: plain`Checking the key for ${label}…` },
      () => getJson({ baseUrl: base.normalized, endpoint: `applications/${encodeURIComponent(app.id)}`, apiKey, timeoutMs: 15000 }),
    );
    deps.log.info(`GET ${result.url} → ${result.status}, ${result.bytes} bytes (key check)`);
    const record = result.json as { name?: unknown } | null;
    const known = record && typeof record.name === 'string' ? record.name : undefined;
    void vscode.window.showInformationMessage(
      known === undefined ? plain`API key saved for ${label} and accepted by the service.` : plain`API key saved for ${label} and accepted by the service. The service knows it as "${known}".`,
    );
  } catch (err) {
    if (err instanceof HttpStatusError && isKeyRefused(err.status)) {
      deps.log.warn(`Key check for ${label}: HTTP ${err.status}`);
      const choice = await vscode.window.showWarningMessage(
        plain`API key saved for ${label}, but the service refused it (HTTP ${err.status}). Check that it was generated for this application.`,
        'Set API Key…',
      );
      if (choice) {
        await vscode.commands.executeCommand(Commands.setApiKey, app.id);
      }
      return;
    }
    const why = err instanceof QueryError ? err.message : String(err);
    deps.log.info(`Key check for ${label} not possible: ${why}`);
    void vscode.window.showInformationMessage(plain`API key saved for ${label}. (It could not be checked: ${why})`);
  }
}
