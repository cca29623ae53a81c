import * as vscode from 'vscode';
import type { ApplicationConfig } from '../../shared/applications';
import type { Settings } from '../platform/settings';
import type { KeyStore } from '../platform/keyStore';
import type { CurrentApplication } from '../platform/currentApplication';
import { Commands } from '../platform/commandIds';
import { applicationName } from '../../shared/applications';
import { plainMarkdown, plainText } from '../../shared/plainText';

/** One row of the Applications view. */
interface AppItem {
  readonly app: ApplicationConfig;
  readonly hasKey: boolean;
  readonly current: boolean;
}

/** The Applications view: each application, whether a key is stored, and inline quick actions. */
class ApplicationsProvider implements vscode.TreeDataProvider<AppItem> {
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;

  constructor(
    private readonly settings: Settings,
    private readonly keys: KeyStore,
    private readonly current: CurrentApplication,
  ) {}

  refresh(): void {
    this._onDidChangeTreeData.fire();
  }

  async getChildren(element?: AppItem): Promise<AppItem[]> {
    if (element) {
      return [];
    }
    const base = this.settings.baseUrl();
    const currentId = this.current.id;
    return Promise.all(
      this.settings.applications().applications.map(async (app) => ({
        app,
        hasKey: await this.keys.hasFor(base, app.id),
        current: app.id === currentId,
      })),
    );
  }

  getTreeItem(element: AppItem): vscode.TreeItem {
    const item = new vscode.TreeItem(plainText(applicationName(element.app)), vscode.TreeItemCollapsibleState.None);
    item.id = element.app.id;
    item.description = plainText([element.app.name ? element.app.id : undefined, element.hasKey ? 'key stored' : 'no key', element.current ? 'current' : undefined]
      .filter(Boolean)
      .join(' · '));
    item.iconPath = new vscode.ThemeIcon(element.hasKey ? 'key' : 'warning', element.hasKey ? undefined : new vscode.ThemeColor('problemsWarningIcon.foreground'));
    item.contextValue = element.hasKey ? 'application.withKey' : 'application.noKey';
    item.tooltip = new vscode.MarkdownString(
      plainMarkdown`**${applicationName(element.app)}**\n\nid: ${element.app.id}\n\n` + (element.hasKey ? 'An API key is stored for this service.' : 'No API key stored yet: use Set API Key….'),
    );
    item.command = { command: Commands.selectApplication, title: 'Select Application', arguments: [element.app.id] };
    item.accessibilityInformation = { label: `${applicationName(element.app)}, ${element.hasKey ? 'key stored' : 'no key'}${element.current ? ', current' : ''}` };
    return item;
  }
}

/** Registers the Applications view and keeps it current. */
export function registerApplicationsView(context: vscode.ExtensionContext, settings: Settings, keys: KeyStore, current: CurrentApplication): void {
  const provider = new ApplicationsProvider(settings, keys, current);
  const view = vscode.window.createTreeView('applicationQuery.applications', { treeDataProvider: provider, showCollapseAll: false });
  // Which service the keys shown belong to, once the user has environments.
  const describe = (): void => {
    const environment = settings.environment();
    view.description = environment === '' ? undefined : plainText(environment);
  };
  describe();
  const refresh = (): void => {
    describe();
    provider.refresh();
  };
  context.subscriptions.push(view, settings.onDidChange(refresh), keys.onDidChange(refresh), current.onDidChange(refresh));
}
