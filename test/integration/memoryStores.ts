// SecretStorage and a Memento in memory, for parts built beside the running extension with stores of
// their own (the model provider, the Chat parts, a key store under test).
import * as vscode from 'vscode';

/** SecretStorage in memory; `store` and `delete` fire the change event as another window's write would, and `reads` counts `get`. */
export class MemorySecrets implements vscode.SecretStorage {
  reads = 0;
  private readonly values = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
  readonly onDidChange = this.changed.event;
  get(key: string): Thenable<string | undefined> {
    this.reads++;
    return Promise.resolve(this.values.get(key));
  }
  keys(): Thenable<string[]> {
    return Promise.resolve([...this.values.keys()]);
  }
  store(key: string, value: string): Thenable<void> {
    this.values.set(key, value);
    this.changed.fire({ key });
    return Promise.resolve();
  }
  delete(key: string): Thenable<void> {
    this.values.delete(key);
    this.changed.fire({ key });
    return Promise.resolve();
  }
}

/** A Memento in memory (the current application). */
export class MemoryMemento implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : defaultValue;
  }
  update(key: string, value: unknown): Thenable<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
}
