import * as vscode from 'vscode';
import type { Surface } from './types';

/** A running query that can be stopped. */
interface Running {
  readonly label: string;
  readonly controller: AbortController;
  readonly surface: Surface;
}

/**
 * The queries running right now, from every surface. Keeps the `applicationQuery.running` context
 * key (which enables Stop Query) and tells the status bar.
 */
export class QueryRegistry implements vscode.Disposable {
  private readonly running = new Map<string, Running>();
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Fires when a query starts or ends. */
  readonly onDidChange = this._onDidChange.event;

  /** Registers a query; returns the function that unregisters it. */
  add(queryId: string, label: string, surface: Surface, controller: AbortController): () => void {
    this.running.set(queryId, { label, controller, surface });
    this.changed();
    return () => {
      if (this.running.delete(queryId)) {
        this.changed();
      }
    };
  }

  /** Whether the query with this id is running. */
  has(queryId: string): boolean {
    return this.running.has(queryId);
  }

  /** How many queries are running. */
  get size(): number {
    return this.running.size;
  }

  /** Labels of the running queries. */
  labels(): string[] {
    return [...this.running.values()].map((r) => r.label);
  }

  /** Stops one query (keeping what has arrived). */
  stop(queryId: string): void {
    this.running.get(queryId)?.controller.abort();
  }

  /** Stops every query, or every query of one surface. Returns how many were stopped. */
  stopAll(surface?: Surface): number {
    let count = 0;
    for (const r of this.running.values()) {
      if (surface === undefined || r.surface === surface) {
        r.controller.abort();
        count++;
      }
    }
    return count;
  }

  private changed(): void {
    void vscode.commands.executeCommand('setContext', 'applicationQuery.running', this.running.size > 0);
    this._onDidChange.fire();
  }

  dispose(): void {
    this.stopAll();
    this._onDidChange.dispose();
  }
}
