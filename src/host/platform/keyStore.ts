import type * as vscode from 'vscode';
import { EventEmitter } from 'vscode';
import { validateApiKey } from '../../shared/apiKey';
import type { BaseUrlCheck } from '../../shared/baseUrl';
import { keySlot, parseKeySlot, readKey, type KeyRef } from '../../shared/keySlots';

export type { KeyRef } from '../../shared/keySlots';

/**
 * API keys in VS Code SecretStorage, one per application and service base URL (see
 * shared/keySlots): a key saved for one base URL is never returned for another, even on the same
 * origin. Nothing is cached, so a key changed in another window is used on the next request;
 * {@link onDidChange} tells the views to refresh.
 */
export class KeyStore implements vscode.Disposable {
  private readonly _onDidChange = new EventEmitter<KeyRef>();
  /** Fires when a key is stored or removed, in this window or another. */
  readonly onDidChange = this._onDidChange.event;
  private readonly listener: vscode.Disposable;
  /** Keys seen in this session, so the log can mask them wherever they might appear. */
  private readonly seen = new Set<string>();
  /** Reads one at a time, so an earlier version's key moves to one base URL only. */
  private reading: Promise<unknown> = Promise.resolve();

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.listener = secrets.onDidChange((e) => {
      const ref = parseKeySlot(e.key);
      if (ref) {
        this._onDidChange.fire(ref);
      }
    });
  }

  /** The key for this application on this base URL, if one is stored. */
  async get(ref: KeyRef): Promise<string | undefined> {
    const read = this.reading.then(() => readKey(this.secrets, ref));
    this.reading = read.catch(() => undefined);
    const key = await read;
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
    return base.ok && (await this.has({ baseUrl: base.normalized, applicationId }));
  }

  /** Stores a key after checking it can travel in an HTTP header. Throws with a message if not. */
  async set(ref: KeyRef, key: string): Promise<void> {
    const problem = validateApiKey(key);
    if (problem) {
      throw new Error(problem);
    }
    this.seen.add(key);
    await this.secrets.store(keySlot(ref), key);
  }

  /** Removes a stored key. */
  async delete(ref: KeyRef): Promise<void> {
    await this.secrets.delete(keySlot(ref));
  }

  /** Every key this session has handled, for masking. */
  knownSecrets(): readonly string[] {
    return [...this.seen];
  }

  dispose(): void {
    this.listener.dispose();
    this._onDidChange.dispose();
  }
}
