// The render worker (src/webview/worker/render.ts, started by render/worker.ts) in
// headless Chromium, under the webview's CSP: streamed code is cut and highlighted in the worker
// and only placed by the page, and the answer ends exactly as a one-shot render of its text, as it
// does when the page highlights on its own (no worker named, a worker that cannot load, one that
// fails in the middle of a block). Hostile code stays text through the worker.
import * as assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { HostToPanel, SurfaceState, Turn } from '../../src/shared/protocol';
import { bundle, launchBrowser, LoopbackServer, randomPieces, routeWebviewAssets } from '../support/browser';
import { webviewPage } from '../support/browser';
import { longShapes } from '../support/shapes';
import { HeldText } from '../../src/shared/answer/heldText';

/** Code blocks of several languages, one past the highlighting limit (128 KiB), and code that looks like markup. */
function codeAnswer(): string {
  const hostile = ['<script>window.__pwned = true</script>', '</span></code><img src=x onerror="window.__pwned = true">', '<span class="x" onclick="window.__pwned = true">', '&lt;b&gt; &amp; &#x27; "quoted"'];
  const python = Array.from({ length: 400 }, (_, i) => `def step_${i}(value):\n    """Docstring ${i} with 'quotes'."""\n    return value * ${i}  # comment`).join('\n');
  const json = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: i, html: hostile[i % hostile.length] })), null, 2);
  return [
    '# Code',
    '',
    'A short block first:',
    '',
    '```ts',
    ...hostile.map((line) => `const s = ${JSON.stringify(line)};`),
    'const template = `multi',
    'line ${hostile}`;',
    '```',
    '',
    '```python',
    python,
    '```',
    '',
    '```json',
    json,
    '```',
    '',
    longShapes(160 * 1024, 5).fence,
    '',
    '```xml',
    ...hostile,
    '```',
    '',
    'The end.',
    '',
  ].join('\n');
}

/**
 * Long paragraphs after an introduction, which stream through the worker's text lanes: one line
 * of about 200 KiB with hostile markup and links near its end, one of wrapped lines, one of
 * wrapped lines with a backtick left open until its end; the last two use a reference defined at
 * the answer's end, and cite sources as `[n]`, which nothing defines.
 */
function paragraphAnswer(): string {
  const hostile = [
    '<script>window.__pwned = true</script>',
    '<img src=x onerror="window.__pwned = true">',
    '[click](javascript:window.__pwned=true)',
    '![x](javascript:window.__pwned=true)',
    '<a href="command:workbench.action.quit">quit</a>',
    '[quit](command:workbench.action.quit)',
    '*open',
  ];
  const words = longShapes(200 * 1024, 11).paragraph.split('\n\n')[0].split(' ');
  // In the last fifth: a link the sanitizer refuses stays text with a `[`, which keeps the rest of the paragraph in one chunk.
  const mixed = words.map((word, i) => (i % 150 === 75 && i > words.length * 0.8 ? `${word} ${hostile[Math.floor(i / 150) % hostile.length]}` : word)).join(' ');
  const wrapped = (bytes: number, seed: number): string =>
    longShapes(bytes, seed)
      .wrapped.trim()
      .split('\n')
      .map((line, i) => (i % 40 === 20 ? `${line} see [the third][ref 3].` : line))
      .join('\n');
  // The definition comes after the paragraphs that use it, and the `[n]` citations are never defined.
  return ['Intro.', '', mixed, '', wrapped(60 * 1024, 12), '', `Start \` stray ${wrapped(40 * 1024, 13)} end\`.`, '', 'The end.', '', '[REF 3]: https://example.com/three', ''].join('\n');
}

/**
 * Many short blocks (headings, paragraphs, code, lists, quotes, tables), hostile markup and
 * links among them, references used before and after their definitions, and (`long`) a long code
 * block and a long paragraph in the middle (the page streams those itself).
 */
