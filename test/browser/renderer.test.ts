import * as assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { hostileCorpus, hostileHtml, TRICKY } from './corpus';
import { bundle, launchBrowser, LoopbackServer, randomPieces, readAsset, webviewPage } from '../support/browser';

interface Mismatch {
  readonly at: number;
  readonly got: string;
  readonly expected: string;
}

/** Streams `text` in the given pieces with a synchronous frame; compares with one-shot after each piece. */
function streamAndCompare(page: Page, text: string, pieces: readonly number[], checkEveryStep: boolean): Promise<Mismatch[]> {
  return page.evaluate(
    ({ text, pieces, checkEveryStep }) => {
      const once = window.AQ.renderMarkdownOnce;
      const out = document.createElement('div');
      const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
      const bad: Mismatch[] = [];
      let at = 0;
      for (const size of pieces) {
        renderer.append(text.slice(at, at + size));
        at += size;
        if (checkEveryStep) {
          const expected = once(text.slice(0, at));
          if (out.innerHTML !== expected) {
            bad.push({ at, got: out.innerHTML, expected });
            break;
          }
        }
      }
      renderer.append(text.slice(at));
      renderer.finish();
      const expected = once(text);
      if (out.innerHTML !== expected) {
        bad.push({ at: text.length, got: out.innerHTML, expected });
      }
      return bad;
    },
    { text, pieces: [...pieces], checkEveryStep },
  );
}

