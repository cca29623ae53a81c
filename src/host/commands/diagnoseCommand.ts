import * as vscode from 'vscode';
import { diagnose, formatDiagnosis, type SettingInEffect } from '../../client/diagnose';
import { validateBaseUrl } from '../../shared/baseUrl';
import { plainText } from '../../shared/plainText';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import type { Log } from '../platform/log';
import type { KeyStore } from '../platform/keyStore';
import { Commands } from '../platform/commandIds';

/** The settings the report lists, with the scope that decides where a value may come from. */
const REPORTED: readonly { readonly name: string; readonly userOnly: boolean }[] = [
  { name: 'baseUrl', userOnly: true },
  { name: 'environment', userOnly: true },
  { name: 'environments', userOnly: true },
  { name: 'applications', userOnly: true },
  { name: 'requestTemplate', userOnly: true },
  { name: 'output', userOnly: false },
  { name: 'headersTimeoutSeconds', userOnly: true },
  { name: 'idleTimeoutSeconds', userOnly: true },
];

/** Each setting in effect and where its value comes from; a workspace value of a user-only setting is named as ignored. */
export function settingsInEffect(): SettingInEffect[] {
  const config = vscode.workspace.getConfiguration('applicationQuery');
  const remote = vscode.env.remoteName !== undefined;
  return REPORTED.map(({ name, userOnly }) => {
    const inspected = config.inspect<unknown>(name);
    const workspace = inspected?.workspaceFolderValue ?? inspected?.workspaceValue;
    let value: unknown = inspected?.defaultValue;
    let source = 'default';
    if (inspected?.globalValue !== undefined) {
      value = inspected.globalValue;
      source = remote ? 'user settings (this window is remote; application settings come from your own user settings)' : 'user settings';
    }
    if (!userOnly && workspace !== undefined) {
      value = workspace;
      source = inspected?.workspaceFolderValue !== undefined ? 'folder settings' : 'workspace settings';
    }
    const note = userOnly && workspace !== undefined ? `a workspace sets ${JSON.stringify(workspace).slice(0, 120)}, which is ignored: this setting is user-only` : undefined;
    return { name: `applicationQuery.${name}`, value, source, ...(note === undefined ? {} : { note }) };
  });
}

/** The quick pick's row for `applicationQuery.baseUrl` (no environment). */
const DEFAULT_ROW = 'applicationQuery.baseUrl';

/**
 * Which service to diagnose, by environment name (empty: `applicationQuery.baseUrl`). Without
 * environments there is nothing to choose: the current service. With them, a quick pick of every
 * service, the current one first and highlighted (Enter diagnoses it, as before environments), so a
 * user can check another environment without switching every surface to it; Escape cancels.
 */
async function pickService(settings: Settings): Promise<string | undefined> {
  const { environments } = settings.environments();
  const current = settings.environment();
  if (environments.length === 0) return current;
  const describe = (raw: string | undefined, setting: string): string => {
    const check = validateBaseUrl(raw, setting);
    return check.ok ? check.origin : 'not usable: see the setting';
  };
  const rows = [
    { name: '', label: plainText(DEFAULT_ROW), description: plainText(describe(settings.baseUrlSetting(), 'applicationQuery.baseUrl')) },
    ...environments.map((e) => ({ name: e.name, label: plainText(e.name), description: plainText(describe(e.baseUrl, `applicationQuery.environments["${e.name}"].baseUrl`)) })),
  ];
  // A current environment that is no longer configured is still what queries use: diagnosing it says so.
  if (!rows.some((row) => row.name === current)) rows.push({ name: current, label: plainText(current), description: 'not in applicationQuery.environments' });
  const ordered = [...rows.filter((row) => row.name === current), ...rows.filter((row) => row.name !== current)].map((row) => ({
    ...row,
    ...(row.name === current ? { detail: 'current' } : {}),
  }));
  const picked = await vscode.window.showQuickPick(ordered, {
    title: 'Diagnose Connection',
    placeHolder: 'Which service should be diagnosed? The current one is first.',
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  return picked?.name;
}

/**
 * Registers Diagnose Connection: a report of the path to one service in a new Markdown editor. An
 * argument names the environment to diagnose (empty: `applicationQuery.baseUrl`); without one the
 * user picks it when environments exist.
 */
export function registerDiagnoseCommand(context: vscode.ExtensionContext, deps: { settings: Settings; keys: KeyStore; current: CurrentApplication; log: Log }): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.diagnose, async (arg?: unknown) => {
      const target = typeof arg === 'string' ? arg.trim() : await pickService(deps.settings);
      if (target === undefined) return;
      const configured = deps.settings.environments().environments.find((e) => e.name === target);
      const baseUrl = target === '' ? (deps.settings.baseUrlSetting() ?? '') : (configured?.baseUrl ?? '');
      const base = deps.settings.serviceFor(target);
      // An environment that is not configured has no URL to check: the report says so, and nothing is sent.
      const serviceProblem = target !== '' && configured === undefined && !base.ok ? base.message : undefined;
      const environment = target === '' ? undefined : target;
      const applicationId = deps.current.id;
      const apiKey = base.ok && applicationId !== undefined ? await deps.keys.get({ baseUrl: base.normalized, applicationId }) : undefined;
      const http = vscode.workspace.getConfiguration('http');
      const report = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Diagnosing the connection to the service…', cancellable: true },
        async (_progress, token) => {
          const controller = new AbortController();
          const subscription = token.onCancellationRequested(() => controller.abort());
          try {
            const diagnosis = await diagnose({
              baseUrl,
              ...(environment === undefined ? {} : { environment }),
              ...(serviceProblem === undefined ? {} : { serviceProblem }),
              applicationId,
              apiKey,
              timeoutMs: Math.min(deps.settings.headersTimeoutMs() || 10_000, 10_000),
              settings: settingsInEffect(),
              proxy: {
                httpProxy: http.get<string>('proxy') || undefined,
                proxySupport: http.get<string>('proxySupport'),
                fetchAdditionalSupport: http.get<boolean>('fetchAdditionalSupport'),
                systemCertificates: http.get<boolean>('systemCertificates'),
              },
              signal: controller.signal,
            });
            return formatDiagnosis(diagnosis);
          } finally {
            subscription.dispose();
          }
        },
      );
      // Belt and braces: the core never writes the key, and everything shown passes the log's masking too.
      const text = deps.log.mask(apiKey === undefined ? report : report.split(apiKey).join('••••'));
      const which = environment === undefined ? 'applicationQuery.baseUrl' : `the environment "${environment}"`;
      deps.log.info(`Diagnose Connection for ${which} (${baseUrl || 'no base URL'}): report opened.`);
      const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
      await vscode.window.showTextDocument(document, { preview: false });
    }),
  );
}