function blocksAnswer(long = true): string {
  const hostile = [
    '<script>window.__pwned = true</script>',
    '<img src=x onerror="window.__pwned = true">',
    '[click](javascript:window.__pwned=true) and <a href="command:workbench.action.quit">quit</a>',
    '![x](javascript:window.__pwned=true) [quit](command:workbench.action.quit)',
    '<details open ontoggle="window.__pwned = true">x</details>',
  ];
  const parts = longShapes(240 * 1024, 15).blocks.trimEnd().split('\n\n');
  const shapes = longShapes(24 * 1024, 16);
  const blocks = parts.flatMap((part, i) => [
    part,
    ...(i % 50 === 25 ? [hostile[Math.floor(i / 50) % hostile.length]] : []),
    ...(i % 40 === 10 ? [`See [the docs][ref] and [the middle][mid].`] : []),
    ...(i === Math.floor(parts.length / 2) ? ['[mid]: https://example.com/mid', ...(long ? [shapes.fence.trimEnd(), shapes.paragraph.trimEnd()] : [])] : []),
  ]);
  return [...blocks, '[ref]: https://example.com/docs', ''].join('\n\n');
}

/** A panel state with one streaming answer. */
function panelState(): SurfaceState {
  const startedAt = Date.now();
  const turns: Turn[] = [
    { id: 'q', role: 'user', applicationId: 'echo', text: 'Show me code', status: 'done', startedAt },
    { id: 'a', role: 'assistant', applicationId: 'echo', text: '', status: 'streaming', startedAt },
  ];
  return { surface: 'panel', title: 'Echo: code', applications: [{ id: 'echo', label: 'Echo', hasKey: true }], currentApplicationId: 'echo', turns, attachments: [] };
}

