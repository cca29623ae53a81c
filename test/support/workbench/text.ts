// Text helpers the workbench driver shares: labels compared however they were typed, strings made
// safe inside a CSS selector or a regular expression, and text read once it has stopped changing.
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
