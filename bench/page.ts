// The renderer benchmark's page bundle: the shipped renderer plus the naive baseline, and how the
// views follow their text (bench only).
export * from '../src/webview/render/index';
export { NaiveRenderer } from './naive';
export { AutoScroller } from '../src/webview/transcript';
