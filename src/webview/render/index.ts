/** The answer renderer: what the webview UI, the browser tests and the benchmark load. */
export { IncrementalRenderer, type RendererOptions } from './incremental';
export { NaiveRenderer } from './naive';
export { renderMarkdownOnce, sanitizeHtml } from './markdown';
export { attachContentHandlers, codeOf, type ContentMessage } from './handlers';
