// A long answer at full socket speed into the answer panel of the real workbench: all of it crosses
// over in a few large messages, the page renders its end at once and all of it on demand (what is
// in the page, Find and screen readers reach), and the reader can scroll to any part of it.
import * as assert from 'node:assert/strict';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { queryFromPalette, setApiKey } from '../support/workbench/palette';
import { surfaceFrame } from '../support/workbench/views';

const NAME = 'Timed (4 MiB)';
const SIZE = 4 * 1024 * 1024;

/** What the panel's webview was sent, counted where it arrives. */
interface Arrivals {
  appends: number;
  /** The UTF-8 bytes of the text they carried. */
  appendBytes: number;
}

describe(`A long answer at full speed end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(600_000);
  const wb = useWorkbench(() =>
    launchWorkbench({
      userSettings: {
        'applicationQuery.output': 'panel',
        // The reference service's `timed` application writes `size` bytes of markdown as fast as the socket takes them.
        'applicationQuery.applications': [{ id: 'timed', name: NAME, requestTemplate: { query: '${input}', delayMs: 0, size: SIZE, chunkBytes: 64 * 1024 } }],
      },
    }),
  );

  it('passes all of it over in a few large messages; the end is rendered, the rest is in the page or in its fold, and the middle is there when scrolled to', async () => {
    const { page } = wb();
    await setApiKey(wb(), NAME, 'timed');
    // A first, short question opens the panel, so its webview can be watched from the start of the long one.
    await queryFromPalette(page, NAME, 'Four mebibytes, please');
    const frame = await surfaceFrame(page, 'panel');
    const answer = frame.locator('[data-role="assistant"]').last();
    await waitFor('the answer to end and be rendered', async () => ((await answer.getAttribute('data-status')) === 'done' && (await answer.getAttribute('aria-busy')) === 'false') || undefined, 120_000, 200);
    const body = frame.locator('body');
    await body.evaluate(() => {
      const counts: Arrivals = { appends: 0, appendBytes: 0 };
      const encoder = new TextEncoder();
      (window as unknown as { aqArrivals: Arrivals }).aqArrivals = counts;
      window.addEventListener('message', (event: MessageEvent<{ type?: string; text?: string }>) => {
        if (event.data?.type !== 'append') return;
        counts.appends++;
        counts.appendBytes += encoder.encode(event.data.text ?? '').length;
      });
    });
    await queryFromPalette(page, NAME, 'Four mebibytes again, please');
    const latest = frame.locator('[data-role="assistant"]').last();
    await waitFor('the second answer to end and be rendered', async () => ((await latest.getAttribute('data-status')) === 'done' && (await latest.getAttribute('aria-busy')) === 'false') || undefined, 120_000, 200);
    const arrivals = await body.evaluate(() => ({ ...(window as unknown as { aqArrivals: Arrivals }).aqArrivals }));
    // All of it crosses over (the service writes `size` bytes and then its closing paragraph), in batches of many socket reads.
    assert.ok(arrivals.appendBytes >= SIZE && arrivals.appendBytes < SIZE + 1024, `all the text crossed over: ${JSON.stringify(arrivals)}`);
    assert.ok(arrivals.appends < SIZE / (16 * 1024), `in fewer messages than 16 KiB ones would take: ${JSON.stringify(arrivals)}`);
    // The end is there: the service's closing paragraph names its last section.
    const last = (await latest.locator('.aq-answer p').last().textContent()) ?? '';
    const sections = Number(/Last section: (\d+)\./.exec(last)?.[1]);
    assert.ok(sections > 1000, `the last paragraph is rendered: ${last}`);
    // What the page renders is whole sections in order up to the last. Text that flooded in far
    // ahead of the page may have folded unrendered: then the fold, asked to, shows the rest.
    const sectionsShown = (): Promise<number[]> => latest.locator('.aq-answer h2').evaluateAll((elements) => elements.map((element) => Number(/^Section (\d+)$/.exec(element.textContent ?? '')?.[1])));
    const shown = await sectionsShown();
    assert.ok(shown.length > 0 && shown[shown.length - 1] === sections && shown.every((section, index) => index === 0 || section === shown[index - 1] + 1), `consecutive sections up to the last: ${shown.length} of ${sections}`);
    const fold = latest.locator('[data-role="fold"]');
    if ((await fold.count()) > 0) {
      // Text that flooded in far ahead of the page folded unrendered: the fold says how much, and
      // shown, it brings the answer back from its start, a few blocks each frame, in order.
      assert.match((await fold.textContent()) ?? '', /folded \(\d+(\.\d+)? [KM]iB of text\)/);
      await fold.locator('button[data-action="show-folded"]').click();
      await waitFor('the start of the answer to come back', async () => (await sectionsShown())[0] === 1 || undefined, 60_000, 500);
      const back = await sectionsShown();
      assert.ok(back.every((section, index) => index === 0 || section === back[index - 1] + 1 || section === shown[0]), `in order: ${back.slice(0, 5).join(', ')}…`);
      return;
    }
    assert.equal(shown.length, sections, 'nothing folded: a heading for every section');
    // The reader scrolls to the middle: the sections there are laid out and shown.
    const scroller = frame.locator('.aq-panel-body');
    await scroller.evaluate((element) => {
      element.scrollTop = element.scrollHeight / 2;
    });
    const inView = await waitFor(
      'sections from the middle in view',
      async () => {
        const shown = await scroller.evaluate((element, count) => {
          const box = element.getBoundingClientRect();
          return [...element.querySelectorAll('.aq-answer h2')]
            .filter((heading) => {
              const rect = heading.getBoundingClientRect();
              return rect.bottom > box.top && rect.top < box.bottom && rect.height > 0;
            })
            .map((heading) => Number(/^Section (\d+)$/.exec(heading.textContent ?? '')?.[1]))
            .filter((section) => section > count * 0.2 && section < count * 0.8);
        }, sections);
        return shown.length > 0 ? shown : undefined;
      },
      10_000,
      200,
    );
    assert.ok(inView.length > 0, `the middle is shown: ${inView.join(', ')}`);
  });
});
