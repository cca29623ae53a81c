/** The answer renderer: what the webview UI and the browser tests load. */
export { IncrementalRenderer, type RendererOptions } from './answer';
export { renderMarkdownOnce, sanitizeHtml } from './markdown';
export { attachContentHandlers, codeOf, type ContentMessage } from './handlers';
