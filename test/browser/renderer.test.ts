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
    it('answers of one page share its frames: two long answers both progress in the same frames, and each ends equal to a one-shot render', async () => {
      const result = await page.evaluate(async () => {
        const text = Array.from({ length: 3000 }, (_, i) => `## Part ${i}\n\nSome *text* and \`code\` ${i}.\n`).join('\n');
        const frame = (): number => Number(document.timeline.currentTime);
        const rendered: Record<string, number[]> = { a: [], b: [] };
        const renderers = ['a', 'b'].map((name) => {
          const out = document.createElement('div');
          const renderer = new window.AQ.IncrementalRenderer(out, { onRender: () => rendered[name].push(frame()) });
          renderer.append(text);
          renderer.finish();
          return { out, renderer };
        });
        for (let frames = 0; !renderers.every(({ renderer }) => renderer.done) && frames < 600; frames++) await new Promise((resolve) => requestAnimationFrame(resolve));
        const shared = rendered.a.filter((time) => rendered.b.includes(time)).length;
        return { shared, a: rendered.a.length, b: rendered.b.length, equal: renderers.every(({ out }) => out.innerHTML === window.AQ.renderMarkdownOnce(text)) };
      });
      assert.ok(result.equal, 'both equal a one-shot render');
      assert.ok(result.a > 2 && result.b > 2, `each took several frames: ${JSON.stringify(result)}`);
      assert.ok(result.shared >= Math.min(result.a, result.b) - 1, `they rendered in the same frames: ${JSON.stringify(result)}`);
    });

    it('an answer that ends says it is done once, in the frame that rendered its end, and asks for no frame after', async () => {
      const result = await page.evaluate(async () => {
        const frame = (): number => Number(document.timeline.currentTime);
        const events: string[] = [];
        const out = document.createElement('div');
        const renderer = new window.AQ.IncrementalRenderer(out, {
          onDone: () => events.push(`done ${frame()}`),
          onRender: () => events.push(`render ${frame()}`),
        });
        renderer.append('# Title\n\nSome *text*.\n');
        renderer.finish();
        for (let i = 0; i < 10; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
        return { events, done: renderer.done };
      });
      assert.ok(result.done);
      const done = result.events.filter((event) => event.startsWith('done'));
      assert.equal(done.length, 1, result.events.join('; '));
      const last = result.events[result.events.length - 1];
      assert.equal(last.split(' ')[1], done[0].split(' ')[1], `nothing rendered after the frame of its end: ${result.events.join('; ')}`);
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
