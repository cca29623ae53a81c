import type * as vscode from 'vscode';
import { EventEmitter } from 'vscode';
import { validateApiKey } from '../../shared/apiKey';
import type { BaseUrlCheck } from '../../shared/baseUrl';
import { keySlot, parseKeySlot, readKey, type KeyRef } from '../../shared/keySlots';

export type { KeyRef } from '../../shared/keySlots';

/**
 * API keys in VS Code SecretStorage, one per application and service base URL (see
 * shared/keySlots): a key saved for one base URL is never returned for another, even on the same
 * origin. A key itself is never cached, so a key changed in another window is used on the next
 * request; only whether a slot holds one is remembered (the views, the model list and the
 * walkthrough ask that of every application on every change), until any of our slots changes, in
 * this window or another. {@link onDidChange} tells the views to refresh.
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
  /** Whether a slot holds a key, as last read (see the class comment). */
  private readonly presence = new Map<string, Promise<boolean>>();
  private presenceInUse: string | undefined;

  /**
   * `inUse`: the base URL in use (normalised), if any. Only a request, or a check of whether the
   * base URL in use has a key, moves an earlier version's key; a check for another base URL (one
   * queued before the environment switched) leaves it where it is.
   */
  constructor(private readonly secrets: vscode.SecretStorage, private readonly inUse: () => string | undefined = () => undefined) {
    this.listener = secrets.onDidChange((e) => {
      const ref = parseKeySlot(e.key);
      if (ref) {
        // An earlier version's slot stands for every base URL on its origin: forget them all.
        this.presence.clear();
        this._onDidChange.fire(ref);
      }
    });
  }

  /** The key for this application on this base URL, if one is stored. */
  async get(ref: KeyRef): Promise<string | undefined> {
    return this.read(ref, () => true);
  }

  private async read(ref: KeyRef, mayMove: () => boolean): Promise<string | undefined> {
    const read = this.reading.then(() => readKey(this.secrets, ref, mayMove));
    this.reading = read.catch(() => undefined);
    const key = await read;
    if (key) {
      this.seen.add(key);
    }
    return key || undefined;
  }

  /** Whether a key is stored. */
  has(ref: KeyRef): Promise<boolean> {
    // Which base URL is in use decides whether an earlier version's key moves (see the constructor).
    const inUse = this.inUse();
    if (inUse !== this.presenceInUse) {
      this.presence.clear();
      this.presenceInUse = inUse;
    }
    const slot = keySlot(ref);
    let known = this.presence.get(slot);
    if (known === undefined) {
      known = this.read(ref, () => this.inUse() === ref.baseUrl).then((key) => key !== undefined);
      this.presence.set(slot, known);
      const read = known;
      // A failed read is not remembered.
      read.catch(() => {
        if (this.presence.get(slot) === read) this.presence.delete(slot);
      });
    }
    return known;
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
    this.presence.clear();
  }

  /** Removes a stored key. */
  async delete(ref: KeyRef): Promise<void> {
    await this.secrets.delete(keySlot(ref));
    this.presence.clear();
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
