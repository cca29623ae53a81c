// Text helpers the workbench driver shares: labels compared however they were typed, strings made
// safe inside a CSS selector or a regular expression, text read once it has stopped changing, and
// what a stopped answer keeps.
import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { waitFor } from '../../launch/util';

/** Whitespace collapsed and "..." written as "…", so titles compare however they were typed. */
export function normalizeLabel(text: string): string {
  return text.replace(/\.\.\./g, '…').replace(/\s+/g, ' ').trim();
}

/** `text` as the inside of a double-quoted CSS string. */
export function cssString(text: string): string {
  return text.replace(/["\\]/g, '\\$&');
}

/** `text` matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Waits until `target`'s text (trimmed) is not empty and the same in two readings `intervalMs` apart, and returns it. */
export async function settledText(target: Locator, what: string, timeoutMs = 60_000, intervalMs = 400): Promise<string> {
  let previous = '';
  return waitFor(what, async () => {
    const now = ((await target.textContent({ timeout: 1000 }).catch(() => '')) ?? '').trim();
    const settled = now !== '' && now === previous;
    previous = now;
    return settled ? now : undefined;
  }, timeoutMs, intervalMs);
}

/**
 * What a stopped answer shows: all it showed before Stop, plus at most the characters the key masker
 * held back while the stream was silent (fewer than 8: they could still have begun a piece of a key),
 * which Stop releases. Nothing is lost, and nothing else appears.
 */
export function assertKeptAfterStop(after: string, before: string): void {
  assert.ok(after.startsWith(before) && after.length - before.length < 8, `what arrived is kept: ${JSON.stringify(before)} before Stop, ${JSON.stringify(after)} after`);
}
