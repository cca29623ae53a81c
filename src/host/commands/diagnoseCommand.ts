import * as vscode from 'vscode';
import { diagnose, formatDiagnosis, type SettingInEffect } from '../../client/diagnose';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import type { Log } from '../platform/log';
import type { KeyStore } from '../platform/keyStore';
import { Commands } from '../platform/commandIds';

/** The settings the report lists, with the scope that decides where a value may come from. */
const REPORTED: readonly { readonly name: string; readonly userOnly: boolean }[] = [
  { name: 'baseUrl', userOnly: true },
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

/** Registers Diagnose Connection: a report of the path to the service in a new Markdown editor. */
export function registerDiagnoseCommand(context: vscode.ExtensionContext, deps: { settings: Settings; keys: KeyStore; current: CurrentApplication; log: Log }): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.diagnose, async () => {
      const inspected = vscode.workspace.getConfiguration('applicationQuery').inspect<string>('baseUrl');
      const baseUrl = inspected?.globalValue ?? '';
      const base = deps.settings.baseUrl();
      const applicationId = deps.current.id;
      const apiKey = base.ok && applicationId !== undefined ? await deps.keys.get({ origin: base.origin, applicationId }) : undefined;
      const http = vscode.workspace.getConfiguration('http');
      const report = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Diagnosing the connection to the service…', cancellable: true },
        async (_progress, token) => {
          const controller = new AbortController();
          const subscription = token.onCancellationRequested(() => controller.abort());
          try {
            const diagnosis = await diagnose({
              baseUrl,
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
      // Belt and braces: the core never writes the key, and everything shown passes the log's redaction too.
      const text = deps.log.redact(apiKey === undefined ? report : report.split(apiKey).join('••••'));
      deps.log.info(`Diagnose Connection for ${baseUrl || '(no base URL)'}: report opened.`);
      const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
      await vscode.window.showTextDocument(document, { preview: false });
    }),
  );
}
