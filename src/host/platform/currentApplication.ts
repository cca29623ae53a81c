import * as vscode from 'vscode';
import { type ApplicationConfig, applicationLabel, applicationName } from '../../shared/applications';
import type { Settings } from './settings';
import { Commands } from './commandIds';
import { plainText } from '../../shared/plainText';

const STATE_KEY = 'applicationQuery.currentApplication';

/**
 * The current application, shared by the commands, the status bar and the Chat view, and
 * remembered across sessions (in globalState: an id, never a key).
 */
export class CurrentApplication implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<string | undefined>();
  /** Fires with the new current application id. */
  readonly onDidChange = this._onDidChange.event;

  constructor(
    private readonly memento: vscode.Memento,
    private readonly settings: Settings,
  ) {}

  /** The current application's id, if it is still configured; else the first configured one. */
  get id(): string | undefined {
    const apps = this.settings.applications().applications;
    const stored = this.memento.get<string>(STATE_KEY);
    return apps.find((a) => a.id === stored)?.id ?? apps[0]?.id;
  }

  /** Makes an application current. */
  async set(id: string): Promise<void> {
    await this.memento.update(STATE_KEY, id);
    this._onDidChange.fire(id);
  }

  /**
   * Lets the user pick an application (the current one first). With `always` false and only one
   * application configured, picks it without asking. With `remember` false the choice does not
   * become the current application. Returns undefined if cancelled or none exist.
   */
  async pick(options: { title: string; always: boolean; remember?: boolean }): Promise<ApplicationConfig | undefined> {
    const apps = this.settings.applications().applications;
    if (apps.length === 0) {
      const choice = await vscode.window.showInformationMessage(
        'No applications are configured yet. Add one with its id from the service dashboard.',
        'Add Application…',
      );
      if (choice) {
        await vscode.commands.executeCommand(Commands.addApplication);
      }
      return undefined;
    }
    const remember = options.remember !== false;
    if (apps.length === 1 && !options.always) {
      if (remember) await this.set(apps[0].id);
      return apps[0];
    }
    const current = this.id;
    const ordered = [...apps].sort((a, b) => (a.id === current ? -1 : b.id === current ? 1 : 0));
    const picked = await vscode.window.showQuickPick(
      ordered.map((app) => ({
        label: plainText(applicationName(app)),
        description: app.name ? plainText(app.id) : undefined,
        detail: app.id === current ? 'current application' : undefined,
        app,
      })),
      // The first step of a command: a focus that comes back late (to the answer panel's webview, say,
      // after the palette closed) or a click elsewhere must not drop the command half-way. Escape cancels.
      { title: plainText(options.title), placeHolder: 'Choose an application', matchOnDescription: true, ignoreFocusOut: true },
    );
    if (!picked) {
      return undefined;
    }
    if (remember) await this.set(picked.app.id);
    return picked.app;
  }

  /** The label of the current application. */
  label(): string | undefined {
    const id = this.id;
    const app = id ? this.settings.applications().applications.find((a) => a.id === id) : undefined;
    return app ? applicationLabel(app) : undefined;
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}
