import * as assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { ApplicationInfo, AttachmentInfo, HostToWebview, SurfaceState, Turn } from '../../src/shared/protocol';
import { launchBrowser, LoopbackServer, routeWebviewAssets, webviewPage } from '../support/browser';

const APPS: ApplicationInfo[] = [
  { id: 'docs', label: 'Docs Bot', hasKey: true },
  { id: 'review', label: 'Reviewer', hasKey: false },
];

function turn(id: string, role: Turn['role'], text: string, extra: Partial<Turn> = {}): Turn {
  return { id, role, applicationId: 'docs', text, status: role === 'user' ? 'done' : 'streaming', startedAt: 0, ...extra };
}

function state(surface: 'chat' | 'panel', turns: Turn[] = [], extra: Partial<SurfaceState> = {}): SurfaceState {
  return { surface, title: 'Docs Bot: explain app.ts', applications: APPS, currentApplicationId: 'docs', turns, attachments: [], ...extra };
}

type Posted = { type: string } & Record<string, unknown>;

describe('webview UI in Chromium', function () {
  this.timeout(180_000);
  let server: LoopbackServer;
  let browser: Browser;
  let page: Page;
  let pages = 0;

  const violations = `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`;

  before(async () => {
    server = await LoopbackServer.start();
    await routeWebviewAssets(server);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  afterEach(async () => {
    if (page !== undefined) {
      const found = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
      await page.close();
      assert.deepEqual(found, [], 'no CSP violations (no inline styles, nothing remote)');
    }
  });

  async function open(surface: 'chat' | 'panel', initialState?: unknown): Promise<Page> {
    const pathname = `/${surface}-${++pages}`;
    server.route(pathname, 'text/html', webviewPage({ origin: server.origin, surface, scripts: ['/webview.js'], styles: ['/codicon.css', '/webview.css'], initialState }));
    const created = await browser.newPage({ viewport: { width: 420, height: 640 } });
    await created.addInitScript(violations);
    await created.goto(`${server.origin}${pathname}`);
    await created.waitForFunction(() => window.__messages.length > 0);
    return created;
  }

  async function send(target: Page, message: HostToWebview): Promise<void> {
    await target.evaluate((m) => window.postMessage(m, '*'), message);
  }

  async function messages(target: Page): Promise<Posted[]> {
    return (await target.evaluate(() => window.__messages)) as Posted[];
  }

  async function waitForMessage(target: Page, type: string): Promise<Posted> {
    await target.waitForFunction((t) => window.__messages.some((m) => (m as { type: string }).type === t), type);
    return (await messages(target)).filter((m) => m.type === type).pop() as Posted;
  }

  async function clearMessages(target: Page): Promise<void> {
    await target.evaluate(() => {
      window.__messages.length = 0;
    });
  }

  describe('chat', () => {
    it('posts ready first, shows a welcome, and the Application picker selects', async () => {
      page = await open('chat');
      assert.deepEqual((await messages(page))[0], { type: 'ready' });
      await send(page, { type: 'state', state: state('chat') });
      const picker = page.getByRole('combobox', { name: 'Application' });
      await page.waitForFunction(() => document.querySelectorAll('#aq-application option').length === 2);
      assert.equal(await picker.inputValue(), 'docs');
      assert.deepEqual(await picker.locator('option').allTextContents(), ['Docs Bot', 'Reviewer (no API key)']);
      assert.match((await page.locator('[data-role="welcome"]').textContent()) ?? '', /Choose an application above/);
      await picker.selectOption('review');
      assert.deepEqual(await waitForMessage(page, 'selectApplication'), { type: 'selectApplication', applicationId: 'review' });
      await send(page, { type: 'applications', applications: APPS, currentApplicationId: 'review' });
      await page.getByRole('button', { name: 'Set API Key…' }).click();
      await waitForMessage(page, 'setApiKey');
      await page.getByRole('button', { name: 'Clear conversation' }).click();
      await page.getByRole('button', { name: 'Export as Markdown' }).click();
      await waitForMessage(page, 'exportMarkdown');
      assert.ok((await messages(page)).some((m) => m.type === 'clear'));
    });

    it('Enter sends and clears, Shift+Enter adds a line, empty input sends nothing, the draft survives a reload', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat') });
      const input = page.getByRole('textbox', { name: 'Ask the application' });
      await input.focus();
      await page.keyboard.press('Enter');
      await input.pressSequentially('   ');
      await page.keyboard.press('Enter');
      await input.fill('');
      await input.pressSequentially('first line');
      await page.keyboard.press('Shift+Enter');
      await input.pressSequentially('second line');
      assert.equal(await input.inputValue(), 'first line\nsecond line');
      const draftState = await page.evaluate(() => window.__state);
      assert.deepEqual(draftState, { draft: 'first line\nsecond line' });
      await page.keyboard.press('Enter');
      assert.deepEqual(await waitForMessage(page, 'send'), { type: 'send', text: 'first line\nsecond line' });
      assert.equal((await messages(page)).filter((m) => m.type === 'send').length, 1, 'empty input sent nothing');
      assert.equal(await input.inputValue(), '');
      await input.pressSequentially('unsent draft');
      const saved = await page.evaluate(() => window.__state);
      await page.close();
      page = await open('chat', saved);
      assert.equal(await page.getByRole('textbox', { name: 'Ask the application' }).inputValue(), 'unsent draft');
    });

    it('streams an answer: Send turns into Stop, Escape stops, markdown renders, one announcement at the end', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat') });
      await send(page, { type: 'turnStart', turn: turn('q1', 'user', 'What is **this**?', { attachments: ['selection: app.ts:1-4'] }) });
      await send(page, { type: 'turnStart', turn: turn('a1', 'assistant', '') });
      const stop = page.getByRole('button', { name: 'Stop' });
      await stop.waitFor();
      assert.equal(await page.locator('[data-turn-id="q1"] .aq-user-text').textContent(), 'What is **this**?', 'questions are plain text');
      assert.match((await page.locator('[data-turn-id="q1"]').textContent()) ?? '', /selection: app\.ts:1-4/);
      assert.equal(await page.locator('[data-turn-id="a1"] .aq-progress').isVisible(), true);
      const chunks = ['It is **bo', 'ld** text.\n\n```ts\nconst x', ' = 1;\n```\n\nDone.'];
      for (const text of chunks) {
        await send(page, { type: 'append', turnId: 'a1', text });
      }
      await page.waitForFunction(() => document.querySelector('[data-turn-id="a1"] .aq-answer')?.textContent?.includes('Done.') === true);
      assert.equal(await page.locator('[data-turn-id="a1"] .aq-answer strong').textContent(), 'bold');
      assert.equal(await page.locator('[data-turn-id="a1"] .aq-code code').textContent(), 'const x = 1;\n');
      assert.equal(await page.locator('[data-role="announcer"]').textContent(), '', 'nothing announced while streaming');

      await page.getByRole('textbox', { name: 'Ask the application' }).focus();
      await page.keyboard.press('Escape');
      await stop.click();
      assert.deepEqual(
        (await messages(page)).filter((m) => m.type === 'stop'),
        [{ type: 'stop' }, { type: 'stop' }],
      );

      await send(page, { type: 'status', turnId: 'a1', httpStatus: 200 });
      await send(page, { type: 'turnEnd', turnId: 'a1', status: 'done' });
      await page.getByRole('button', { name: 'Send' }).waitFor();
      assert.equal(await page.locator('[data-turn-id="a1"]').getAttribute('data-status'), 'done');
      assert.equal(await page.locator('[data-turn-id="a1"] .aq-progress').isVisible(), false);
      assert.equal(await page.locator('[data-turn-id="a1"] [data-role="http-status"]').textContent(), 'HTTP 200');
      assert.equal(await page.locator('[data-role="announcer"]').textContent(), 'Answer complete');
      await clearMessages(page);
      await page.locator('[data-turn-id="a1"]').getByRole('button', { name: 'Copy answer' }).click();
      assert.deepEqual(await waitForMessage(page, 'copyAnswer'), { type: 'copyAnswer', turnId: 'a1' }, 'the host copies its own text: nothing large crosses over');
      await page.locator('[data-turn-id="a1"] button[data-action="insert"]').click();
      assert.deepEqual(await waitForMessage(page, 'insertCode'), { type: 'insertCode', code: 'const x = 1;' });
    });

    it('a long answer that arrives at once is busy until its end is rendered, all of it in the page; the view follows it to its end and shows the middle when scrolled to', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat') });
      await send(page, { type: 'turnStart', turn: turn('a1', 'assistant', '') });
      const sections = 3000;
      const text = Array.from({ length: sections }, (_, i) => `## Part ${i + 1}\n\nText with **bold** and \`code\` ${i}.\n\n- one\n- two\n\n\`\`\`ts\nconst v${i} = ${i};\n\`\`\`\n`).join('\n');
      const result = await page.evaluate(
        async (text) => {
          const frame = (): Promise<unknown> => new Promise((resolve) => requestAnimationFrame(resolve));
          window.postMessage({ type: 'append', turnId: 'a1', text }, '*');
          window.postMessage({ type: 'turnEnd', turnId: 'a1', status: 'done' }, '*');
          const answer = (): Element | null => document.querySelector('[data-turn-id="a1"]');
          await new Promise<void>((resolve) => setTimeout(resolve, 0));
          const busyAfterEnd = answer()?.getAttribute('aria-busy');
          let frames = 0;
          while (answer()?.getAttribute('aria-busy') !== 'false') {
            await frame();
            frames++;
          }
          const headings = (): string[] => [...(answer()?.querySelectorAll('h2') ?? [])].map((h2) => h2.textContent ?? '');
          // Text that floods in is followed at most every 100 ms (see AutoScroller): the view reaches the end within that.
          const transcript = document.querySelector('.aq-transcript') as HTMLElement;
          const atBottom = (): boolean => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 24;
          const followedAt = performance.now();
          while (!atBottom() && performance.now() - followedAt < 1000) {
            await frame();
          }
          const followMs = performance.now() - followedAt;
          const all = headings();
          // The reader scrolls to the middle of the answer: the parts there are in view.
          transcript.scrollTop = transcript.scrollHeight / 2;
          await frame();
          await frame();
          const box = transcript.getBoundingClientRect();
          const scrolled = { top: transcript.scrollTop, height: transcript.scrollHeight, client: transcript.clientHeight };
          const inView = [...(answer()?.querySelectorAll('h2') ?? [])]
            .filter((h2) => {
              const rect = h2.getBoundingClientRect();
              return rect.bottom > box.top && rect.top < box.bottom;
            })
            .map((h2) => Number((h2.textContent ?? '').slice(5)));
          return { busyAfterEnd, frames, followed: followMs < 1000, all: all.length, lastHeading: all[all.length - 1], inView, scrolled, status: answer()?.getAttribute('data-status') };
        },
        text,
      );
      const summary = JSON.stringify({ ...result, inView: result.inView.slice(0, 5) });
      assert.equal(result.busyAfterEnd, 'true', summary);
      assert.ok(result.frames > 1, `rendered over several frames: ${summary}`);
      assert.equal(result.status, 'done', summary);
      assert.ok(result.followed, summary);
      assert.equal(result.all, sections, `every part is in the page: ${summary}`);
      assert.equal(result.lastHeading, `Part ${sections}`, summary);
      assert.ok(result.inView.length > 0 && result.inView.every((n) => n > 0.3 * sections && n < 0.7 * sections), `the middle is in view: ${summary}`);
    });

    it('a long answer that arrives at once and then pauses is rendered to its last complete block over the next frames', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat') });
      await send(page, { type: 'turnStart', turn: turn('a1', 'assistant', '') });
      const sections = 2000;
      const text = Array.from({ length: sections }, (_, i) => `## Part ${i + 1}\n\nText with **bold** ${i}.\n`).join('\n') + '\nThe end';
      await send(page, { type: 'append', turnId: 'a1', text });
      // No more text comes for now: the renderer must still work through all it has.
      await page.waitForFunction((n) => document.querySelectorAll('[data-turn-id="a1"] h2').length === n, sections, { timeout: 60_000 });
      assert.equal(await page.locator('[data-turn-id="a1"]').getAttribute('aria-busy'), 'true');
    });

    it('a 401 shows the status, the message, Retry and Set API Key…, and announces the failure once', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat', [turn('q1', 'user', 'hi'), turn('a1', 'assistant', 'partial ')]) });
      await send(page, { type: 'append', turnId: 'a1', text: 'answer' });
      await send(page, { type: 'turnEnd', turnId: 'a1', status: 'error', httpStatus: 401, message: 'The API key was rejected.', retryable: true, remedies: ['setApiKey'] });
      const error = page.locator('[data-turn-id="a1"] [data-role="error"]');
      await error.waitFor();
      assert.match((await error.textContent()) ?? '', /HTTP 401/);
      assert.match((await error.textContent()) ?? '', /The API key was rejected\./);
      assert.equal(await page.locator('[data-turn-id="a1"] .aq-answer').textContent(), 'partial answer\n', 'the partial answer stays');
      assert.equal(await page.locator('[data-role="announcer"]').textContent(), 'Request failed: HTTP 401');
      assert.equal(await page.locator('[data-role="announcer"] > *').count(), 1);
      await error.getByRole('button', { name: 'Retry' }).click();
      assert.deepEqual(await waitForMessage(page, 'retry'), { type: 'retry', turnId: 'a1' });
      await error.getByRole('button', { name: 'Set API Key…' }).click();
      await waitForMessage(page, 'setApiKey');
    });

    it('a 500 without retry offers neither Retry nor Set API Key…; a stopped answer keeps its text with a note', async () => {
      page = await open('chat');
      await send(page, {
        type: 'state',
        state: state('chat', [
          turn('q1', 'user', 'one'),
          turn('a1', 'assistant', '', { status: 'error', httpStatus: 500, message: 'Server error', retryable: false }),
          turn('q2', 'user', 'two'),
          turn('a2', 'assistant', 'half an'),
        ]),
      });
      const error = page.locator('[data-turn-id="a1"] [data-role="error"]');
      await error.waitFor();
      assert.match((await error.textContent()) ?? '', /HTTP 500/);
      assert.equal(await error.getByRole('button').count(), 0);
      assert.equal(await page.locator('[data-role="announcer"]').textContent(), '', 'replayed state is not announced');
      await send(page, { type: 'turnEnd', turnId: 'a2', status: 'stopped' });
      await page.locator('[data-turn-id="a2"] [data-role="stopped-note"]').waitFor();
      assert.equal(await page.locator('[data-turn-id="a2"] [data-role="stopped-note"]').textContent(), 'Stopped — partial answer kept');
      assert.equal(await page.locator('[data-turn-id="a2"] .aq-answer').textContent(), 'half an\n');
      assert.equal(await page.locator('[data-role="announcer"]').textContent(), 'Answer stopped');
    });

    it('keeps a question too long to pass to the host in the composer and says so, instead of clearing it', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat') });
      const input = page.locator('textarea[aria-label="Ask the application"]');
      await input.evaluate((element) => {
        (element as HTMLTextAreaElement).value = 'x'.repeat(1_000_001);
      });
      await clearMessages(page);
      await input.press('Enter');
      assert.equal(await input.evaluate((element) => (element as HTMLTextAreaElement).value.length), 1_000_001, 'the question is still there');
      assert.match(await input.evaluate((element) => (element as HTMLTextAreaElement).validationMessage), /1,000,001 characters long; the limit is 1,000,000/);
      assert.deepEqual((await messages(page)).filter((m) => m.type === 'send'), [], 'nothing was sent');
    });

    it('attachment chips show their labels and can be removed; the attach buttons ask the host', async () => {
      page = await open('chat');
      const attachments: AttachmentInfo[] = [
        { id: 'att1', label: 'selection: app.ts:10-24', kind: 'selection' },
        { id: 'att2', label: 'file: util.ts', kind: 'file' },
      ];
      await send(page, { type: 'state', state: state('chat', [], { attachments }) });
      await page.locator('.aq-chip[data-attachment-id="att2"]').waitFor();
      assert.deepEqual(await page.locator('[data-role="attachments"] .aq-chip-label').allTextContents(), ['selection: app.ts:10-24', 'file: util.ts']);
      await page.getByRole('button', { name: 'Remove file: util.ts' }).click();
      assert.deepEqual(await waitForMessage(page, 'removeAttachment'), { type: 'removeAttachment', id: 'att2' });
      await page.getByRole('button', { name: 'Attach selection' }).click();
      await page.getByRole('button', { name: 'Attach file' }).click();
      await page.waitForFunction(() => window.__messages.filter((m) => (m as { type: string }).type === 'attach').length === 2);
      assert.deepEqual(
        (await messages(page)).filter((m) => m.type === 'attach'),
        [
          { type: 'attach', kind: 'selection' },
          { type: 'attach', kind: 'file' },
        ],
      );
      await send(page, { type: 'attachments', attachments: [] });
      await page.waitForFunction(() => document.querySelectorAll('.aq-chip').length === 0);
    });

    it('works from the keyboard alone: Tab reaches every control, Enter and Space press buttons', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat', [turn('q1', 'user', 'q'), turn('a1', 'assistant', 'See [docs](https://example.com).\n\n```js\nx()\n```\n', { status: 'done' })], { attachments: [{ id: 'a', label: 'file: a.ts', kind: 'file' }] }) });
      await page.locator('[data-turn-id="a1"] .aq-code').waitFor();
      const reached: string[] = [];
      for (let i = 0; i < 20; i++) {
        await page.keyboard.press('Tab');
        reached.push(
          await page.evaluate(() => {
            const el = document.activeElement;
            return el === null ? '' : (el.getAttribute('aria-label') ?? el.getAttribute('data-action') ?? el.tagName.toLowerCase());
          }),
        );
      }
      for (const expected of ['select', 'Clear conversation', 'Export as Markdown', 'Copy answer', 'a', 'Copy code', 'Insert code at cursor', 'Open code in new editor', 'Remove file: a.ts', 'Ask the application', 'Attach selection', 'Attach file', 'Send']) {
        assert.ok(reached.includes(expected), `Tab reaches ${expected}: ${reached.join(' | ')}`);
      }
      await page.getByRole('button', { name: 'Open code in new editor' }).focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await waitForMessage(page, 'openCode'), { type: 'openCode', code: 'x()', language: 'js' });
      await page.locator('[data-turn-id="a1"] .aq-answer a').focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await waitForMessage(page, 'openLink'), { type: 'openLink', href: 'https://example.com' });
      await page.getByRole('button', { name: 'Attach file' }).focus();
      await page.keyboard.press('Space');
      await waitForMessage(page, 'attach');
    });

    /** A chat page with a question and the empty answer `a1` it is streaming. */
    async function chatAnswering(): Promise<Page> {
      const opened = await open('chat');
      await send(opened, { type: 'state', state: state('chat', [turn('q1', 'user', 'go'), turn('a1', 'assistant', '')]) });
      await opened.locator('[data-turn-id="a1"]').waitFor();
      return opened;
    }

    it('follows a streaming answer to the bottom, but not once the user scrolled up', async () => {
      page = await open('chat');
      await send(page, { type: 'state', state: state('chat', [turn('q1', 'user', 'long please'), turn('a1', 'assistant', '')]) });
      await page.locator('[data-turn-id="a1"]').waitFor();
      const paragraph = (n: number): string => `Paragraph ${n} ${'word '.repeat(30)}\n\n`;
      for (let i = 0; i < 30; i++) {
        await send(page, { type: 'append', turnId: 'a1', text: paragraph(i) });
      }
      await page.waitForFunction(() => {
        const el = document.querySelector('.aq-transcript');
        return el !== null && el.textContent?.includes('Paragraph 29') === true && el.scrollHeight > el.clientHeight * 2 && el.scrollHeight - el.scrollTop - el.clientHeight < 2;
      });
      // The reader wheels back to the top (a move of the view the reader did not make, such as the browser's scroll anchoring, does not count).
      await page.mouse.move(200, 200);
      await page.mouse.wheel(0, -100_000);
      await page.waitForFunction(() => (document.querySelector('.aq-transcript')?.scrollTop ?? -1) === 0);
      for (let i = 30; i < 40; i++) {
        await send(page, { type: 'append', turnId: 'a1', text: paragraph(i) });
      }
      await page.waitForFunction(() => document.querySelector('.aq-transcript')?.textContent?.includes('Paragraph 39') === true);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      assert.equal(await page.locator('.aq-transcript').evaluate((el) => el.scrollTop), 0);
    });

    it('a whole conversation, a new question, its answer and the answer\'s end do not lay the page out in their messages\' tasks; the view follows them in the next frame', async () => {
      page = await open('chat');
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      // A conversation longer than the view, its answers rendered as the state arrives.
      const earlier = Array.from({ length: 12 }, (_, i) => [turn(`q${i}`, 'user', `question ${i}`), turn(`a${i}`, 'assistant', `Answer ${i}.\n\n${'word '.repeat(80)}`, { status: 'done' })]).flat();
      const result = await page.evaluate(async (whole) => {
        const scroller = document.querySelector('.aq-transcript') as HTMLElement;
        const frames = (n: number): Promise<void> => new Promise((resolve) => {
          const step = (): void => void (--n === 0 ? resolve() : requestAnimationFrame(step));
          requestAnimationFrame(step);
        });
        // Every read of a property that makes the browser lay the page out, counted.
        let reads = 0;
        const watch = (proto: object, name: string): void => {
          const original = Object.getOwnPropertyDescriptor(proto, name);
          // The descriptor's getter, taken as the function it is (it is called on each element below).
          const get: unknown = original === undefined ? undefined : Reflect.get(original, 'get');
          if (original === undefined || typeof get !== 'function') throw new Error(`no getter ${name}`);
          Object.defineProperty(proto, name, {
            ...original,
            get(this: Element): number {
              reads++;
              return (get as (this: Element) => number).call(this);
            },
          });
        };
        for (const name of ['scrollTop', 'scrollHeight', 'clientHeight', 'clientWidth']) watch(Element.prototype, name);
        for (const name of ['offsetHeight', 'offsetWidth', 'offsetTop']) watch(HTMLElement.prototype, name);
        // This listener runs after the page's own, in the same task: what the page read in it is counted by then.
        const inTask: Record<string, number> = {};
        let counted = 0;
        window.addEventListener('message', (event: MessageEvent<{ type: string; turn?: { role: string } }>) => {
          inTask[event.data.turn?.role ?? event.data.type] = reads - counted;
          counted = reads;
        });
        const fromEnd = (): number => Math.round(scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight);
        window.postMessage(whole, '*');
        await new Promise((resolve) => setTimeout(resolve, 0));
        // The answers render in the frame after the state, and the view's size notices come in the frame after that.
        await frames(3);
        const restored = { fromEnd: fromEnd(), tall: scroller.scrollHeight > scroller.clientHeight * 2, answers: document.querySelectorAll('[data-role="assistant"] .aq-answer p').length };
        counted = reads;
        const stamp = { applicationId: 'docs', status: 'streaming', startedAt: 0 };
        window.postMessage({ type: 'turnStart', turn: { ...stamp, id: 'q12', role: 'user', text: 'a new question', status: 'done' } }, '*');
        window.postMessage({ type: 'turnStart', turn: { ...stamp, id: 'a12', role: 'assistant', text: '' } }, '*');
        window.postMessage({ type: 'turnEnd', turnId: 'a12', status: 'done' }, '*');
        await new Promise((resolve) => setTimeout(resolve, 0));
        const before = reads;
        await frames(2);
        return { restored, inTask, readsInFrames: reads - before, fromEnd: fromEnd() };
      }, { type: 'state', state: state('chat', earlier) } as HostToWebview);
      assert.deepEqual(result.restored, { fromEnd: 0, tall: true, answers: 24 }, 'the whole conversation is rendered, and the view is at its end');
      assert.deepEqual(result.inTask, { state: 0, user: 0, assistant: 0, turnEnd: 0 }, 'no message read the layout in its own task');
      assert.ok(result.readsInFrames > 0, 'the follow read it in a frame');
      assert.equal(result.fromEnd, 0, 'the view followed the new turns to the end');
    });

    it('reaches the very end of an answer whose last runs take their real height after its last render (a long paragraph in a narrow view)', async () => {
      page = await chatAnswering();
      const result = await page.evaluate(async () => {
        const scroller = document.querySelector('.aq-transcript') as HTMLElement;
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        // About 200 KiB of one paragraph in this 420 px view: its runs (blocks of a few KiB each) are laid out as they come.
        const words = Array.from({ length: 30000 }, (_, i) => `word${i % 89}`).join(' ');
        window.postMessage({ type: 'append', turnId: 'a1', text: words }, '*');
        window.postMessage({ type: 'turnEnd', turnId: 'a1', status: 'done' }, '*');
        for (let i = 0; i < 60; i++) await frame();
        return { fromEnd: Math.round(scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight), done: document.querySelector('[data-turn-id="a1"][data-role="assistant"]')?.getAttribute('aria-busy') === 'false' };
      });
      // Following only when the DOM changes left the view 3,288 px short of the end: the content's size is followed too.
      assert.deepEqual(result, { fromEnd: 0, done: true });
    });

    it('follows text that comes at typing pace in the frame it is shown, and text that floods in (screens a frame) at most every 100 ms, to its very end', async () => {
      page = await chatAnswering();
      const result = await page.evaluate(async () => {
        const scroller = document.querySelector('.aq-transcript') as HTMLElement;
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        const fromEnd = (): number => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
        const append = (text: string): void => window.postMessage({ type: 'append', turnId: 'a1', text }, '*');
        // Typing pace: a short paragraph a frame; after two frames each is in view.
        const typing: number[] = [];
        for (let i = 0; i < 80; i++) {
          append(`Line ${i} of the answer, a few words at a time.\n\n`);
          await frame();
          await frame();
          if (scroller.scrollHeight > 2 * scroller.clientHeight) typing.push(Math.round(fromEnd()));
        }
        // A flood: about 5 KiB a frame (several screens, little enough to render in the frame) for 60 frames. Every follow (a move of the view to the end) is counted.
        let follows = 0;
        scroller.addEventListener('scroll', () => void (fromEnd() < 2 && follows++));
        const started = performance.now();
        for (let i = 0; i < 60; i++) {
          append(`Flood ${i}: ${'many words of a long answer that streams very fast.\n\n'.repeat(100)}`);
          await frame();
        }
        window.postMessage({ type: 'turnEnd', turnId: 'a1', status: 'done' }, '*');
        const floodMs = performance.now() - started;
        // Its end is followed within a few frames of the last render.
        const deadline = performance.now() + 2000;
        while (!(document.querySelector('[data-turn-id="a1"][data-role="assistant"]')?.getAttribute('aria-busy') === 'false' && fromEnd() < 2) && performance.now() < deadline) await frame();
        const done = document.querySelector('[data-turn-id="a1"][data-role="assistant"]')?.getAttribute('aria-busy') === 'false';
        return { typing, follows, floodMs, done, endFromEnd: Math.round(fromEnd()), lastShown: scroller.textContent?.includes('Flood 59') === true };
      });
      const summary = JSON.stringify(result);
      assert.ok(result.typing.length >= 20, `the typed answer grew past two screens: ${summary}`);
      assert.ok(result.typing.every((distance) => distance < 2), `each typed line was followed at once: ${summary}`);
      assert.ok(result.follows >= 2, `the flood was followed: ${summary}`);
      // Three frames to tell a flood, one follow every 100 ms, the end's: 61 follows (one a frame) before.
      // On a busy machine a frame can render less than a screen, which ends the flood: telling it again costs three more.
      assert.ok(result.follows <= Math.ceil(result.floodMs / 100) + 7, `the flood was followed at most every 100 ms: ${summary}`);
      assert.ok(result.done && result.lastShown && result.endFromEnd < 2, `the view ends at the answer's end: ${summary}`);
    });
  });

  describe('panel', () => {
    it('shows the title, HTTP status, bytes, the collapsed question and the streamed answer; Stop, Copy, Open as Markdown', async () => {
      page = await open('panel');
      await send(page, { type: 'state', state: state('panel', [turn('q1', 'user', 'Explain this file\nwith a second line'), turn('a1', 'assistant', '')]) });
      await page.locator('[data-role="title"]').waitFor();
      assert.equal(await page.locator('[data-role="title"]').textContent(), 'Docs Bot: explain app.ts');
      assert.equal(await page.locator('details.aq-question').getAttribute('open'), null, 'the question starts collapsed');
      assert.match((await page.locator('details.aq-question summary').textContent()) ?? '', /Explain this file$/);
      const stop = page.getByRole('button', { name: 'Stop' });
      await stop.waitFor();
      await send(page, { type: 'status', turnId: 'a1', httpStatus: 200 });
      await send(page, { type: 'append', turnId: 'a1', text: '# Überblick\n\nThe file ' });
      await send(page, { type: 'append', turnId: 'a1', text: 'does *things* 🚀.' });
      await page.waitForFunction(() => document.querySelector('.aq-answer')?.textContent?.includes('things') === true);
      assert.equal(await page.locator('.aq-panel-header [data-role="http-status"]').textContent(), 'HTTP 200');
      assert.equal(await page.locator('[data-role="bytes"]').textContent(), `${Buffer.byteLength('# Überblick\n\nThe file does *things* 🚀.')} B`);
      assert.equal(await page.locator('.aq-answer h1').textContent(), 'Überblick');
      await stop.click();
      assert.deepEqual(await waitForMessage(page, 'stop'), { type: 'stop' });
      await send(page, { type: 'turnEnd', turnId: 'a1', status: 'done' });
      await stop.waitFor({ state: 'hidden' });
      assert.equal(await page.locator('[data-role="announcer"]').textContent(), 'Answer complete');
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      assert.deepEqual(await waitForMessage(page, 'copyAnswer'), { type: 'copyAnswer', turnId: 'a1' });
      await page.getByRole('button', { name: 'Open as Markdown' }).click();
      await waitForMessage(page, 'exportMarkdown');
    });

    it('an answer replaced by a new state while it still renders stops: nothing more is rendered into the answer that is gone', async () => {
      page = await open('panel');
      await send(page, { type: 'state', state: state('panel', [turn('q1', 'user', 'First?'), turn('a1', 'assistant', '')]) });
      // Far more than a frame renders: the answer renders over many frames.
      const text = Array.from({ length: 3000 }, (_, i) => `## Part ${i + 1}\n\nText with **bold** and \`code\` ${i}, and a longer sentence to fill the line.\n\n\`\`\`ts\nconst v${i} = ${i};\n\`\`\`\n`).join('\n');
      const result = await page.evaluate(async (text) => {
        const frame = (): Promise<unknown> => new Promise((resolve) => requestAnimationFrame(resolve));
        window.postMessage({ type: 'append', turnId: 'a1', text }, '*');
        const old = document.querySelector('[data-turn-id="a1"] .aq-answer') as HTMLElement;
        for (let i = 0; i < 100 && old.querySelector('h2') === null; i++) await frame();
        let changes = 0;
        const observer = new MutationObserver((records) => (changes += records.length));
        observer.observe(old, { subtree: true, childList: true, characterData: true, attributes: true });
        const before = old.querySelectorAll('h2').length;
        // A new question replaces the panel's answer (the panel shows one exchange).
        window.postMessage({ type: 'state', state: { surface: 'panel', title: 'Answer', applications: [], currentApplicationId: undefined, attachments: [], turns: [{ id: 'q2', role: 'user', applicationId: 'demo', text: 'Second?', status: 'done', startedAt: 0 }, { id: 'a2', role: 'assistant', applicationId: 'demo', text: 'The second answer.', status: 'done', startedAt: 0 }] } }, '*');
        await new Promise((resolve) => setTimeout(resolve, 0));
        const replacedAt = changes;
        for (let i = 0; i < 30; i++) await frame();
        observer.disconnect();
        return { before, renderedBefore: before > 0, connected: old.isConnected, changesAfter: changes - replacedAt, newAnswer: document.querySelector('[data-turn-id="a2"]')?.textContent ?? '' };
      }, text);
      const summary = JSON.stringify(result);
      assert.ok(result.renderedBefore && !result.connected, `the first answer had begun to render and is gone: ${summary}`);
      assert.ok(result.newAnswer.includes('The second answer.'), summary);
      assert.equal(result.changesAfter, 0, `nothing is rendered into the answer that is gone: ${summary}`);
    });

    it('while an answer streams, the header writes only what changed: its status once, the size as it grows', async () => {
      page = await open('panel');
      await send(page, { type: 'state', state: state('panel', [turn('q1', 'user', 'Explain'), turn('a1', 'assistant', '')]) });
      await page.getByRole('button', { name: 'Stop' }).waitFor();
      await send(page, { type: 'status', turnId: 'a1', httpStatus: 200 });
      await page.locator('.aq-panel-header [data-role="http-status"]', { hasText: 'HTTP 200' }).waitFor();
      // Every change the page makes to the body's status and the header from here on.
      await page.evaluate(() => {
        const seen = { status: 0, header: 0, bytes: 0 };
        (window as unknown as { __seen: typeof seen }).__seen = seen;
        new MutationObserver((records) => (seen.status += records.length)).observe(document.body, { attributes: true, attributeFilter: ['data-status'] });
        const bytes = document.querySelector('[data-role="bytes"]');
        new MutationObserver((records) => {
          for (const record of records) {
            if (bytes?.contains(record.target) === true) seen.bytes++;
            else seen.header++;
          }
        }).observe(document.querySelector('.aq-panel-header') as Node, { subtree: true, childList: true, characterData: true, attributes: true });
      });
      // Twenty renders, one per frame (each render refreshes the header); the size grows with each append,
      // and its text changes when the formatted size does (the old code also wrote it again at every render).
      for (let i = 0; i < 20; i++) {
        await send(page, { type: 'append', turnId: 'a1', text: i % 5 === 0 ? `Part ${i}: ${'word '.repeat(60)}\n\n` : 'x' });
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      }
      await page.waitForFunction(() => document.querySelector('.aq-answer')?.textContent?.includes('Part 15') === true);
      const streaming = await page.evaluate(() => ({ ...(window as unknown as { __seen: { status: number; header: number; bytes: number } }).__seen }));
      assert.equal(streaming.status, 0, 'the body\'s status stays "streaming" without being written again');
      assert.equal(streaming.header, 0, 'the HTTP status and Stop are not written again');
      assert.ok(streaming.bytes >= 1 && streaming.bytes <= 20, `the size is written when it changes (${streaming.bytes} writes for 20 appends)`);
      await send(page, { type: 'turnEnd', turnId: 'a1', status: 'done' });
      await page.waitForFunction(() => document.body.dataset.status === 'done');
      const ended = await page.evaluate(() => (window as unknown as { __seen: { status: number } }).__seen.status);
      assert.equal(ended, 1, 'the status is written once, when the answer ends');
      assert.equal(await page.getByRole('button', { name: 'Stop' }).isHidden(), true);
    });

    it('a 403 in the panel shows the status and Set API Key…', async () => {
      page = await open('panel');
      await send(page, { type: 'state', state: state('panel', [turn('q1', 'user', 'q'), turn('a1', 'assistant', '')]) });
      await send(page, { type: 'turnEnd', turnId: 'a1', status: 'error', httpStatus: 403, message: 'Forbidden for this key.', remedies: ['setApiKey'] });
      const error = page.locator('[data-role="error"]');
      await error.waitFor();
      assert.match((await error.textContent()) ?? '', /HTTP 403.*Forbidden for this key\./s);
      assert.equal(await error.getByRole('button', { name: 'Retry' }).count(), 0);
      await error.getByRole('button', { name: 'Set API Key…' }).click();
      await waitForMessage(page, 'setApiKey');
      assert.equal(await page.locator('.aq-panel-header [data-role="http-status"]').textContent(), 'HTTP 403');
      assert.equal(await page.locator('[data-role="announcer"]').textContent(), 'Request failed: HTTP 403');
    });
  });
});
