import type * as vscode from 'vscode';
import { EventEmitter } from 'vscode';
import { validateApiKey } from '../../shared/apiKey';
import type { BaseUrlCheck } from '../../shared/baseUrl';

const PREFIX = 'applicationQuery.apiKey:';

/** Identifies one stored key: an application on one service origin. */
export interface KeyRef {
  readonly origin: string;
  readonly applicationId: string;
}

function storageKey(ref: KeyRef): string {
  // JSON keeps the two parts unambiguous whatever characters the id holds.
  return PREFIX + JSON.stringify([ref.origin, ref.applicationId]);
}

function parseStorageKey(key: string): KeyRef | undefined {
  if (!key.startsWith(PREFIX)) {
    return undefined;
  }
  try {
    const parts: unknown = JSON.parse(key.slice(PREFIX.length));
    if (Array.isArray(parts) && parts.length === 2 && typeof parts[0] === 'string' && typeof parts[1] === 'string') {
      return { origin: parts[0], applicationId: parts[1] };
    }
  } catch {
    // Not one of ours.
  }
  return undefined;
}

/**
 * API keys in VS Code SecretStorage, one per application and bound to the service origin: a key saved
 * for one origin is never returned for another. Nothing is cached, so a key changed in another window
 * is used on the next request; {@link onDidChange} tells the views to refresh.
 */
export class KeyStore implements vscode.Disposable {
  private readonly _onDidChange = new EventEmitter<KeyRef>();
  /** Fires when a key is stored or removed, in this window or another. */
  readonly onDidChange = this._onDidChange.event;
  private readonly listener: vscode.Disposable;
  /** Keys seen in this session, so the log can redact them wherever they might appear. */
  private readonly seen = new Set<string>();

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.listener = secrets.onDidChange((e) => {
      const ref = parseStorageKey(e.key);
      if (ref) {
        this._onDidChange.fire(ref);
      }
    });
  }

  /** The key for this application on this origin, if one is stored. */
  async get(ref: KeyRef): Promise<string | undefined> {
    const key = await this.secrets.get(storageKey(ref));
    if (key) {
      this.seen.add(key);
    }
    return key || undefined;
  }

  /** Whether a key is stored. */
  async has(ref: KeyRef): Promise<boolean> {
    return (await this.get(ref)) !== undefined;
  }

  /** Whether `applicationId` has a key for the service as the settings name it now (none while the base URL is unusable). */
  async hasFor(base: BaseUrlCheck, applicationId: string): Promise<boolean> {
    return base.ok && (await this.has({ origin: base.origin, applicationId }));
  }

  /** Stores a key after checking it can travel in an HTTP header. Throws with a message if not. */
  async set(ref: KeyRef, key: string): Promise<void> {
    const problem = validateApiKey(key);
    if (problem) {
      throw new Error(problem);
    }
    this.seen.add(key);
    await this.secrets.store(storageKey(ref), key);
  }

  /** Removes a stored key. */
  async delete(ref: KeyRef): Promise<void> {
    await this.secrets.delete(storageKey(ref));
  }

  /** Every key this session has handled, for redaction. */
  knownSecrets(): readonly string[] {
    return [...this.seen];
  }

  dispose(): void {
    this.listener.dispose();
    this._onDidChange.dispose();
  }
}
