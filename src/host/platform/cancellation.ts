import type * as vscode from 'vscode';

/**
 * The one bridge from VS Code's CancellationToken to an AbortSignal: runs `work` with a signal that
 * aborts when the token is cancelled (or already is); the listener is removed when `work` settles.
 */
export async function withAbortSignal<T>(token: vscode.CancellationToken, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const listener = token.onCancellationRequested(() => controller.abort());
  if (token.isCancellationRequested) controller.abort();
  try {
    return await work(controller.signal);
  } finally {
    listener.dispose();
  }
}
