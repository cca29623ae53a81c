// The renderer benchmark's page bundle: the shipped renderer plus the naive baseline and what the
// markup rows compare (bench only).
export * from '../src/webview/render/index';
export { NaiveRenderer } from './naive';
export { buildMarkup } from '../src/webview/render/markup';
export { purifiedFragment, renderMarkup as markupOf } from '../src/webview/render/markdown';
