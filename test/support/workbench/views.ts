// The extension's views: the activity bar, view containers and view headers in the side bar, and the
// webviews (the Chat view and the answer panel) with the Chat view's composer.
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { waitFor } from '../../launch/util';
import { cssString, escapeRegExp } from './text';

/** The activity bar entry of a view container, by its title. */
export function activityBarItem(page: Page, title: string): Locator {
  return page.locator(`.part.activitybar .action-item a.action-label[aria-label^="${cssString(title)}"]`).first();
}

/** Opens a view container from the activity bar (unless it is already showing) and returns the side bar. */
export async function openViewContainer(page: Page, title: string): Promise<Locator> {
  const item = activityBarItem(page, title);
  await item.waitFor({ state: 'visible' });
  const tab = page.locator('.part.activitybar li.action-item').filter({ has: page.locator(`a.action-label[aria-label^="${cssString(title)}"]`) }).first();
  const sidebar = page.locator('.part.sidebar');
  const showing = async (): Promise<boolean> => (await tab.getAttribute('class'))?.split(/\s+/).includes('checked') === true && (await sidebar.isVisible());
  // Clicking the entry of the container that is showing would close the side bar, so click only
  // while it is not showing, and again if a click was lost (e.g. while the window restores).
  let lastClick = 0;
  await waitFor(`the "${title}" view container to show`, async () => {
    if (await showing()) return true;
    if (Date.now() - lastClick > 5000) {
      lastClick = Date.now();
      await item.click({ timeout: 5000 });
    }
    return false;
  }, 30_000, 300);
  return sidebar;
}

/** The header of a view in the side bar (e.g. "Chat", "Applications"). */
export function viewHeader(page: Page, name: string): Locator {
  return page.locator('.part.sidebar .pane-header').filter({ has: page.locator('h3.title', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`, 'i') }) }).first();
}

/** Which of the extension's webviews: the sidebar Chat view or an answer panel (`body[data-surface]`). */
export type Surface = 'chat' | 'panel';

/**
 * The document of the visible webview that shows `surface`, found by what it shows rather than by
 * how VS Code built its frame (a view restored after a reload has a differently built URL). The
 * latest one when there are several (`has`, a selector inside its body, narrows the choice); waits
 * up to `timeoutMs` for one to appear. The frame is
 * pinned by the webview's id, so it stays the same frame while other webviews come and go.
 */
export async function surfaceFrame(page: Page, surface: Surface, timeoutMs = 60_000, has?: string): Promise<FrameLocator> {
  const inner = (outer: Locator): FrameLocator => outer.contentFrame().locator('iframe#active-frame').contentFrame();
  const wanted = `body[data-surface="${surface}"]${has === undefined ? '' : ` ${has}`}`;
  const name = await waitFor(`a visible webview showing the ${surface}${has === undefined ? '' : ` with ${has}`}`, async () => {
    const frames = page.locator('iframe.webview.ready').filter({ visible: true });
    for (let i = (await frames.count()) - 1; i >= 0; i--) {
      const frame = frames.nth(i);
      const shows = await inner(frame).locator(wanted).count().catch(() => 0);
      if (shows > 0) return (await frame.getAttribute('name').catch(() => null)) ?? undefined;
    }
    return undefined;
  }, timeoutMs, 250);
  return inner(page.locator(`iframe.webview[name="${cssString(name)}"]`));
}

/**
 * Sends `question` from the Chat view's composer in `chat` (the application already chosen), as a
 * person does: a click into the composer first. A script in the webview's frame cannot take the
 * focus from the editor (the browser blocks it in a cross-origin frame without a user's gesture),
 * so `fill` alone typed the question into whatever editor had the focus.
 */
export async function sendFromComposer(chat: FrameLocator, question: string): Promise<void> {
  const input = chat.locator('textarea[aria-label="Ask the application"]');
  await input.click();
  await waitFor('the composer to have the focus', () => input.evaluate((element) => element === document.activeElement && document.hasFocus()).then((yes) => yes || undefined), 10_000, 100);
  await input.fill(question);
  await waitFor('the composer to take the question', async () => (await input.inputValue({ timeout: 1000 })) === question || undefined, 5000, 100);
  await input.press('Enter');
}
