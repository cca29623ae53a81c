import * as vscode from 'vscode';
import { type ApplicationConfig, parseApplications, type ResponseFormat } from '../../shared/applications';
import type { BaseUrlCheck } from '../../shared/baseUrl';
import { type Environment, parseEnvironments, serviceBase } from '../../shared/environments';
import { DEFAULT_TEMPLATE } from '../../shared/template';

/** Where command answers stream. */
export type OutputTarget = 'panel' | 'outputChannel';

const SECTION = 'applicationQuery';

/** A resolved application: its configuration plus the template and format that apply to it. */
export interface ResolvedApplication extends ApplicationConfig {
  readonly template: unknown;
  readonly format: ResponseFormat;
}

/**
 * Typed reads of the extension's settings. The base URL is read from the user's (application-scope)
 * settings only, so no workspace or folder can redirect requests that carry keys.
 */
export class Settings implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Fires when any `applicationQuery.*` setting changes. */
  readonly onDidChange = this._onDidChange.event;
  private readonly listener: vscode.Disposable;

  constructor() {
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) {
        this._onDidChange.fire();
      }
    });
  }

  private get config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  /**
   * The service requests go to: the current environment's base URL, else `applicationQuery.baseUrl`,
   * from the user's own settings only. `inspect` is used rather than `get` so that a value a
   * workspace tried to set (which VS Code ignores for application-scope settings anyway) can never
   * be picked up, whatever the host version.
   */
  baseUrl(): BaseUrlCheck {
    return this.serviceFor(this.environment());
  }

  /** The service of one environment by name (empty: `applicationQuery.baseUrl`), whichever is current; an unknown name is an error that says so. */
  serviceFor(environment: string): BaseUrlCheck {
    return serviceBase(this.userValue<string>('baseUrl'), this.environments().environments, environment);
  }

  /** `applicationQuery.baseUrl` as the user set it (the service when no environment is selected). */
  baseUrlSetting(): string | undefined {
    return this.userValue<string>('baseUrl');
  }

  /** The environments (`applicationQuery.environments`, user settings only), and what was skipped. */
  environments(): { environments: Environment[]; problems: string[] } {
    return parseEnvironments(this.userValue<unknown>('environments'));
  }

  /** The current environment's name; empty means `applicationQuery.baseUrl`. */
  environment(): string {
    const value = this.userValue<unknown>('environment');
    return typeof value === 'string' ? value.trim() : '';
  }

  /** Makes `name` the current environment (empty: `applicationQuery.baseUrl`), in the user's settings. */
  async setEnvironment(name: string): Promise<void> {
    await this.config.update('environment', name === '' ? undefined : name, vscode.ConfigurationTarget.Global);
  }

  /** A setting's value from the user's settings (or its default), never a workspace's. */
  private userValue<T>(key: string): T | undefined {
    const inspected = this.config.inspect<T>(key);
    return inspected?.globalValue ?? inspected?.defaultValue;
  }

  /** Whether a workspace or folder tries to set the base URL (ignored, but worth a warning). */
  workspaceTriesBaseUrl(): boolean {
    const inspected = this.config.inspect<string>('baseUrl');
    return inspected?.workspaceValue !== undefined || inspected?.workspaceFolderValue !== undefined;
  }

  /** The configured applications (invalid entries are skipped and reported in `problems`). */
  applications(): { applications: ApplicationConfig[]; problems: string[] } {
    return parseApplications(this.config.get<unknown>('applications', []));
  }

  /** The application with this id, with its effective template and response format. */
  resolve(id: string): ResolvedApplication | undefined {
    const app = this.applications().applications.find((a) => a.id === id);
    if (!app) {
      return undefined;
    }
    return { ...app, template: app.requestTemplate ?? this.defaultTemplate(), format: app.responseFormat ?? 'auto' };
  }

  /** The default request template. */
  defaultTemplate(): unknown {
    const value = this.config.get<unknown>('requestTemplate');
    return typeof value === 'object' && value !== null ? value : DEFAULT_TEMPLATE;
  }

  /** Where command answers go. */
  output(): OutputTarget {
    return this.config.get<string>('output') === 'outputChannel' ? 'outputChannel' : 'panel';
  }

  /** Response-headers timeout in ms (0 = none). */
  headersTimeoutMs(): number {
    return seconds(this.config.get<number>('headersTimeoutSeconds', 60));
  }

  /** Idle timeout between body bytes in ms (0 = none). */
  idleTimeoutMs(): number {
    return seconds(this.config.get<number>('idleTimeoutSeconds', 120));
  }

  /** How many queries of a query-file run go to one service at a time (1–16, user settings only). */
  queryConcurrency(): number {
    const value = this.userValue<unknown>('queryFiles.concurrency');
    return typeof value === 'number' && Number.isFinite(value) ? Math.min(16, Math.max(1, Math.floor(value))) : 4;
  }

  /** Adds an application to the user's settings (or renames it if the id exists). */
  async addApplication(app: ApplicationConfig): Promise<void> {
    const inspected = this.config.inspect<unknown[]>('applications');
    const current = Array.isArray(inspected?.globalValue) ? [...inspected.globalValue] : [];
    const index = current.findIndex((a) => typeof a === 'object' && a !== null && (a as { id?: unknown }).id === app.id);
    const entry: Record<string, unknown> = { id: app.id };
    if (app.name) {
      entry.name = app.name;
    }
    if (index >= 0) {
      current[index] = { ...(current[index] as object), ...entry };
    } else {
      current.push(entry);
    }
    await this.config.update('applications', current, vscode.ConfigurationTarget.Global);
  }

  dispose(): void {
    this.listener.dispose();
    this._onDidChange.dispose();
  }
}

function seconds(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : 0;
}