describe('render worker in Chromium', function () {
  this.timeout(180_000);
  let server: LoopbackServer;
  let browser: Browser;
  let page: Page | undefined;
  let pages = 0;

  before(async () => {
    server = await LoopbackServer.start();
    await routeWebviewAssets(server, { renderer: true });
    server.route('/render-worker.js', 'text/javascript', await bundle('src/webview/worker/render.ts'));
    // The real worker, failing at the 20th text it is given (in the middle of a long paragraph).
    const real = await bundle('src/webview/worker/render.ts');
    server.route('/late-crashing-worker.js', 'text/javascript', `${real}\n;(() => { const take = onmessage; let adds = 0; onmessage = (event) => { if (event.data.type === 'add' && ++adds === 20) throw new Error('the worker crashed'); take(event); }; })();`);
    // The real worker, its answers reaching the page 0-90 ms late (in order, seeded): the page often renders text itself
    // while the worker has cut further, and the worker must go on from where the page is.
    server.route('/lagging-worker.js', 'text/javascript', `${real}\n;(() => { const send = self.postMessage.bind(self); const queue = []; let seed = 7; const delay = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) % 91); const next = () => { send(queue.shift()); if (queue.length > 0) setTimeout(next, delay()); }; self.postMessage = (message) => { queue.push(message); if (queue.length === 1) setTimeout(next, delay()); }; })();`);
    // The real worker, which stops sending code pieces after its third message of them (hangs, but stays up).
    server.route('/hanging-worker.js', 'text/javascript', `${real}\n;(() => { const send = self.postMessage.bind(self); let sent = 0; self.postMessage = (message) => { if (message.type === 'pieces' && ++sent > 3) return; send(message); }; })();`);
    // Loads, says it is ready, then fails at the first code it is given.
    server.route('/crashing-worker.js', 'text/javascript', `postMessage({ type: 'ready' }); onmessage = (event) => { if (event.data.type === 'add') throw new Error('the worker crashed'); };`);
    server.route('/broken-worker.js', 'text/javascript', `throw new Error('the worker does not load');`);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  afterEach(async () => {
    const pwned = await page?.evaluate(() => window.__pwned);
    await page?.close();
    page = undefined;
    assert.equal(pwned ?? false, false, 'nothing from an answer ran');
  });

  /** An answer panel page under the webview's CSP, naming `worker` as its worker's script (or none). */
  async function open(worker: string | undefined, before?: (page: Page) => Promise<void>): Promise<Page> {
    const pathname = `/panel-${++pages}`;
    server.route(pathname, 'text/html', webviewPage({ origin: server.origin, surface: 'panel', worker, scripts: ['/render.js', '/webview.js'], styles: ['/webview.css'] }));
    const created = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    await before?.(created);
    await created.addInitScript(`window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`);
    await created.goto(`${server.origin}${pathname}`);
    await created.waitForFunction(() => window.__messages.length > 0);
    return created;
  }

  /**
   * Streams `text` into the panel's answer in seeded pieces, a few per frame (`slow`: smaller
   * pieces, one per frame), ends it, and waits until it is all rendered.
   */
  async function stream(target: Page, text: string, seed: number, slow = false): Promise<void> {
    const messages: HostToPanel[] = [{ type: 'state', state: panelState() }];
    let at = 0;
    for (const size of slow ? randomPieces(seed, text.length, 200, 6_000, 0.05) : randomPieces(seed, text.length, 300, 20_000, 0.05)) {
      messages.push({ type: 'append', turnId: 'a', text: text.slice(at, at + size) });
      at += size;
    }
    messages.push({ type: 'turnEnd', turnId: 'a', status: 'done', httpStatus: 200 });
    await target.evaluate(
      async ({ all, every }) => {
        for (let i = 0; i < all.length; i++) {
          window.postMessage(all[i], '*');
          if (i % every === every - 1) await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        }
      },
      { all: messages, every: slow ? 1 : 4 },
    );
    await target.waitForFunction(() => document.querySelector('[data-turn-id="a"][data-role="assistant"]')?.getAttribute('aria-busy') === 'false', undefined, { timeout: 60_000 });
  }

  /** The answer against a one-shot render of its text: where they first differ, or undefined. */
  function differsFromOneShot(target: Page, text: string): Promise<string | undefined> {
    return target.evaluate((text) => {
      const got = document.querySelector('[data-turn-id="a"] .aq-answer')?.innerHTML ?? '(no answer)';
      const expected = window.AQ.renderMarkdownOnce(text);
      if (got === expected) return undefined;
      let i = 0;
      while (got[i] === expected[i]) i++;
      return `at ${i}: got ${JSON.stringify(got.slice(Math.max(0, i - 80), i + 80))}, expected ${JSON.stringify(expected.slice(Math.max(0, i - 80), i + 80))}`;
    }, text);
  }

  /** Elements in the answer's code that are not highlight spans or chunks (markup that came alive). */
  function foreignInCode(target: Page): Promise<string[]> {
    return target.evaluate(() =>
      [...document.querySelectorAll('[data-turn-id="a"] .aq-answer pre code *')]
        .filter((element) => element.tagName !== 'SPAN' || [...element.attributes].some((attribute) => attribute.name !== 'class'))
        .map((element) => element.outerHTML.slice(0, 80)),
    );
  }

  it('the worker starts under the webview CSP, highlights streamed code, and the answer ends as a one-shot render; hostile code stays text', async () => {
    page = await open('/render-worker.js');
    await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
    const text = codeAnswer();
    await stream(page, text, 41);
    assert.equal(await differsFromOneShot(page, text), undefined);
    assert.deepEqual(await foreignInCode(page), []);
    assert.ok((await page.locator('.aq-answer code .hljs-keyword').count()) > 100, 'the code is highlighted');
    assert.equal(await page.evaluate(() => document.body.dataset.rendering), 'worker', 'the worker stayed up');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), [], 'no CSP violations');
  });

  it('with the worker up, a renderer with synchronous frames highlights on the page at once; one with frames of its own may wait for the worker', async () => {
    page = await open(undefined);
    // The renderer module of the test page (window.AQ) starts its own worker; the code given to workers is counted.
    await page.evaluate(() => {
      const post = Object.getOwnPropertyDescriptor(Worker.prototype, 'postMessage')?.value as (this: Worker, ...args: unknown[]) => void;
      const counts = { added: 0 };
      (window as unknown as { __toWorker: typeof counts }).__toWorker = counts;
      Object.defineProperty(Worker.prototype, 'postMessage', {
        configurable: true,
        writable: true,
        value: function (this: Worker, message: unknown, ...rest: unknown[]) {
          if ((message as { type?: string } | null)?.type === 'add') counts.added++;
          post.call(this, message, ...rest);
        },
      });
      window.AQ.startWorker?.('/render-worker.js');
    });
    await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
    const text = codeAnswer();
    const result = await page.evaluate(async (text) => {
      const once = window.AQ.renderMarkdownOnce(text);
      const feed = (renderer: { append(text: string): void; finish(): void }): void => {
        for (let at = 0; at < text.length; at += 3000) renderer.append(text.slice(at, at + 3000));
        renderer.finish();
      };
      const sync = document.createElement('div');
      const now = new window.AQ.IncrementalRenderer(sync, { scheduleFrame: (callback) => callback() });
      feed(now);
      const toWorker = (window as unknown as { __toWorker: { added: number } }).__toWorker;
      const syncDone = now.done;
      const addedBySync = toWorker.added;
      let pending: Array<() => void> = [];
      const framed = document.createElement('div');
      const later = new window.AQ.IncrementalRenderer(framed, { scheduleFrame: (callback) => void pending.push(callback), offThread: true });
      feed(later);
      for (let frames = 0; !later.done && frames < 5000; frames++) {
        const callbacks = pending;
        pending = [];
        for (const callback of callbacks) callback();
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return { syncDone, syncEqual: sync.innerHTML === once, framedDone: later.done, framedEqual: framed.innerHTML === once, addedBySync, addedByFramed: toWorker.added - addedBySync };
    }, text);
    assert.equal(result.syncDone, true, 'the synchronous renderer is done at once');
    assert.equal(result.syncEqual, true);
    assert.equal(result.framedDone, true);
    assert.equal(result.framedEqual, true);
    assert.equal(result.addedBySync, 0, 'the synchronous renderer gave the worker no code');
    assert.ok(result.addedByFramed > 0, 'the framed renderer gave the worker its code');
  });

  /** What the answer holds that came alive from its text: elements that run or open something. */
  function aliveInAnswer(target: Page): Promise<string[]> {
    return target.evaluate(() =>
      [...document.querySelectorAll('[data-turn-id="a"] .aq-answer *')]
        .filter((element) => ['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED'].includes(element.tagName) || [...element.attributes].some((attribute) => attribute.name.startsWith('on') || (['href', 'src'].includes(attribute.name) && !/^(?:https?:|mailto:|data:image\/)/i.test(attribute.value))))
        .map((element) => element.outerHTML.slice(0, 80)),
    );
  }

  /**
   * Counts the page's messages to its worker by type, and the paragraph chunks (`cuts`) and runs
   * of blocks (`blockPieces`) the worker sent back, set before the page's script runs.
   */
  async function countToWorker(target: Page): Promise<void> {
    await target.addInitScript(() => {
      const counts: Record<string, number> = { cuts: 0 };
      (window as unknown as { __toWorker: Record<string, number> }).__toWorker = counts;
      const post = Object.getOwnPropertyDescriptor(Worker.prototype, 'postMessage')?.value as (this: Worker, ...args: unknown[]) => void;
      Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
        const type = (message as { type?: string } | null)?.type ?? '?';
        counts[type] = (counts[type] ?? 0) + 1;
        post.call(this, message, ...rest);
      } as typeof Worker.prototype.postMessage;
      const handler = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
      Object.defineProperty(Worker.prototype, 'onmessage', {
        configurable: true,
        get(this: Worker) {
          return handler?.get?.call(this) as unknown;
        },
        set(this: Worker, listener: ((event: MessageEvent) => void) | null) {
          handler?.set?.call(this, (event: MessageEvent<{ type?: string; cuts?: unknown[]; pieces?: unknown[] }>) => {
            if (event.data.type === 'text') counts.cuts += event.data.cuts?.length ?? 0;
            if (event.data.type === 'blocks') counts.blockPieces = (counts.blockPieces ?? 0) + (event.data.pieces?.length ?? 0);
            listener?.(event);
          });
        },
      });
    });
  }

  it('long paragraphs are cut and rendered in the worker, and the answer ends as a one-shot render; hostile text stays inert', async () => {
    page = await open('/render-worker.js', countToWorker);
    await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
    const text = paragraphAnswer();
    await stream(page, text, 51, true);
    assert.equal(await differsFromOneShot(page, text), undefined);
    assert.deepEqual(await aliveInAnswer(page), []);
    const toWorker = await page.evaluate(() => (window as unknown as { __toWorker: Record<string, number> }).__toWorker);
    // A paragraph the renderer finds whole when it gets to it is rendered at once, not streamed.
    assert.ok((toWorker.openText ?? 0) >= 2, `the long paragraphs went to the worker (${toWorker.openText ?? 0} of 3)`);
    assert.ok((toWorker.add ?? 0) > 20, `the paragraphs' text went to the worker as it came (${toWorker.add ?? 0} times)`);
    // The first paragraph alone has about 20 chunks before its hostile part.
    assert.ok(toWorker.cuts >= 15, `the worker cut and rendered the chunks (${toWorker.cuts})`);
    assert.ok((await page.locator('.aq-answer p > .aq-text-chunk').count()) > 20, 'the paragraphs are in chunks');
    assert.ok((await page.locator('.aq-answer p').filter({ hasText: 'window.__pwned' }).count()) > 0, 'the hostile text is there, as text');
    assert.ok((await page.locator('.aq-answer a[href="https://example.com/three"]').count()) > 10, 'the paragraphs\' references are links');
    assert.equal(await page.evaluate(() => document.body.dataset.rendering), 'worker', 'the worker stayed up');
  });

  it('an answer of many blocks is cut and rendered in the worker, and ends as a one-shot render; hostile text stays inert', async () => {
    page = await open('/render-worker.js', countToWorker);
    await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
    const text = blocksAnswer();
    await stream(page, text, 54, true);
    assert.equal(await differsFromOneShot(page, text), undefined);
    assert.deepEqual(await aliveInAnswer(page), []);
    const counts = await page.evaluate(() => (window as unknown as { __toWorker: Record<string, number> }).__toWorker);
    assert.ok((counts.openBlocks ?? 0) >= 1, 'the answer has a blocks lane');
    // About 30 runs of whole blocks (8 KiB each) before and after the long blocks the page streams.
    assert.ok((counts.blockPieces ?? 0) >= 20, `the worker cut and rendered the blocks (${counts.blockPieces ?? 0} runs)`);
    // The page took the worker's runs: it said where to go on only after the two blocks it streamed (about 600 times when it rendered the text itself).
    assert.ok((counts.skip ?? 0) <= 20, `the page placed the worker's runs instead of rendering the text itself (${counts.skip ?? 0} times it went ahead of the worker)`);
    assert.ok((counts.pause ?? 0) >= 2, `the page streamed the long code block and paragraph itself (${counts.pause ?? 0} pauses)`);
    assert.ok((await page.locator('.aq-answer a[href="https://example.com/docs"]').count()) > 10, 'uses before the definition are links');
    assert.ok((await page.locator('.aq-answer a[href="https://example.com/mid"]').count()) > 10, 'uses before and after a definition in the middle are links');
  });

  it('an answer the extension host held back in part: a long code block in a held group is highlighted in the worker when the reader comes to it, and the answer ends as a one-shot render; hostile text stays inert', async () => {
    page = await open('/render-worker.js', countToWorker);
    await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
    // A long code block in what the host holds back (hostile markup in it stays code).
    const line = 'export function step(value: number): string { return `<img src=x onerror="window.__pwned = true">${value}`; }\n';
    const fence = '```ts\n' + line.repeat(Math.ceil((40 * 1024) / line.length)) + '```';
    const text = `${blocksAnswer(false)}\n\n${fence}\n\n${longShapes(320 * 1024, 17).blocks}`;
    assert.ok(text.indexOf(fence) > 230_000 && text.indexOf(fence) + fence.length < 400_000 - 16 * 1024, 'the code block is in a batch the host holds');
    // What the host passes over when the text piles up three times: text, held groups, text, ...
    const held = new HeldText();
    const cuts = [30_000, 200_000, 230_000, 400_000, 430_000, text.length];
    const pieces = cuts.flatMap((end, i) => held.pass(text.slice(i === 0 ? 0 : cuts[i - 1], end)));
    const holds = pieces.filter((piece) => 'groups' in piece).length;
    assert.ok(holds >= 3 && held.heldCount > 20, `the host held groups ${holds} times (${held.heldCount} groups)`);
    const texts = Array.from({ length: held.heldCount }, (_, id) => held.text(id) ?? '');
    const messages: HostToPanel[] = [
      { type: 'state', state: panelState() },
      ...pieces.map((piece): HostToPanel => ('text' in piece ? { type: 'append', turnId: 'a', text: piece.text } : { type: 'held', turnId: 'a', groups: piece.groups })),
      { type: 'turnEnd', turnId: 'a', status: 'done', httpStatus: 200 },
    ];
    const waiting = await page.evaluate(
      async ({ messages, texts }) => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        // The host answers the view's asks for held text a little later, as its messages would.
        let answered = 0;
        const host = setInterval(() => {
          for (; answered < window.__messages.length; answered++) {
            const message = window.__messages[answered] as { type: string; turnId?: string; ids?: number[] };
            if (message.type === 'wantHeld') message.ids?.forEach((id) => window.postMessage({ type: 'heldText', turnId: 'a', id, text: texts[id] }, '*'));
          }
        }, 5);
        for (const message of messages) {
          window.postMessage(message, '*');
          await frame();
        }
        const answer = (): Element | null => document.querySelector('[data-turn-id="a"][data-role="assistant"]');
        while (answer()?.getAttribute('aria-busy') !== 'false') await frame();
        const waitingGroups = (): Element[] => [...document.querySelectorAll('[data-turn-id="a"] .aq-answer > .aq-group[style]')];
        // A run of held groups stands in one element (data-groups: how many) until the view comes near it.
        const atEnd = waitingGroups().reduce((sum, group) => sum + Number((group as HTMLElement).dataset.groups ?? 1), 0);
        // The reader goes through the whole answer: every group that waits is shown.
        for (let i = 0; i < 2000 && waitingGroups().length > 0; i++) {
          waitingGroups()[0].scrollIntoView();
          await frame();
        }
        clearInterval(host);
        return { atEnd, left: waitingGroups().length };
      },
      { messages, texts },
    );
    assert.ok(waiting.atEnd > 10, `groups far from the view waited (${waiting.atEnd})`);
    assert.equal(waiting.left, 0, 'every group was shown');
    assert.equal(await differsFromOneShot(page, text), undefined);
    assert.deepEqual(await aliveInAnswer(page), []);
    const counts = await page.evaluate(() => (window as unknown as { __toWorker: Record<string, number> }).__toWorker);
    // The only long code block is in a held group: its code went to a code lane of the worker when it came into view.
    assert.ok((counts.open ?? 0) >= 1, `the held code block was highlighted in the worker (${counts.open ?? 0} code lanes)`);
    assert.deepEqual(await foreignInCode(page), []);
    const keywords = await page.evaluate(() => Math.max(...[...document.querySelectorAll('[data-turn-id="a"] .aq-answer pre code')].map((code) => code.querySelectorAll('.hljs-keyword').length)));
    assert.ok(keywords > 300, `the long code block is highlighted (${keywords} keywords)`);
    assert.ok((await page.locator('.aq-answer a[href="https://example.com/docs"]').count()) > 10, 'uses of a definition made at the end are links');
    assert.equal(await page.evaluate(() => document.body.dataset.rendering), 'worker', 'the worker stayed up');
  });

  it('a worker that lags: the page renders what it waited for too long itself, the worker goes on after it, and the answer ends as a one-shot render', async () => {
    page = await open('/lagging-worker.js', countToWorker);
    await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
    // No long code block: its highlighting would wait for the lagging worker, and the rest of the answer with it.
    const text = blocksAnswer(false);
    await stream(page, text, 55, true);
    assert.equal(await differsFromOneShot(page, text), undefined);
    assert.deepEqual(await aliveInAnswer(page), []);
    const counts = await page.evaluate(() => (window as unknown as { __toWorker: Record<string, number> }).__toWorker);
    assert.ok((counts.skip ?? 0) >= 3, `the page rendered text itself and the worker went on after it (${counts.skip ?? 0} times)`);
    assert.ok((counts.blockPieces ?? 0) >= 5, `the worker's runs of blocks still came (${counts.blockPieces ?? 0})`);
  });

  for (const [label, worker] of [['in the worker', '/render-worker.js'], ['on the page', undefined]] as const) {
    it(`a long paragraph that uses a reference defined after it, streamed ${label}: the answer ends as a one-shot render, the uses links`, async () => {
      page = await open(worker);
      const uses = longShapes(60 * 1024, 14)
        .paragraph.split('\n\n')[0]
        .split(' ')
        .map((word, i) => (i % 90 === 45 ? `${word} [the docs][ref]` : word))
        .join(' ');
      const text = `Intro.\n\n${uses}\n\n[ref]: https://example.com/docs\n`;
      await stream(page, text, 53, true);
      assert.equal(await differsFromOneShot(page, text), undefined);
      // A one-shot render cuts this paragraph in 3 chunks.
      const chunks = await page.locator('.aq-answer p > .aq-text-chunk').count();
      assert.ok(chunks >= 3, `the paragraph is in chunks (${chunks})`);
      assert.ok((await page.locator('.aq-answer a[href="https://example.com/docs"]').count()) > 50, 'the uses are links');
    });
  }

  it('a worker that fails in the middle of a long paragraph: the page renders the rest, to the same DOM', async () => {
    page = await open('/late-crashing-worker.js');
    await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
    const text = paragraphAnswer();
    await stream(page, text, 52, true);
    assert.equal(await page.evaluate(() => document.body.dataset.rendering), 'page', 'the page knows the worker is gone');
    assert.equal(await differsFromOneShot(page, text), undefined);
    assert.deepEqual(await aliveInAnswer(page), []);
  });

  it('without a worker named, the page highlights, to the same DOM', async () => {
    page = await open(undefined);
    const text = codeAnswer();
    await stream(page, text, 42);
    assert.equal(await page.evaluate(() => document.body.dataset.rendering), undefined);
    assert.equal(await differsFromOneShot(page, text), undefined);
  });

  for (const [label, script] of [
    ['is not found', '/no-such-worker.js'],
    ['fails to load', '/broken-worker.js'],
  ] as const) {
    it(`a worker that ${label}: the page highlights, to the same DOM`, async () => {
      page = await open(script);
      await page.waitForFunction(() => document.body.dataset.rendering === 'page');
      const text = codeAnswer();
      await stream(page, text, 43);
      assert.equal(await differsFromOneShot(page, text), undefined);
    });
  }

  for (const [label, script, after, seed] of [
    ['stops answering in the middle of a block: once the block has ended, the page highlights the rest', '/hanging-worker.js', 'worker', 46],
    ['fails in the middle of a block: the page highlights the rest', '/crashing-worker.js', 'page', 44],
  ] as const) {
    it(`a worker that ${label}, to the same DOM`, async () => {
      page = await open(script);
      await page.waitForFunction(() => document.body.dataset.rendering === 'worker');
      const text = codeAnswer();
      // The answer ends: the rest of it does not wait for the worker's code.
      await stream(page, text, seed);
      // A worker that stops answering is still up; one that fails is gone, and the page knows it.
      assert.equal(await page.evaluate(() => document.body.dataset.rendering), after);
      assert.equal(await differsFromOneShot(page, text), undefined);
      assert.deepEqual(await aliveInAnswer(page), []);
      assert.deepEqual(await foreignInCode(page), []);
    });
  }
});
