// The renderer benchmark's page bundle: the shipped renderer plus the naive baseline, what the
// markup rows compare, and how the views follow their text (bench only).
export * from '../src/webview/render/index';
export { NaiveRenderer } from './naive';
export { heldGroupElement, heldGroupOffset, heldRenderer, scrolledAnswer } from '../test/support/heldPage';
export { AutoScroller } from '../src/webview/transcript';
export { buildMarkup } from '../src/webview/render/markup';
export { purifiedFragment } from '../src/webview/render/markdown';
export { renderMarkup as markupOf } from '../src/webview/render/parse';
