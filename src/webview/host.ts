import type { PageToHost } from '../shared/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): unknown;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** What the webview keeps across being hidden (VS Code's webview state). */
export interface PersistedState {
  readonly draft?: string;
}

/** The typed channel to the extension host: `M` is what the page's surface sends (its union in protocol.ts, over `PageToHost`). */
export interface Host<M extends { readonly type: string } = PageToHost> {
  post(message: M): void;
  loadState(): PersistedState;
  saveState(state: PersistedState): void;
}

/** Acquires the VS Code API (once per page) and wraps it. */
export function connectHost<M extends { readonly type: string }>(): Host<M> {
  const api = acquireVsCodeApi();
  return {
    post: (message) => api.postMessage(message),
    loadState: () => {
      const state = api.getState();
      if (typeof state === 'object' && state !== null && 'draft' in state && typeof state.draft === 'string') {
        return { draft: state.draft };
      }
      return {};
    },
    saveState: (state) => void api.setState(state),
  };
}
