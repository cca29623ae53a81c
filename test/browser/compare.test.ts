// The Compare panel (body[data-surface="compare"]) in headless Chromium: the webview bundle under the
// webview's CSP, driven by protocol messages as the extension host sends them, checked for what a
// user sees and does: labelled columns, interleaved streams that end as one-shot renders, a failing
// column beside working ones, Stop per column and for all, the facts, Diff with…, one announcement
// per column, the narrow and the wide layout, high contrast, and hostile answers.
import * as assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { ApplicationInfo, HostToCompare, SurfaceState, Turn } from '../../src/shared/protocol';
import { formatBytes } from '../../src/shared/format';
import { launchBrowser, LoopbackServer, routeWebviewAssets, webviewPage } from '../support/browser';
import { seededRandom } from '../support/random';
import { longShapes } from '../support/shapes';
import { hostileCorpus, TRICKY } from './corpus';

const APPS: ApplicationInfo[] = [
  { id: 'echo', label: 'Echo', hasKey: true },
  { id: 'docs', label: 'Docs Bot', hasKey: true },
  { id: 'review', label: 'Reviewer', hasKey: true },
  { id: 'summary', label: 'Summarizer', hasKey: false },
];

const QUESTION = 'Explain the cache layer\nin three paragraphs';

/** A column (an answer turn) as the host sends it: streaming, started now. */
function column(id: string, applicationId: string, extra: Partial<Turn> = {}): Turn {
  return { id, role: 'assistant', applicationId, text: '', status: 'streaming', startedAt: Date.now(), ...extra };
}

/** A compare state: the question and the columns. */
function compareState(columns: Turn[], extra: Partial<SurfaceState> = {}): SurfaceState {
  const question: Turn = { id: 'q', role: 'user', applicationId: '', text: QUESTION, status: 'done', startedAt: Date.now() };
  return { surface: 'compare', title: 'Compare: Explain the cache layer', applications: APPS, currentApplicationId: undefined, turns: [question, ...columns], attachments: [], ...extra };
}

/** The four columns most tests use: four applications, the last one on an environment. */
function fourColumns(): Turn[] {
  return [column('c1', 'echo'), column('c2', 'docs'), column('c3', 'review'), column('c4', 'summary', { environment: 'staging' })];
}

type Posted = { type: string } & Record<string, unknown>;

interface Mismatch {
  readonly turnId: string;
  readonly firstDifference: number;
  readonly got: string;
  readonly expected: string;
}

/**
 * The appends of several answers, interleaved: each step picks a column that has text left (seeded)
 * and sends it a piece of 1 to 160 code units, one in ten up to 2,000.
 */
function interleaved(answers: Readonly<Record<string, string>>, seed: number): HostToCompare[] {
  const random = seededRandom(seed);
  const offsets = new Map(Object.keys(answers).map((id) => [id, 0]));
  const messages: HostToCompare[] = [];
  for (;;) {
    const open = [...offsets].filter(([id, at]) => at < answers[id].length).map(([id]) => id);
    if (open.length === 0) return messages;
    const turnId = open[Math.floor(random() * open.length)];
    const at = offsets.get(turnId) ?? 0;
    const size = 1 + Math.floor(random() * (random() < 0.1 ? 2000 : 160));
    messages.push({ type: 'append', turnId, text: answers[turnId].slice(at, at + size) });
    offsets.set(turnId, at + size);
  }
}

