/** The answer renderer: what the webview UI and the browser tests load. */
export { IncrementalRenderer, type RendererOptions } from './incremental';
export { renderMarkdownOnce, sanitizeHtml } from './markdown';
export { attachContentHandlers, codeOf, type ContentMessage } from './handlers';
export { answerActive, warmUp } from './warmUp';
export { FrameLoop, type FrameClient } from './pacer';
export { renderWorkerMs, startWorker } from './worker';
