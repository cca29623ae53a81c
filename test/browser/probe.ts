// The browser tests' renderer bundle with a work counter: it wraps the libraries the renderer calls
// (markdown-it's parsers, highlight.js, the DOMParser DOMPurify uses) to count the characters each
// one is given. The shipped bundle has none of this.
import MarkdownIt from 'markdown-it';
import hljs from 'highlight.js/lib/core';

export * from '../../src/webview/render/index';
export { AutoScroller } from '../../src/webview/transcript';

/** Characters given to each stage since the last reset. */
export const work = { parsed: 0, highlighted: 0, sanitized: 0 };

type Method = (this: unknown, ...args: never[]) => unknown;

/** Wraps `target[name]` so that every call adds the length of its first argument to `work[stage]`. */
function count(target: object, name: string, stage: keyof typeof work): void {
  const methods = target as Record<string, Method>;
  const original = methods[name];
  methods[name] = function (this: unknown, ...args: never[]) {
    work[stage] += String(args[0]).length;
    return original.apply(this, args);
  };
}

// Every parse goes through the block parser or the inline parser (all instances share their prototypes).
const sample = new MarkdownIt();
count(Object.getPrototypeOf(sample.block) as object, 'parse', 'parsed');
count(Object.getPrototypeOf(sample.inline) as object, 'parse', 'parsed');
count(hljs, 'highlight', 'highlighted');
count(DOMParser.prototype, 'parseFromString', 'sanitized');