describe('Compare panel in Chromium', function () {
  this.timeout(180_000);
  let server: LoopbackServer;
  let capture: LoopbackServer;
  let browser: Browser;
  let page: Page | undefined;
  let pages = 0;
  let dialogs = 0;

  const violations = `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`;

  before(async () => {
    server = await LoopbackServer.start();
    capture = await LoopbackServer.start();
    capture.route('/control', 'image/gif', Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    // The one-shot renderer too, for comparing a column with what its text renders to at once.
    await routeWebviewAssets(server, { renderer: true });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await capture?.close();
  });

  /** Closes the test's page; under the CSP, nothing may have been blocked (no inline styles, nothing remote). */
  async function closePage(): Promise<void> {
    if (page === undefined) return;
    const found = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
    const withCsp = !page.url().includes('nocsp');
    await page.close();
    page = undefined;
    if (withCsp) assert.deepEqual(found, [], 'no CSP violations (no inline styles, nothing remote)');
  }

  afterEach(closePage);

  /** A Compare panel page (`csp: false`: the sanitizer alone), after its `ready`. */
  async function open(options: { width?: number; height?: number; csp?: boolean } = {}): Promise<Page> {
    const csp = options.csp ?? true;
    const pathname = `/compare-${++pages}${csp ? '' : '-nocsp'}`;
    server.route(pathname, 'text/html', webviewPage({ origin: server.origin, surface: 'compare', csp, scripts: ['/render.js', '/webview.js'], styles: ['/codicon.css', '/webview.css'] }));
    const created = await browser.newPage({ viewport: { width: options.width ?? 1400, height: options.height ?? 800 } });
    dialogs = 0;
    created.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await created.addInitScript(violations);
    await created.goto(`${server.origin}${pathname}`);
    await created.waitForFunction(() => window.__messages.length > 0);
    return created;
  }

  async function send(target: Page, ...list: HostToCompare[]): Promise<void> {
    await target.evaluate((all) => {
      for (const m of all) window.postMessage(m, '*');
    }, list);
  }

  /** Posts the messages as the host's bridge does (several per frame at most), letting frames pass between them. */
  async function sendOverFrames(target: Page, list: readonly HostToCompare[], perFrame = 6): Promise<void> {
    await target.evaluate(
      async ({ all, perFrame }) => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        for (let i = 0; i < all.length; i++) {
          window.postMessage(all[i], '*');
          if (i % perFrame === perFrame - 1) await frame();
        }
      },
      { all: [...list], perFrame },
    );
  }

  async function messages(target: Page): Promise<Posted[]> {
    return ((await target.evaluate(() => window.__messages)) as Posted[]).filter((m) => m.type !== 'received' && m.type !== 'ready');
  }

  async function clearMessages(target: Page): Promise<void> {
    await target.evaluate(() => {
      window.__messages.length = 0;
    });
  }

  const columnOf = (target: Page, turnId: string) => target.locator(`section[data-role="column"][data-turn-id="${turnId}"]`);

  /** Waits until every listed column's answer has ended and is all rendered (aria-busy false). */
  async function allRendered(target: Page, turnIds: readonly string[]): Promise<void> {
    await target.waitForFunction(
      (ids) => ids.every((id) => document.querySelector(`section[data-turn-id="${id}"] [data-role="assistant"]`)?.getAttribute('aria-busy') === 'false'),
      [...turnIds],
      { timeout: 60_000 },
    );
  }

  /** Each column's rendered answer against a one-shot render of its text; the mismatches. */
  function compareWithOneShot(target: Page, answers: Readonly<Record<string, string>>): Promise<Mismatch[]> {
    return target.evaluate((answers) => {
      const bad: Mismatch[] = [];
      for (const [turnId, text] of Object.entries(answers)) {
        const got = document.querySelector(`section[data-turn-id="${turnId}"] .aq-answer`)?.innerHTML ?? '(no answer)';
        const expected = window.AQ.renderMarkdownOnce(text);
        if (got === expected) continue;
        let i = 0;
        while (i < got.length && got[i] === expected[i]) i++;
        bad.push({ turnId, firstDifference: i, got: got.slice(Math.max(0, i - 120), i + 120), expected: expected.slice(Math.max(0, i - 120), i + 120) });
      }
      return bad;
    }, answers);
  }

  it('four columns from a state: each a region named by its heading, the environment badge where given; four interleaved streams each end as a one-shot render', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState(fourColumns()) });
    await page.locator('section[data-role="column"]').nth(3).waitFor();
    assert.equal(await page.locator('[data-role="title"]').textContent(), 'Compare: Explain the cache layer');
    assert.equal(await page.locator('[data-role="question"]').textContent(), QUESTION, 'the question is shown as it was asked, as text');
    const labels = ['Echo', 'Docs Bot', 'Reviewer', 'Summarizer'];
    const ids = ['c1', 'c2', 'c3', 'c4'];
    const headings = await page.evaluate(() =>
      [...document.querySelectorAll('section[data-role="column"]')].map((section) => {
        const labelledBy = section.getAttribute('aria-labelledby') ?? '';
        const first = labelledBy.split(' ')[0] ?? '';
        return { tag: section.tagName, turnId: section.getAttribute('data-turn-id'), labelledBy, heading: document.getElementById(first)?.textContent ?? null, count: document.querySelectorAll(`[id="${first}"]`).length };
      }),
    );
    assert.deepEqual(headings.map((h) => [h.tag, h.turnId, h.heading, h.count]), ids.map((id, i) => ['SECTION', id, labels[i], 1]), JSON.stringify(headings));
    for (const [i, label] of labels.entries()) {
      // The accessibility tree agrees: a region with the heading's text as its name (and the environment, where the column names one).
      const region = page.getByRole('region', { name: i === 3 ? `${label} staging` : label, exact: true });
      assert.equal(await region.count(), 1, label);
      assert.equal(await region.getAttribute('data-turn-id'), ids[i]);
    }
    const badge = columnOf(page, 'c4').locator('[data-role="environment"]');
    assert.equal(await badge.isVisible(), true);
    assert.equal(await badge.textContent(), 'staging');
    for (const id of ['c1', 'c2', 'c3']) assert.equal(await columnOf(page, id).locator('[data-role="environment"]').isVisible(), false, `${id} names no environment`);

    const answers = {
      c1: Object.values(TRICKY).join('\n'),
      c2: longShapes(6 * 1024, 3).fence,
      c3: longShapes(6 * 1024, 3).list,
      c4: longShapes(6 * 1024, 3).blocks,
    };
    await sendOverFrames(page, interleaved(answers, 2024));
    await send(page, ...ids.map((turnId): HostToCompare => ({ type: 'turnEnd', turnId, status: 'done' })));
    await allRendered(page, ids);
    assert.deepEqual(await compareWithOneShot(page, answers), []);
    for (const id of ids) assert.equal(await columnOf(page, id).getAttribute('data-status'), 'done');
  });

  it('four answers streaming at once: every column follows its newest text to the bottom, but one the reader scrolled up stays where the reader put it', async () => {
    page = await open({ width: 1400, height: 700 });
    await send(page, { type: 'state', state: compareState(fourColumns()) });
    await page.locator('section[data-role="column"]').nth(3).waitFor();
    const ids = ['c1', 'c2', 'c3', 'c4'];
    const paragraphs = (id: string, from: number, to: number): string =>
      Array.from({ length: to - from }, (_, i) => `Paragraph ${from + i} of ${id}: ${'some words of the answer '.repeat(8)}\n\n`).join('');
    const distances = (): Promise<Array<{ top: number; fromEnd: number; overflows: boolean }>> =>
      page!.evaluate((all) =>
        all.map((id) => {
          const body = document.querySelector(`section[data-turn-id="${id}"] .aq-column-body`) as HTMLElement;
          return { top: body.scrollTop, fromEnd: body.scrollHeight - body.scrollTop - body.clientHeight, overflows: body.scrollHeight > 2 * body.clientHeight };
        }),
      ids);
    const twoFrames = (): Promise<unknown> => page!.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    // Text that comes faster than a screen between two follows is followed at most every 100 ms (transcript.ts): a second is plenty.
    const followed = (which: readonly string[]): Promise<unknown> =>
      page!
        .waitForFunction(
          (all) =>
            all.every((id) => {
              const body = document.querySelector(`section[data-turn-id="${id}"] .aq-column-body`) as HTMLElement;
              return body.scrollHeight - body.scrollTop - body.clientHeight < 2;
            }),
          which,
          { timeout: 1000 },
        )
        .catch(() => undefined);

    await sendOverFrames(page, interleaved(Object.fromEntries(ids.map((id) => [id, paragraphs(id, 0, 40)])), 7));
    await page.waitForFunction((all) => all.every((id) => document.querySelector(`section[data-turn-id="${id}"]`)?.textContent?.includes(`Paragraph 39 of ${id}`)), ids);
    await followed(ids);
    for (const [i, d] of (await distances()).entries()) {
      assert.ok(d.overflows, `column ${ids[i]} holds more than two screens`);
      assert.ok(d.fromEnd < 2, `column ${ids[i]} follows its answer: ${JSON.stringify(d)}`);
    }

    // The reader goes back to the start of the second column; the answers go on.
    const box = await columnOf(page, 'c2').locator('.aq-column-body').boundingBox();
    assert.ok(box !== null);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -100_000);
    await page.waitForFunction(() => document.querySelector('section[data-turn-id="c2"] .aq-column-body')?.scrollTop === 0);
    await twoFrames();
    await sendOverFrames(page, interleaved(Object.fromEntries(ids.map((id) => [id, paragraphs(id, 40, 80)])), 8));
    await send(page, ...ids.map((turnId): HostToCompare => ({ type: 'turnEnd', turnId, status: 'done' })));
    await allRendered(page, ids);
    await followed(['c1', 'c3', 'c4']);
    const after = await distances();
    assert.equal(after[1].top, 0, 'the column the reader scrolled up stays at its start');
    for (const i of [0, 2, 3]) assert.ok(after[i].fromEnd < 2, `column ${ids[i]} followed its answer to its end: ${JSON.stringify(after[i])}`);
  });

  it('a column that fails shows its error with HTTP 500 and Retry while the others stream on and finish; a 401 column offers Set API Key…', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState(fourColumns()) });
    const answers = { c1: longShapes(4 * 1024, 5).paragraph, c2: 'Partial answer that breaks **off', c3: longShapes(4 * 1024, 5).table, c4: 'Not allowed' };
    const all = interleaved(answers, 7);
    // c2 fails when half of all appends are through, c4 is refused at once; c1 and c3 go on to the end.
    const half = Math.floor(all.length / 2);
    const first = all.slice(0, half).filter((m) => m.type !== 'append' || m.turnId !== 'c4');
    const rest = all.slice(half).filter((m) => m.type !== 'append' || (m.turnId !== 'c2' && m.turnId !== 'c4'));
    const sentToC2 = first.filter((m): m is Extract<HostToCompare, { type: 'append' }> => m.type === 'append' && m.turnId === 'c2').map((m) => m.text).join('');
    await send(page, { type: 'status', turnId: 'c4', httpStatus: 401 }, { type: 'turnEnd', turnId: 'c4', status: 'error', httpStatus: 401, message: 'The API key was rejected.', retryable: false, remedies: ['setApiKey'] });
    await sendOverFrames(page, first);
    await send(page, { type: 'turnEnd', turnId: 'c2', status: 'error', httpStatus: 500, message: 'The service failed: Internal Server Error.', retryable: true });
    const error = columnOf(page, 'c2').locator('[data-role="error"]');
    await error.waitFor();
    // The failure shows while the other columns are still streaming.
    assert.equal(await columnOf(page, 'c1').getAttribute('data-status'), 'streaming');
    assert.equal(await columnOf(page, 'c3').getAttribute('data-status'), 'streaming');
    assert.equal(await page.getByRole('button', { name: 'Stop All', exact: true }).isVisible(), true, 'Stop All stays while others stream');
    await sendOverFrames(page, rest);
    await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done', httpStatus: 200 }, { type: 'turnEnd', turnId: 'c3', status: 'done', httpStatus: 200 });
    await allRendered(page, ['c1', 'c2', 'c3', 'c4']);

    assert.match((await error.textContent()) ?? '', /Request failed/);
    assert.equal(await error.locator('[data-role="error-status"]').textContent(), 'HTTP 500');
    assert.match((await error.textContent()) ?? '', /The service failed: Internal Server Error\./);
    assert.equal(await columnOf(page, 'c2').getAttribute('data-status'), 'error');
    assert.equal(await columnOf(page, 'c2').locator('.aq-column-header [data-role="http-status"]').textContent(), 'HTTP 500');
    assert.ok(sentToC2.length > 0);
    assert.deepEqual(await compareWithOneShot(page, { c2: sentToC2 }), [], 'the partial answer stays');
    assert.equal(await error.getByRole('button', { name: 'Set API Key…' }).count(), 0, 'a 500 is no key problem');
    await clearMessages(page);
    await error.getByRole('button', { name: 'Retry' }).click();
    assert.deepEqual(await messages(page), [{ type: 'retry', turnId: 'c2' }]);

    // The others finished normally: their whole text, no error, and nothing of the failure in them.
    assert.deepEqual(await compareWithOneShot(page, { c1: answers.c1, c3: answers.c3 }), []);
    for (const id of ['c1', 'c3']) {
      assert.equal(await columnOf(page, id).getAttribute('data-status'), 'done');
      assert.equal(await columnOf(page, id).locator('[data-role="error"]').count(), 0);
      assert.equal(await columnOf(page, id).locator('.aq-column-header [data-role="http-status"]').textContent(), 'HTTP 200');
    }

    const refused = columnOf(page, 'c4').locator('[data-role="error"]');
    assert.equal(await refused.locator('[data-role="error-status"]').textContent(), 'HTTP 401');
    assert.equal(await refused.getByRole('button', { name: 'Retry' }).count(), 0);
    await clearMessages(page);
    await refused.getByRole('button', { name: 'Set API Key…' }).click();
    assert.deepEqual(await messages(page), [{ type: 'setApiKey', turnId: 'c4' }], 'the key of that column’s application (and service)');
  });

  it('Stop on a column stops that column only; Stop All stops every one and hides when nothing streams; a column’s Stop hides after its end', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState(fourColumns().slice(0, 3)) });
    await send(page, ...['c1', 'c2', 'c3'].map((turnId): HostToCompare => ({ type: 'append', turnId, text: `Answer of ${turnId} so far` })));
    const stopAll = page.getByRole('button', { name: 'Stop All', exact: true });
    await stopAll.waitFor();
    const stops = ['Echo', 'Docs Bot', 'Reviewer'].map((name) => page!.getByRole('button', { name: `Stop ${name}`, exact: true }));
    for (const stop of stops) assert.equal(await stop.isVisible(), true);
    await clearMessages(page);
    await stops[1].click();
    assert.deepEqual(await messages(page), [{ type: 'stop', turnId: 'c2' }], 'only that column');
    await stopAll.click();
    assert.deepEqual(await messages(page), [{ type: 'stop', turnId: 'c2' }, { type: 'stop' }], 'Stop All: no turnId');

    await send(page, { type: 'turnEnd', turnId: 'c2', status: 'stopped' });
    await stops[1].waitFor({ state: 'hidden' });
    assert.equal(await columnOf(page, 'c2').locator('[data-role="stopped-note"]').textContent(), 'Stopped — partial answer kept');
    assert.equal(await columnOf(page, 'c2').locator('.aq-answer').textContent(), 'Answer of c2 so far\n');
    assert.equal(await stops[0].isVisible(), true, 'the others can still be stopped');
    assert.equal(await stops[2].isVisible(), true);
    assert.equal(await stopAll.isVisible(), true);
    await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done' });
    await stops[0].waitFor({ state: 'hidden' });
    assert.equal(await stopAll.isVisible(), true, 'c3 still streams');
    await send(page, { type: 'turnEnd', turnId: 'c3', status: 'interrupted', message: 'The connection closed.' });
    await stopAll.waitFor({ state: 'hidden' });
    for (const stop of stops) assert.equal(await stop.isVisible(), false);
    assert.equal(await page.evaluate(() => document.body.dataset.status), 'done');
  });

  it('the facts: HTTP status, first byte 120 ms, total 3.4 s and the length in UTF-8 bytes once the column ended', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState([column('c1', 'echo', { startedAt: Date.now() - 50 }), column('c2', 'docs')]) });
    const text = `# Überblick\n\n${'Ünïcödé 日本語 🚀 and more words. '.repeat(40)}\n`;
    const bytes = Buffer.byteLength(text, 'utf8');
    assert.ok(bytes > 1024 && bytes !== text.length, 'a length in KiB, of multi-byte text');
    await send(page, { type: 'status', turnId: 'c1', httpStatus: 200 });
    for (let at = 0; at < text.length; at += 97) await send(page, { type: 'append', turnId: 'c1', text: text.slice(at, at + 97) });
    const facts = columnOf(page, 'c1');
    await page.waitForFunction(() => document.querySelector('section[data-turn-id="c1"] [data-role="total"]')?.textContent?.startsWith('elapsed ') === true);
    assert.equal(await facts.locator('[data-role="http-status"]').first().textContent(), 'HTTP 200');
    await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done', httpStatus: 200, firstByteMs: 120, durationMs: 3400 });
    await page.waitForFunction(() => document.querySelector('section[data-turn-id="c1"] [data-role="total"]')?.textContent === 'total 3.4 s');
    assert.equal(await facts.locator('[data-role="first-byte"]').textContent(), 'first byte 120 ms');
    assert.equal(await facts.locator('[data-role="length"]').textContent(), formatBytes(bytes));
    assert.equal(formatBytes(bytes), `${(bytes / 1024).toFixed(1)} KiB`);
    // The streaming clock does not overwrite the host's figures afterwards.
    await page.waitForTimeout(600);
    assert.equal(await facts.locator('[data-role="total"]').textContent(), 'total 3.4 s');
    assert.equal(await facts.locator('[data-role="first-byte"]').textContent(), 'first byte 120 ms');
    // A column that has not received a byte shows no first byte yet, and a length of 0 B.
    assert.equal(await columnOf(page, 'c2').locator('[data-role="first-byte"]').isVisible(), false);
    assert.equal(await columnOf(page, 'c2').locator('[data-role="length"]').textContent(), '0 B');
  });

  it('Diff with… posts diff for its column, and is hidden when there is only one column', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState([column('c1', 'echo'), column('c2', 'docs')]) });
    await send(page, { type: 'append', turnId: 'c1', text: 'one' }, { type: 'append', turnId: 'c2', text: 'two' });
    await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done' }, { type: 'turnEnd', turnId: 'c2', status: 'done' });
    await allRendered(page, ['c1', 'c2']);
    const diff = columnOf(page, 'c2').locator('button[data-action="diff"]');
    assert.equal(await diff.isVisible(), true);
    assert.equal(await diff.textContent(), 'Diff with…');
    await clearMessages(page);
    await diff.click();
    assert.deepEqual(await messages(page), [{ type: 'diff', turnId: 'c2' }]);
    await columnOf(page, 'c1').getByRole('button', { name: 'Copy the answer of Echo' }).click();
    assert.deepEqual((await messages(page)).pop(), { type: 'copyAnswer', turnId: 'c1' });

    await send(page, { type: 'state', state: compareState([column('c1', 'echo')]) });
    await page.waitForFunction(() => document.querySelectorAll('section[data-role="column"]').length === 1);
    assert.equal(await columnOf(page, 'c1').locator('button[data-action="diff"]').isVisible(), false, 'nothing to diff with');
  });

  // A column built from a state whose turn has text or has ended: the host's replay after the hidden panel is shown again, and the state every Retry sends.
  it('a state with answers that have text or have ended (the panel shown again, a Retry) shows every column with its text, status and facts', async () => {
    page = await open();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const text = '# Done\n\nThe **whole** answer.\n';
    await send(page, {
      type: 'state',
      state: compareState([
        column('c1', 'echo', { text, status: 'done', httpStatus: 200, firstByteMs: 120, durationMs: 3400 }),
        column('c2', 'docs', { text: 'Half an ans', status: 'streaming' }),
        column('c3', 'review', { status: 'error', httpStatus: 500, message: 'boom', retryable: true }),
      ]),
    });
    await page.waitForFunction(() => document.querySelectorAll('section[data-role="column"]').length === 3, undefined, { timeout: 5000 }).catch(() => undefined);
    assert.deepEqual(errors, []);
    assert.equal(await page.locator('section[data-role="column"]').count(), 3);
    assert.deepEqual(await compareWithOneShot(page, { c1: text, c2: 'Half an ans' }), []);
    assert.equal(await columnOf(page, 'c1').locator('[data-role="total"]').textContent(), 'total 3.4 s');
    assert.equal(await columnOf(page, 'c3').locator('[data-role="error-status"]').textContent(), 'HTTP 500');
    assert.equal(await page.getByRole('button', { name: 'Stop All', exact: true }).isVisible(), true, 'c2 still streams');
    assert.equal(await page.locator('[data-role="announcer"]').textContent(), '', 'a replayed end is not announced');
  });

  it('two columns that end in one frame are no longer busy in the frame their last words appear, not a frame later', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState([column('c1', 'echo'), column('c2', 'docs')]) });
    await sendOverFrames(page, interleaved({ c1: longShapes(6 * 1024, 3).blocks, c2: longShapes(6 * 1024, 4).list }, 7));
    const frames = await page.evaluate(async () => {
      // Every callback of one animation frame, and the observers after them, read the frame's time here.
      const frame = (): number => Number(document.timeline.currentTime);
      const seen: Record<string, { text?: number; idle?: number }> = { c1: {}, c2: {} };
      const observers = Object.keys(seen).map((id) => {
        const turn = document.querySelector(`section[data-turn-id="${id}"] [data-role="assistant"]`) as Element;
        const observer = new MutationObserver(() => {
          if (seen[id].text === undefined && (turn.querySelector('.aq-answer')?.textContent ?? '').includes(`last words of ${id}`)) seen[id].text = frame();
          if (seen[id].idle === undefined && turn.getAttribute('aria-busy') === 'false') seen[id].idle = frame();
        });
        observer.observe(turn, { attributes: true, childList: true, subtree: true, characterData: true });
        return observer;
      });
      await new Promise((resolve) => requestAnimationFrame(resolve));
      for (const id of Object.keys(seen)) {
        window.dispatchEvent(new MessageEvent('message', { data: { type: 'append', turnId: id, text: `\n\nThe last words of ${id}.\n` } }));
        window.dispatchEvent(new MessageEvent('message', { data: { type: 'turnEnd', turnId: id, status: 'done', httpStatus: 200 } }));
      }
      for (let i = 0; i < 60 && Object.values(seen).some((s) => s.idle === undefined); i++) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      for (const observer of observers) observer.disconnect();
      return seen;
    });
    const summary = JSON.stringify(frames);
    for (const id of ['c1', 'c2']) {
      assert.ok(frames[id].text !== undefined && frames[id].idle === frames[id].text, summary);
    }
  });

  it('the live region gets one announcement per column end, naming the column, none per chunk, and both when two end in the same frame', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState([column('c1', 'echo'), column('c2', 'docs'), column('c3', 'review', { environment: 'staging' })]) });
    const announcer = page.locator('[data-role="announcer"]');
    await announcer.waitFor({ state: 'attached' });
    assert.equal(await announcer.getAttribute('aria-live'), 'polite');
    await page.evaluate(() => {
      const w = window as unknown as { __announced: number };
      w.__announced = 0;
      new MutationObserver((records) => (w.__announced += records.length)).observe(document.querySelector('[data-role="announcer"]') as Element, { childList: true, subtree: true, characterData: true });
    });
    const answers = { c1: longShapes(3 * 1024, 2).paragraph, c2: longShapes(3 * 1024, 2).list, c3: longShapes(3 * 1024, 2).quote };
    await sendOverFrames(page, interleaved(answers, 11));
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => (window as unknown as { __announced: number }).__announced), 0, 'nothing announced while streaming');
    assert.equal(await announcer.textContent(), '');

    await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done' });
    await page.waitForFunction(() => document.querySelectorAll('[data-role="announcer"] > *').length === 1);
    assert.deepEqual(await announcer.locator(':scope > *').allTextContents(), ['Echo: Answer complete']);
    // Two columns end in one frame: both are announced, neither replaces the other.
    await page.evaluate(() => {
      requestAnimationFrame(() => {
        window.dispatchEvent(new MessageEvent('message', { data: { type: 'turnEnd', turnId: 'c2', status: 'done' } }));
        window.dispatchEvent(new MessageEvent('message', { data: { type: 'turnEnd', turnId: 'c3', status: 'error', httpStatus: 500, message: 'boom' } }));
      });
    });
    await page.waitForFunction(() => document.querySelectorAll('[data-role="announcer"] > *').length >= 3);
    // An end the view has already shown (a repeated turnEnd) is not announced again.
    await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done' });
    await allRendered(page, ['c1', 'c2', 'c3']);
    await page.waitForTimeout(200);
    assert.deepEqual(await announcer.locator(':scope > *').allTextContents(), ['Echo: Answer complete', 'Docs Bot: Answer complete', 'Reviewer on staging: Request failed: HTTP 500']);
  });

  it('narrow (500 px): the columns stack, each full width, one below the other; wide (1400 px): four side by side', async () => {
    const answers = { c1: longShapes(2 * 1024, 4).paragraph, c2: 'Short.', c3: longShapes(2 * 1024, 4).list, c4: 'Also short.' };
    const boxes = async (target: Page) =>
      target.evaluate(() => {
        const grid = document.querySelector('[data-role="columns"]') as HTMLElement;
        const style = getComputedStyle(grid);
        const inner = grid.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return {
          inner,
          viewport: window.innerWidth,
          columns: [...document.querySelectorAll('section[data-role="column"]')].map((section) => {
            const rect = section.getBoundingClientRect();
            return { left: rect.left, top: rect.top, width: rect.width, bottom: rect.bottom };
          }),
        };
      });
    for (const width of [500, 1400]) {
      page = await open({ width, height: 800 });
      await send(page, { type: 'state', state: compareState(fourColumns()) });
      await send(page, ...Object.entries(answers).map(([turnId, text]): HostToCompare => ({ type: 'append', turnId, text })));
      await send(page, ...Object.keys(answers).map((turnId): HostToCompare => ({ type: 'turnEnd', turnId, status: 'done' })));
      await allRendered(page, Object.keys(answers));
      const layout = await boxes(page);
      const summary = `${width} px: ${JSON.stringify(layout)}`;
      assert.equal(layout.columns.length, 4, summary);
      if (width === 500) {
        for (const box of layout.columns) assert.ok(Math.abs(box.width - layout.inner) <= 1, `each column is full width: ${summary}`);
        for (let i = 1; i < 4; i++) assert.ok(layout.columns[i].top >= layout.columns[i - 1].bottom, `one below the other: ${summary}`);
      } else {
        for (const box of layout.columns) assert.equal(box.top, layout.columns[0].top, `same top: ${summary}`);
        for (let i = 1; i < 4; i++) assert.ok(layout.columns[i].left >= layout.columns[i - 1].left + layout.columns[i - 1].width, `side by side: ${summary}`);
        assert.ok(layout.columns[3].left + layout.columns[3].width <= layout.viewport, `nothing sticks out: ${summary}`);
      }
      await closePage();
    }
  });

  // Product bug (see the report): at 500 px the columns stack and `.aq-compare` grows to its content
  // (height: auto), but body { overflow: hidden } is propagated to the viewport, so nothing scrolls:
  // the columns below the first screen cannot be reached with the wheel or the keyboard.
  it('narrow (500 px): the reader can scroll down to the last stacked column', async () => {
    page = await open({ width: 500, height: 600 });
    await send(page, { type: 'state', state: compareState(fourColumns()) });
    const long = longShapes(3 * 1024, 4).paragraph;
    await send(page, ...['c1', 'c2', 'c3', 'c4'].map((turnId): HostToCompare => ({ type: 'append', turnId, text: long })));
    await send(page, ...['c1', 'c2', 'c3', 'c4'].map((turnId): HostToCompare => ({ type: 'turnEnd', turnId, status: 'done' })));
    await allRendered(page, ['c1', 'c2', 'c3', 'c4']);
    const last = columnOf(page, 'c4').locator('[data-role="column-title"]');
    const inView = (): Promise<boolean> => last.evaluate((el) => el.getBoundingClientRect().top < window.innerHeight && el.getBoundingClientRect().bottom > 0);
    assert.equal(await inView(), false, 'the last column starts below the first screen');
    await page.mouse.move(250, 300);
    for (let i = 0; i < 40 && !(await inView()); i++) {
      await page.mouse.wheel(0, 400);
      await page.waitForTimeout(30);
    }
    assert.equal(await inView(), true, 'the wheel brings the last column into view');
  });

  for (const theme of [
    { kind: 'vscode-high-contrast', vars: { '--vscode-contrastBorder': '#6fc3df', '--vscode-editor-background': '#000000', '--vscode-foreground': '#ffffff' } },
    { kind: 'vscode-high-contrast-light', vars: { '--vscode-contrastBorder': '#0f4a85', '--vscode-editor-background': '#ffffff', '--vscode-foreground': '#292929' } },
  ]) {
    it(`${theme.kind}: every column, the failed one too, has a visible border`, async () => {
      page = await open();
      // As VS Code themes a webview: a class on body, the theme's colours as variables on <html>
      // (CSSOM, which the CSP allows). Only contrastBorder: the one border colour a high-contrast theme always has.
      await page.evaluate((theme) => {
        document.body.classList.add(theme.kind);
        document.body.dataset.vscodeThemeKind = theme.kind;
        for (const [name, value] of Object.entries(theme.vars)) document.documentElement.style.setProperty(name, value);
      }, theme);
      await send(page, { type: 'state', state: compareState(fourColumns()) });
      await send(page, { type: 'turnEnd', turnId: 'c2', status: 'error', httpStatus: 500, message: 'boom' });
      await columnOf(page, 'c2').locator('[data-role="error"]').waitFor();
      const borders = await page.evaluate(() =>
        [...document.querySelectorAll('section[data-role="column"]')].map((section) => {
          const style = getComputedStyle(section);
          return (['Top', 'Right', 'Bottom', 'Left'] as const).map((side) => ({ width: parseFloat(style.getPropertyValue(`border-${side.toLowerCase()}-width`)), style: style.getPropertyValue(`border-${side.toLowerCase()}-style`), color: style.getPropertyValue(`border-${side.toLowerCase()}-color`) }));
        }),
      );
      const summary = JSON.stringify(borders);
      assert.equal(borders.length, 4, summary);
      for (const sides of borders) {
        for (const side of sides) {
          assert.ok(side.width >= 1 && side.style !== 'none', summary);
          assert.ok(side.color !== 'rgba(0, 0, 0, 0)' && side.color !== 'transparent', `a colour, not transparent: ${summary}`);
        }
      }
    });
  }

  for (const [label, csp] of [
    ['under the webview CSP', true],
    ['with no CSP at all (the sanitizer alone)', false],
  ] as const) {
    it(`the hostile corpus streamed into a column, ${label}: nothing runs, nothing loads, nothing dangerous stays; hostile names stay text`, async () => {
      page = await open({ csp });
      capture.requests.length = 0;
      const evil = '<img src=x onerror="window.__pwned=true">';
      await send(page, {
        type: 'state',
        state: compareState([column('c1', 'echo'), column('c2', 'evil', { environment: `<b onmouseover="window.__pwned=true">env</b>` })], {
          title: `Compare: ${evil}`,
          applications: [...APPS, { id: 'evil', label: `Evil ${evil}`, hasKey: true }],
          turns: [{ id: 'q', role: 'user', applicationId: '', text: `Question ${evil}`, status: 'done', startedAt: Date.now() }],
        }),
      });
      await send(page, { type: 'turnStart', turn: column('c1', 'echo') }, { type: 'turnStart', turn: column('c2', 'evil', { environment: `<b onmouseover="window.__pwned=true">env</b>` }) });
      const text = hostileCorpus(capture.origin);
      const pieces: HostToCompare[] = [];
      for (let i = 0; i < text.length; i += 5) pieces.push({ type: 'append', turnId: 'c1', text: text.slice(i, i + 5) }, { type: 'append', turnId: 'c2', text: text.slice(i, i + 5) });
      await sendOverFrames(page, pieces, 20);
      await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done' }, { type: 'turnEnd', turnId: 'c2', status: 'done' });
      await allRendered(page, ['c1', 'c2']);
      if (!csp) {
        // A control image from the capture server: requests the page made earlier have arrived by then.
        await page.evaluate(
          (url) =>
            new Promise<void>((resolve) => {
              const img = new Image();
              img.onload = img.onerror = () => resolve();
              img.src = url;
            }),
          `${capture.origin}/control`,
        );
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      }
      const findings = await page.evaluate(() => {
        const found: string[] = [];
        const answers = [...document.querySelectorAll('[data-role="columns"] .aq-answer')];
        if (answers.length !== 2) found.push(`${answers.length} answers`);
        const forbidden = 'script,iframe,object,embed,style,link,meta,svg,math,form,video,audio,source,template,noscript,base,details,input,textarea';
        for (const answer of answers) {
          for (const el of answer.querySelectorAll(forbidden)) found.push(`element ${el.tagName}`);
          for (const el of answer.querySelectorAll('*')) {
            for (const attr of el.getAttributeNames()) {
              if (/^on/i.test(attr) || attr === 'style' || attr === 'id' || attr === 'name' || attr === 'srcdoc' || attr === 'formaction') found.push(`attribute ${attr} on ${el.tagName}`);
            }
          }
          for (const a of answer.querySelectorAll('a[href]')) {
            const href = a.getAttribute('href') ?? '';
            if (!/^(https?:|mailto:)/i.test(href)) found.push(`href ${href}`);
          }
          for (const img of answer.querySelectorAll('img[src]')) {
            const src = img.getAttribute('src') ?? '';
            if (!/^data:image\/(png|jpe?g|gif|webp);/i.test(src)) found.push(`img ${src}`);
          }
        }
        // Outside the answers, the page's own markup: no element came from the names, the title or the question.
        for (const el of document.querySelectorAll('#root img, #root b, #root script')) found.push(`page element ${el.tagName}`);
        for (const el of document.querySelectorAll('#root *')) {
          for (const attr of el.getAttributeNames()) if (/^on/i.test(attr)) found.push(`page attribute ${attr} on ${el.tagName}`);
        }
        if (window.__pwned) found.push('script ran');
        return found;
      });
      assert.deepEqual(findings, []);
      assert.deepEqual(capture.requests.filter((r) => r !== '/control'), [], 'nothing loaded from elsewhere');
      assert.equal(dialogs, 0);
      assert.equal(await columnOf(page, 'c2').locator('[data-role="column-title"]').textContent(), 'Evil <img src=x onerror="window.__pwned=true">');
      assert.equal(await columnOf(page, 'c2').locator('[data-role="environment"]').textContent(), '<b onmouseover="window.__pwned=true">env</b>');
      assert.equal(await page.locator('[data-role="title"]').textContent(), `Compare: ${evil}`);
      // Every link in the answers: nothing runs or navigates; only http(s) and mailto are posted.
      await clearMessages(page);
      for (const link of await page.locator('[data-role="columns"] .aq-answer a').all()) await link.click();
      for (const message of await messages(page)) {
        assert.equal(message.type, 'openLink');
        assert.match(String(message.href), /^(https?:|mailto:)/);
      }
      assert.equal(await page.evaluate(() => window.__pwned), false);
      assert.ok(page.url().startsWith(server.origin) && page.url().includes('/compare-'), page.url());
    });
  }

  it('one application on two environments: two regions with different names', async () => {
    page = await open();
    await send(page, { type: 'state', state: compareState([column('c1', 'echo', { environment: 'staging' }), column('c2', 'echo', { environment: 'production' })]) });
    await page.locator('section[data-role="column"]').nth(1).waitFor();
    const names = await page.evaluate(() =>
      [...document.querySelectorAll('section[data-role="column"]')].map((section) =>
        (section.getAttribute('aria-labelledby') ?? '').split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' '),
      ),
    );
    assert.notEqual(names[0], names[1], JSON.stringify(names));
  });
});
