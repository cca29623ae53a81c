import * as vscode from 'vscode';
import { maskSecrets } from '../../shared/secretMask';
import { applicationLabel } from '../../shared/applications';
import { HttpStatusError, QueryError, describeStatus } from '../../client/errors';
import { getJson, normalizeEndpoint } from '../../client/getClient';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import type { Log } from '../platform/log';
import { promptForApiKey } from '../platform/keyPrompt';
import type { KeyStore } from '../platform/keyStore';
import { Commands } from '../platform/commandIds';
import { statusRemedies } from '../../shared/outcome';
import { remedyActions, runRemedy } from '../query/remedies';
import { plain } from '../../shared/plainText';
import { withAbortSignal } from '../platform/cancellation';
import { serviceLabel } from '../../shared/environments';

const SHOW_LOG = 'Show Log';

/** Registers Send Authenticated GET Request…: GET {baseUrl}/api/{endpoint} with the current application's key. */
export function registerGetCommand(context: vscode.ExtensionContext, deps: { settings: Settings; keys: KeyStore; current: CurrentApplication; log: Log }): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.get, async () => {
      const base = deps.settings.baseUrl();
      if (!base.ok) {
        void vscode.window.showErrorMessage(plain`${base.message}`);
        return;
      }
      const app = await deps.current.pick({ title: 'Send Authenticated GET Request…', always: false });
      if (!app) {
        return;
      }
      const label = applicationLabel(app);
      const endpointInput = await vscode.window.showInputBox({
        title: plain`GET ${base.normalized}/api/…  (with the key of ${label})`,
        prompt: 'The endpoint path after /api/',
        value: `applications/${encodeURIComponent(app.id)}`,
        ignoreFocusOut: true,
        validateInput: (value) => {
          const n = normalizeEndpoint(value);
          return typeof n === 'string' ? undefined : n.error;
        },
      });
      if (endpointInput === undefined) {
        return;
      }
      const endpoint = normalizeEndpoint(endpointInput);
      if (typeof endpoint !== 'string') {
        return;
      }
      const ref = { baseUrl: base.normalized, applicationId: app.id };
      let apiKey = await deps.keys.get(ref);
      if (!apiKey) {
        apiKey = await promptForApiKey(label, serviceLabel(base), `No API key is stored for ${label}.`);
        if (!apiKey) {
          return;
        }
        await deps.keys.set(ref, apiKey);
      }
      const started = Date.now();
      try {
        const result = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: plain`GET /api/${endpoint}`, cancellable: true },
          (_progress, token) =>
            withAbortSignal(token, (signal) => getJson({ baseUrl: base.normalized, endpoint, apiKey, signal, timeoutMs: deps.settings.headersTimeoutMs() })),
        );
        deps.log.info(`GET ${result.url} → ${result.status}, ${result.bytes} bytes, ${Date.now() - started} ms`);
        // A service may echo the key in what it returns: the document never holds it.
        const doc = await vscode.workspace.openTextDocument({ language: 'json', content: maskSecrets(deps.log.mask(JSON.stringify(result.json, null, 2)), [apiKey]) + '\n' });
        await vscode.window.showTextDocument(doc, { preview: false });
      } catch (err) {
        const message = err instanceof QueryError ? err.message : String(err);
        deps.log.error(`GET ${base.normalized}/api/${endpoint} failed after ${Date.now() - started} ms: ${message}`);
        if (err instanceof HttpStatusError) {
          // The one classification of a status and the one remedy table; a GET is asked again from the palette, so no Retry.
          const actions = remedyActions({ ...statusRemedies(err.status), retryAfterMs: err.retryAfterMs }, app.id, () => undefined);
          // The reason phrase comes from the server and could echo the header: it is masked too.
          const reason = maskSecrets(deps.log.mask(err.statusText), [apiKey]);
          const choice = await vscode.window.showErrorMessage(plain`GET /api/${endpoint}: HTTP ${err.status} ${reason}: ${describeStatus(err.status)}`, ...actions.map((action) => action.title), SHOW_LOG);
          const action = actions.find((candidate) => candidate.title === choice);
          if (action !== undefined) runRemedy(action);
          else if (choice === SHOW_LOG) deps.log.show();
          return;
        }
        if (err instanceof QueryError && err.kind === 'stopped') {
          return;
        }
        const masked = maskSecrets(deps.log.mask(message), [apiKey]);
        void vscode.window.showErrorMessage(plain`GET /api/${endpoint}: ${masked}`);
      }
    }),
  );
}
