// A long answer at full socket speed into the answer panel of the real workbench: the text far from
// the view stays with the extension host, and the panel asks for it as the reader scrolls to it.
import * as assert from 'node:assert/strict';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { queryFromPalette, setApiKey } from '../support/workbench/palette';
import { surfaceFrame } from '../support/workbench/views';

const NAME = 'Timed (4 MiB)';
const SIZE = 4 * 1024 * 1024;

/** What the panel's webview was sent, counted where it arrives (see protocol/messages.ts). */
interface Arrivals {
  appendChars: number;
  /** The characters that crossed over as text before the first held group did. */
  beforeHeld: number;
  heldGroups: number;
  heldTexts: number;
}

/**
 * The most text of a flood that crosses over before the extension host holds any. A batch of more
 * than 32 KiB (here the first socket read, 64 KiB) is held but for its newest few KiB, so at most a
 * first batch smaller than that goes over whole. Here 1,615 characters did, in two runs; when the
 * extension host held only from 128 KiB, the whole first read did (63,813 characters in two runs),
 * and the page rendered them while the rest was cut (the 10 MiB answer's stall in
 * `npm run bench workbench`).
 */
const FIRST_TEXT_MOST = 48 * 1024;

describe(`A long answer at full speed end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(300_000);
  const wb = useWorkbench(() =>
    launchWorkbench({
      userSettings: {
        'applicationQuery.output': 'panel',
        // The reference service's `timed` application writes `size` bytes of markdown as fast as the socket takes them.
        'applicationQuery.applications': [{ id: 'timed', name: NAME, requestTemplate: { query: '${input}', delayMs: 0, size: SIZE, chunkBytes: 64 * 1024 } }],
      },
    }),
  );

  it('keeps the text far from the view with the extension host and renders it when scrolled to; the end is all there', async () => {
    const { page } = wb();
    await setApiKey(wb(), NAME, 'timed');
    // A first, short question opens the panel, so its webview can be watched from the start of the long one.
    await queryFromPalette(page, NAME, 'Four mebibytes, please');
    const frame = await surfaceFrame(page, 'panel');
    const answer = frame.locator('[data-role="assistant"]').last();
    await waitFor('the answer to end and be rendered', async () => ((await answer.getAttribute('data-status')) === 'done' && (await answer.getAttribute('aria-busy')) === 'false') || undefined, 120_000, 200);
    const body = frame.locator('body');
    await body.evaluate(() => {
      const counts: Arrivals = { appendChars: 0, beforeHeld: 0, heldGroups: 0, heldTexts: 0 };
      (window as unknown as { aqArrivals: Arrivals }).aqArrivals = counts;
      window.addEventListener('message', (event: MessageEvent<{ type?: string; text?: string; groups?: unknown[] }>) => {
        if (event.data?.type === 'append') counts.appendChars += event.data.text?.length ?? 0;
        if (event.data?.type === 'append' && counts.heldGroups === 0) counts.beforeHeld += event.data.text?.length ?? 0;
        if (event.data?.type === 'held') counts.heldGroups += event.data.groups?.length ?? 0;
        if (event.data?.type === 'heldText') counts.heldTexts++;
      });
    });
    await queryFromPalette(page, NAME, 'Four mebibytes again, please');
    const latest = frame.locator('[data-role="assistant"]').last();
    await waitFor('the second answer to end and be rendered', async () => ((await latest.getAttribute('data-status')) === 'done' && (await latest.getAttribute('aria-busy')) === 'false') || undefined, 120_000, 200);
    const arrivals = (): Promise<Arrivals> => body.evaluate(() => ({ ...(window as unknown as { aqArrivals: Arrivals }).aqArrivals }));
    const after = await arrivals();
    assert.ok(after.heldGroups > 100, `whole groups stayed with the extension host: ${JSON.stringify(after)}`);
    assert.ok(after.appendChars < SIZE / 2, `most of the text did not cross over: ${JSON.stringify(after)}`);
    assert.ok(after.beforeHeld <= FIRST_TEXT_MOST, `little text crossed over before the extension host held any: ${JSON.stringify(after)}`);
    // The end is there: the service's closing paragraph names its last section.
    const last = (await latest.locator('.aq-answer p').last().textContent()) ?? '';
    const sections = Number(/Last section: (\d+)\./.exec(last)?.[1]);
    assert.ok(sections > 1000, `the last paragraph is rendered: ${last}`);
    // The reader scrolls to the middle: the groups there are asked for and rendered.
    const fromMiddle = (): Promise<number> =>
      latest.locator('.aq-answer h2').evaluateAll((headings, count) => headings.filter((heading) => {
        const section = Number(/^Section (\d+)$/.exec(heading.textContent ?? '')?.[1]);
        return section > count * 0.2 && section < count * 0.8;
      }).length, sections);
    // Only the newest text of each batch the host passed on is rendered there (a few sections each),
    // never the groups it held: at most the middle's share of the text that crossed over (how much
    // crosses depends on how soon the view takes each piece in).
    const before = await fromMiddle();
    const crossed = Math.min(1, after.appendChars / SIZE);
    assert.ok(
      before <= sections * 0.6 * crossed * 1.25 + 20,
      `the middle is not rendered before it is scrolled to, but for text that crossed over: ${before} headings of ${sections}, ${JSON.stringify(await arrivals())}`,
    );
    const scroller = frame.locator('.aq-panel-body');
    await scroller.evaluate((element) => {
      element.scrollTop = element.scrollHeight / 2;
    });
    // The middle may be text that crossed over (each batch's newest 4 KiB, some 4 screens of
    // this answer), which the view renders without asking: then the reader scrolls on, 4 screens at
    // a time, until the view reaches groups the extension host held. (How many screens the text
    // that crossed over takes before it is laid out depends on the groups' estimated heights.)
    // Groups asked for while the view still followed the end may arrive only now (on a busy
    // machine): the reader scrolls on until groups from the middle itself are there.
    for (let step = 0; step < 40; step++) {
      const asked = await waitFor('the groups near the view to be asked for and shown', async () => ((await arrivals()).heldTexts > 0 && (await fromMiddle()) >= before + 3) || undefined, 1500, 100).then(() => true, () => false);
      if (asked) break;
      await scroller.evaluate((element) => {
        element.scrollTop += element.clientHeight * 4;
      });
    }
    // Where the view is, for a failure's message: how far down, which sections are rendered near
    // it, and how many groups still wait within a screen of it (this test failed now and then in
    // full runs on 1.139, and passed alone).
    const view = (): Promise<unknown> =>
      scroller.evaluate((element, count) => {
        const box = element.getBoundingClientRect();
        const near = (node: Element): boolean => {
          const rect = node.getBoundingClientRect();
          return rect.bottom >= box.top - box.height && rect.top <= box.bottom + box.height;
        };
        const sectionsNear = [...element.querySelectorAll('.aq-answer h2')].filter(near).map((heading) => Number(/^Section (\d+)$/.exec(heading.textContent ?? '')?.[1]));
        return {
          at: Math.round((100 * element.scrollTop) / Math.max(1, element.scrollHeight)),
          scrollHeight: element.scrollHeight,
          sections: count,
          sectionsNear: sectionsNear.length === 0 ? [] : [Math.min(...sectionsNear), Math.max(...sectionsNear)],
          waitingNear: [...element.querySelectorAll('.aq-answer .aq-group[style]')].filter(near).length,
        };
      }, sections);
    const scrolled = await arrivals();
    assert.ok(scrolled.heldTexts > 0, `the groups scrolled to were asked for: ${JSON.stringify({ scrolled, view: await view() })}`);
    await waitFor('headings from the middle of the answer', async () => (await fromMiddle()) >= before + 3 || undefined, 30_000, 200).catch(async (error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}: ${JSON.stringify({ before, now: await fromMiddle(), arrivals: await arrivals(), view: await view() })}`);
    });
    assert.ok(scrolled.heldTexts < after.heldGroups / 2, `only the groups near the view were: ${JSON.stringify(scrolled)}`);
  });
});
