// Notifications: toasts, the notification center, their buttons.
import type { Locator, Page } from 'playwright-core';
import { waitFor } from '../../launch/util';
import type { Workbench } from './launch';
import { runCommand } from './palette';
import { normalizeLabel } from './text';

/** Clears every notification: toasts of earlier tests stay while the headless window has no focus, and only three show at once. */
export async function clearNotifications(workbench: Pick<Workbench, 'page'>): Promise<void> {
  await runCommand(workbench.page, 'Notifications: Clear All Notifications');
}

/** Waits for a notification toast containing `text` and returns it. */
export async function waitForNotification(page: Page, text: string | RegExp, timeoutMs = 30_000): Promise<Locator> {
  const toast = page.locator('.notifications-toasts .notification-toast').filter({ hasText: text }).first();
  try {
    await toast.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch {
    // Say what is there instead: VS Code drops toasts when more than three arrive within 800 ms,
    // and those then only reach the notification center (the bell in the status bar).
    const shown = (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).map(normalizeLabel);
    const bell = await page.locator('[id="status.notifications"] a, [id="status.notifications"]').first().getAttribute('aria-label').catch(() => null);
    throw new Error(`no notification toast matching ${String(text)} within ${Math.round(timeoutMs / 1000)} s; toasts showing: ${JSON.stringify(shown)}; status bar bell: ${bell ?? '?'}`);
  }
  return toast;
}

/**
 * Opens the notification center and waits until its text matches `expected`; returns all of it.
 * (Toasts can be dropped when several arrive at once; the center keeps every notification.)
 */
export async function notificationCenterText(page: Page, expected: RegExp, timeoutMs = 60_000): Promise<string> {
  const center = page.locator('.notifications-center');
  return waitFor(`a notification matching ${String(expected)}`, async () => {
    // Opened again whenever it is not showing: a window still restoring its views can close it.
    if (!(await center.isVisible().catch(() => false))) await runCommand(page, 'Notifications: Show Notifications');
    const text = await center.innerText({ timeout: 1000 }).catch(() => '');
    return expected.test(text) ? text : undefined;
  }, timeoutMs, 500);
}

/** Clicks a button of a notification toast. */
export async function clickNotificationButton(toast: Locator, label: string): Promise<void> {
  await toast.locator('.monaco-button', { hasText: label }).first().click();
}