describe('renderer in Chromium', function () {
  this.timeout(300_000);
  let server: LoopbackServer;
  let capture: LoopbackServer;
  let browser: Browser;
  let page: Page;
  let dialogs = 0;

  before(async () => {
    server = await LoopbackServer.start();
    capture = await LoopbackServer.start();
    capture.route('/control', 'image/gif', Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    server.route('/render.js', 'text/javascript', await bundle('src/webview/render/index.ts', { globalName: 'AQ' }));
    server.route('/webview.css', 'text/css', await readAsset('src/webview/webview.css'));
    const setup = `window.__api = acquireVsCodeApi(); window.AQ.attachContentHandlers(document.getElementById('root'), (m) => window.__api.postMessage(m));`;
    for (const [pathname, csp] of [['/', true], ['/nocsp', false]] as const) {
      server.route(pathname, 'text/html', webviewPage({ origin: server.origin, scripts: ['/render.js'], styles: ['/webview.css'], csp, inline: setup }));
    }
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    page = await browser.newPage();
    dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await page.goto(`${server.origin}/`);
  });

  afterEach(async () => {
    await page.close();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await capture?.close();
  });

  describe('incremental rendering equals a one-shot render', () => {
    for (const [name, text] of Object.entries(TRICKY)) {
      it(`${name}: streamed one UTF-16 code unit at a time, equal after every update`, async () => {
        const mismatches = await streamAndCompare(page, text, Array.from({ length: text.length }, () => 1), true);
        assert.deepEqual(mismatches, []);
      });

      it(`${name}: split in two at every position, equal after both pieces`, async () => {
        const mismatches = await page.evaluate((text) => {
          const once = window.AQ.renderMarkdownOnce;
          const bad: Mismatch[] = [];
          const expectedFull = once(text);
          for (let split = 0; split <= text.length && bad.length === 0; split++) {
            const out = document.createElement('div');
            const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
            renderer.append(text.slice(0, split));
            const expectedPrefix = once(text.slice(0, split));
            if (out.innerHTML !== expectedPrefix) {
              bad.push({ at: split, got: out.innerHTML, expected: expectedPrefix });
            }
            renderer.append(text.slice(split));
            renderer.finish();
            if (out.innerHTML !== expectedFull) {
              bad.push({ at: split, got: out.innerHTML, expected: expectedFull });
            }
          }
          return bad;
        }, text);
        assert.deepEqual(mismatches, []);
      });
    }

    for (const seed of [1, 7, 42, 2024]) {
      it(`the whole corpus in random chunks (seed ${seed}), equal after every update`, async () => {
        const text = Object.values(TRICKY).join('\n');
        const pieces = randomPieces(seed, text.length, 24, 400, 0.2);
        const mismatches = await streamAndCompare(page, text, pieces, true);
        assert.deepEqual(mismatches, []);
      });
    }

    it('coalesces appends: several chunks in one frame give one render, equal to one-shot', async () => {
      const result = await page.evaluate(async (text) => {
        const out = document.createElement('div');
        let renders = 0;
        const renderer = new window.AQ.IncrementalRenderer(out, { onRender: () => renders++ });
        for (let i = 0; i < text.length; i += 7) {
          renderer.append(text.slice(i, i + 7));
        }
        const before = out.innerHTML;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        return { before, renders, html: out.innerHTML, expected: window.AQ.renderMarkdownOnce(text) };
      }, TRICKY.lists);
      assert.equal(result.before, '', 'nothing is rendered synchronously by append');
      assert.equal(result.renders, 1);
      assert.equal(result.html, result.expected);
    });

    it('keeps finished blocks as the same DOM nodes while later text streams in', async () => {
      const result = await page.evaluate(() => {
        const out = document.createElement('div');
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
        renderer.append('# Title\n\nFirst paragraph with a [link](https://example.com).\n\n```js\nlet x = 1;\n```\n\nNext line\n\nStart');
        const heading = out.querySelector('h1');
        const code = out.querySelector('.aq-code');
        for (let i = 0; i < 200; i++) {
          renderer.append(` word${i}${i % 20 === 19 ? '\n\n' : ''}`);
        }
        renderer.finish();
        return {
          sameHeading: heading !== null && out.querySelector('h1') === heading,
          sameCode: code !== null && out.querySelector('.aq-code') === code,
          paragraphs: out.querySelectorAll('p').length,
        };
      });
      assert.ok(result.sameHeading, 'the heading node survived');
      assert.ok(result.sameCode, 'the code block node survived');
      assert.ok(result.paragraphs > 5);
    });

    it('a reference definition arriving later turns earlier frozen text into links', async () => {
      const html = await page.evaluate(() => {
        const out = document.createElement('div');
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
        renderer.append('See [elsewhere] too.\n\nRead [the guide].\n');
        renderer.append('\nAnd more.\n\n');
        const before = out.querySelectorAll('a').length;
        const unrelated = out.querySelector('p');
        renderer.append('[the guide]: https://example.com/guide\n');
        renderer.finish();
        return { before, href: out.querySelector('a')?.getAttribute('href') ?? null, unrelatedKept: out.querySelector('p') === unrelated };
      });
      assert.equal(html.before, 0);
      assert.equal(html.href, 'https://example.com/guide');
      assert.ok(html.unrelatedKept, 'a frozen block that does not use the label is not rendered again');
    });

    it('reset(text) replaces the content and streaming continues from it', async () => {
      const result = await page.evaluate(() => {
        const out = document.createElement('div');
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
        renderer.append('old **content**\n\n');
        renderer.reset('# New\n\nstart');
        renderer.append(' and more');
        renderer.finish();
        return { html: out.innerHTML, expected: window.AQ.renderMarkdownOnce('# New\n\nstart and more') };
      });
      assert.equal(result.html, result.expected);
    });
  });

  describe('code blocks', () => {
    it('highlights known languages and carries a toolbar with labelled buttons', async () => {
      const info = await page.evaluate(() => {
        const out = document.createElement('div');
        out.innerHTML = window.AQ.renderMarkdownOnce('```ts\nconst x: number = 1; // note\n```\n\n```unknown-lang\n<b>raw</b>\n```');
        const blocks = [...out.querySelectorAll('.aq-code')];
        return blocks.map((block) => ({
          lang: block.getAttribute('data-lang'),
          tokens: block.querySelectorAll('code span[class^="hljs-"]').length,
          text: block.querySelector('code')?.textContent,
          buttons: [...block.querySelectorAll('.aq-code-actions button')].map((b) => [b.getAttribute('data-action'), b.getAttribute('aria-label')]),
        }));
      });
      assert.equal(info.length, 2);
      assert.equal(info[0].lang, 'ts');
      assert.ok(info[0].tokens > 2, 'TypeScript is highlighted');
      assert.equal(info[0].text, 'const x: number = 1; // note\n');
      assert.deepEqual(info[0].buttons, [
        ['copy', 'Copy code'],
        ['insert', 'Insert code at cursor'],
        ['open', 'Open code in new editor'],
      ]);
      assert.equal(info[1].tokens, 0, 'unknown languages are escaped, not guessed');
      assert.equal(info[1].text, '<b>raw</b>\n');
    });

    it('the buttons post copy / insertCode / openCode with the raw code', async () => {
      const code = 'const html = "<b>&amp;</b>";\nif (a < b) { return; }';
      await page.evaluate((code) => {
        const root = document.getElementById('root');
        if (root === null) {
          throw new Error('no root');
        }
        const renderer = new window.AQ.IncrementalRenderer(root);
        renderer.append('Text\n\n```typescript\n' + code + '\n```\n');
        renderer.finish();
      }, code);
      await page.click('.aq-code button[data-action="copy"]');
      await page.click('.aq-code button[data-action="insert"]');
      await page.click('.aq-code button[data-action="open"]');
      const messages = await page.evaluate(() => window.__messages);
      assert.deepEqual(messages, [
        { type: 'copy', text: code },
        { type: 'insertCode', code },
        { type: 'openCode', code, language: 'typescript' },
      ]);
    });
  });

  describe('links', () => {
    it('clicking posts openLink only for http(s) and mailto; nothing navigates', async () => {
      await page.evaluate((text) => {
        const root = document.getElementById('root');
        if (root === null) {
          throw new Error('no root');
        }
        root.innerHTML = window.AQ.renderMarkdownOnce(text);
      }, TRICKY.links + '\n[rel](other.html) [hash](#top) [mail](mailto:someone@example.com) [vs](vscode://x)\n');
      const links = await page.$$('#root a');
      assert.ok(links.length >= 8);
      for (const link of links) {
        await link.click();
      }
      const messages = (await page.evaluate(() => window.__messages)) as Array<{ type: string; href: string }>;
      assert.ok(messages.length > 0);
      for (const message of messages) {
        assert.equal(message.type, 'openLink');
        assert.match(message.href, /^(https?:|mailto:)/);
      }
      const hrefs = messages.map((m) => m.href);
      assert.ok(hrefs.includes('https://example.com/path?q=1'));
      assert.ok(hrefs.includes('mailto:someone@example.com'));
      assert.ok(hrefs.includes('https://example.com/a.png'), 'a remote image is a link to open');
      assert.equal(page.url(), `${server.origin}/`);
    });
  });

  describe('the page frame loop', () => {
    it('two answers that share the page\'s frames: each says it is done in the frame that rendered its end, a frame before it follows its text', async () => {
      const log = await page.evaluate(async () => {
        // Every callback of one animation frame reads the frame's time here.
        const frame = (): number => Number(document.timeline.currentTime);
        let frames = 0;
        const events: string[] = [];
        const renderers = ['a', 'b'].map((name) => {
          const out = document.createElement('div');
          document.body.append(out);
          const renderer = new window.AQ.IncrementalRenderer(out, {
            onDone: () => events.push(`${name} done in frame ${frame()}`),
            onRender: () => {
              if (renderer.done) events.push(`${name} followed in frame ${frame()}`);
            },
          });
          renderer.append('# Title\n\nSome *text*.\n');
          renderer.finish();
          return renderer;
        });
        while ((!renderers.every((renderer) => renderer.done) || events.length < 4) && frames++ < 120) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        return events;
      });
      const frameOf = (event: string): number => Number(/frame ([\d.]+)/.exec(log.find((line) => line.startsWith(event)) ?? '')?.[1]);
      for (const name of ['a', 'b']) {
        assert.ok(frameOf(`${name} followed`) > frameOf(`${name} done`), log.join('; '));
      }
    });

    it('a renderer whose answer has ended gets at least 8 ms of a shared frame, the others what is left', async () => {
      const shares = await page.evaluate(() => {
        const pending: Array<() => void> = [];
        const loop = new window.AQ.FrameLoop((callback) => void pending.push(callback));
        const shares: Record<string, number> = {};
        const client = (name: string, ending: boolean) => ({
          render: (budget: number) => void (shares[name] = budget),
          rendered: () => undefined,
          ending: () => ending,
        });
        for (const each of [client('streaming 1', false), client('ended', true), client('streaming 2', false), client('streaming 3', false)]) loop.request(each);
        for (const callback of pending.splice(0)) callback();
        return shares;
      });
      // The first frame's budget is the least one (8 ms): four would get 2 ms each.
      assert.ok(shares.ended >= 8, JSON.stringify(shares));
      assert.ok(shares['streaming 1'] <= 8 / 4 + 0.01 && shares['streaming 3'] >= 2, JSON.stringify(shares));
    });

    it('renderers of one page share a frame: each gets a share of one budget, a failing one keeps none from theirs, and each follows its text at the start of the next frame', async () => {
      const log = await page.evaluate(async () => {
        const pending: Array<() => void> = [];
        const loop = new window.AQ.FrameLoop((callback) => void pending.push(callback));
        const events: string[] = [];
        const errors: string[] = [];
        window.addEventListener('error', (event) => {
          errors.push(String(event.message));
          event.preventDefault();
        });
        const shares: Record<string, number[]> = { a: [], b: [], c: [] };
        const client = (name: string, work: (budget: number) => void) => {
          const self = {
            render: (budget: number) => {
              events.push(`render ${name}`);
              shares[name].push(budget);
              work(budget);
            },
            rendered: () => events.push(`follow ${name}`),
          };
          return self;
        };
        // Each renders at once: a renderer that spent the budget would leave the next frame to those after it.
        const a = client('a', () => undefined);
        const b = client('b', () => {
          throw new Error('a renderer failed');
        });
        const c = client('c', () => undefined);
        for (const each of [a, b, c]) loop.request(each);
        loop.request(a);
        const frames: string[][] = [];
        const runFrame = (): void => {
          const callbacks = pending.splice(0);
          events.length = 0;
          for (const callback of callbacks) callback();
          frames.push([...events]);
        };
        runFrame();
        for (const each of [a, b, c]) loop.request(each);
        runFrame();
        runFrame();
        // The failures are reported once the frame is over.
        await new Promise((resolve) => setTimeout(resolve, 0));
        return { frames, shares, pendingAfter: pending.length, errors };
      });
      // Once per frame however often asked; every client rendered though one failed; the follows
      // of a frame's renders come first in the next frame, and the first turn goes round.
      assert.deepEqual(log.frames[0], ['render a', 'render b', 'render c']);
      assert.deepEqual(log.frames[1], ['follow a', 'follow b', 'follow c', 'render b', 'render c', 'render a']);
      assert.deepEqual(log.frames[2], ['follow b', 'follow c', 'follow a']);
      assert.equal(log.pendingAfter, 0, 'nothing asked for another frame');
      assert.equal(log.errors.length, 2, 'each failure is reported, as an uncaught error of the page');
      assert.match(log.errors[0], /a renderer failed/);
      // The first frame's budget is the least one (8 ms, nothing measured yet): a took its third of it, the others shared what was left.
      const [aShare] = log.shares.a;
      assert.ok(aShare > 2 && aShare <= 8 / 3 + 0.01, `a's share ${aShare}`);
      assert.ok(log.shares.c[0] >= 2, 'a client never gets less than 2 ms');
    });

    it('once a shared frame’s budget is spent, the renderers still due wait for the next frame and go first there; one whose answer has ended renders anyway', async () => {
      const frames = await page.evaluate(() => {
        const pending: Array<() => void> = [];
        const loop = new window.AQ.FrameLoop((callback) => void pending.push(callback));
        const events: string[] = [];
        const busy = (ms: number): void => {
          const end = performance.now() + ms;
          while (performance.now() < end) {
            // A renderer's least step, longer than any frame's budget (at most 20 ms).
          }
        };
        // Three streaming answers, each with more to do after every render, and one that has ended.
        const streaming = (name: string) => {
          const self = {
            render: () => {
              events.push(`render ${name}`);
              busy(25);
              loop.request(self);
            },
            rendered: () => undefined,
            ending: () => false,
          };
          return self;
        };
        const ended = { render: () => void events.push('render ended'), rendered: () => undefined, ending: () => true };
        for (const each of [streaming('a'), streaming('b'), streaming('c'), ended]) loop.request(each);
        // Five frames (the streaming answers always have more to do).
        return Array.from({ length: 5 }, () => {
          events.length = 0;
          for (const callback of pending.splice(0)) callback();
          return [...events];
        });
      });
      // One streaming answer a frame, the one that waited longest first; the ended one in the first frame though the budget was spent.
      assert.deepEqual(frames, [['render a', 'render ended'], ['render b'], ['render c'], ['render a'], ['render b']]);
    });

    it('a renderer alone in its frame follows its text in that frame, and asks for no frame after', async () => {
      const frames = await page.evaluate(() => {
        const pending: Array<() => void> = [];
        const loop = new window.AQ.FrameLoop((callback) => void pending.push(callback));
        const events: string[] = [];
        loop.request({ render: () => void events.push('render'), rendered: () => void events.push('follow') });
        const seen: string[][] = [];
        while (pending.length > 0 && seen.length < 5) {
          events.length = 0;
          for (const callback of pending.splice(0)) callback();
          seen.push([...events]);
        }
        return seen;
      });
      assert.deepEqual(frames, [['render', 'follow']]);
    });
  });

  describe('hostile content', () => {
    /** Inspects `#root` for anything dangerous; returns a list of findings. */
    async function findings(target: Page): Promise<string[]> {
      return target.evaluate(() => {
        const found: string[] = [];
        const root = document.getElementById('root');
        if (root === null) {
          return ['no root'];
        }
        const forbidden = 'script,iframe,object,embed,style,link,meta,svg,math,form,video,audio,source,template,noscript,base,details,input,textarea';
        for (const el of root.querySelectorAll(forbidden)) {
          found.push(`element ${el.tagName}`);
        }
        for (const el of root.querySelectorAll('*')) {
          for (const attr of el.getAttributeNames()) {
            if (/^on/i.test(attr) || attr === 'style' || attr === 'id' || attr === 'name' || attr === 'srcdoc' || attr === 'formaction') {
              found.push(`attribute ${attr} on ${el.tagName}`);
            }
          }
        }
        for (const a of root.querySelectorAll('a[href]')) {
          const href = a.getAttribute('href') ?? '';
          if (!/^(https?:|mailto:)/i.test(href)) {
            found.push(`href ${href}`);
          }
        }
        for (const img of root.querySelectorAll('img[src]')) {
          const src = img.getAttribute('src') ?? '';
          if (!/^data:image\/(png|jpe?g|gif|webp);/i.test(src)) {
            found.push(`img ${src}`);
          }
        }
        if (window.__pwned) {
          found.push('script ran');
        }
        return found;
      });
    }

    /** Loads a control image from the capture server and waits for it: earlier requests would have arrived by then. */
    async function settleNetwork(target: Page): Promise<void> {
      await target.evaluate((url) => {
        const img = new Image();
        img.src = url;
        return new Promise<void>((resolve) => {
          img.onload = () => resolve();
          img.onerror = () => resolve();
        });
      }, `${capture.origin}/control`);
      await target.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    }

    for (const [label, pathname] of [
      ['under the webview CSP', '/'],
      ['with no CSP at all (the sanitizer alone)', '/nocsp'],
    ] as const) {
      it(`markdown, one-shot and incremental, ${label}: nothing runs, nothing loads, nothing dangerous stays`, async () => {
        await page.goto(`${server.origin}${pathname}`);
        capture.requests.length = 0;
        const text = hostileCorpus(capture.origin);
        await page.evaluate((text) => {
          const root = document.getElementById('root');
          if (root === null) {
            throw new Error('no root');
          }
          const once = document.createElement('div');
          once.innerHTML = window.AQ.renderMarkdownOnce(text);
          root.append(once);
          const streamed = document.createElement('div');
          root.append(streamed);
          const renderer = new window.AQ.IncrementalRenderer(streamed, { scheduleFrame: (callback) => callback() });
          for (let i = 0; i < text.length; i += 5) {
            renderer.append(text.slice(i, i + 5));
          }
          renderer.finish();
        }, text);
        if (pathname === '/nocsp') {
          await settleNetwork(page);
        }
        assert.deepEqual(await findings(page), []);
        assert.deepEqual(capture.requests.filter((r) => r !== '/control'), []);
        assert.equal(dialogs, 0);
        const imageLink = await page.evaluate(() => document.querySelector('#root a.aq-image-link')?.textContent ?? null);
        assert.equal(imageLink, `image: remote image (${capture.origin}/md-image.png)`);
        // Clicking every link neither runs anything nor navigates, and only http(s) is posted.
        for (const link of await page.$$('#root a')) {
          await link.click();
        }
        const messages = (await page.evaluate(() => window.__messages)) as Array<{ type: string; href?: string }>;
        for (const message of messages) {
          assert.equal(message.type, 'openLink');
          assert.match(message.href ?? '', /^(https?:|mailto:)/);
        }
        assert.equal(await page.evaluate(() => window.__pwned), false);
        assert.equal(page.url(), `${server.origin}${pathname}`);
      });
    }

    it('raw hostile HTML through the sanitizer alone (no CSP) loses everything dangerous', async () => {
      await page.goto(`${server.origin}/nocsp`);
      capture.requests.length = 0;
      await page.evaluate((html) => {
        const root = document.getElementById('root');
        if (root === null) {
          throw new Error('no root');
        }
        root.innerHTML = window.AQ.sanitizeHtml(html);
      }, hostileHtml(capture.origin));
      await settleNetwork(page);
      assert.deepEqual(await findings(page), []);
      assert.deepEqual(capture.requests.filter((r) => r !== '/control'), []);
      assert.equal(dialogs, 0);
    });
  });
});
