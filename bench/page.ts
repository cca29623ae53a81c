// The renderer benchmark's page bundle: the shipped renderer plus the naive baseline (bench only).
export * from '../src/webview/render/index';
export { NaiveRenderer } from './naive';
