// The renderer's own markup is built with DOM methods (src/webview/render/markup.ts) instead of
// going through DOMPurify. These tests hold the builder to the sanitizer: wherever it builds, its
// nodes equal what DOMPurify makes of the same markup, and it gives up on everything the sanitizer
// would change or the HTML parser would build differently. They also show that ordinary answers
// never reach the sanitizer's parser while hostile ones still do.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { hostileCorpus, hostileHtml, TRICKY } from './corpus';
import { openProbePage, type ProbePage, type RendererGlobal } from '../support/browser';
import { longShapes } from '../support/shapes';

interface MarkupGlobal extends RendererGlobal {
  work: { parsed: number; highlighted: number; sanitized: number };
  buildMarkup: (html: string, context?: readonly string[]) => DocumentFragment | undefined;
  purifiedFragment: (html: string) => DocumentFragment;
  markupOf: (text: string) => string;
}

/** A piece of markup and the open elements it goes in. */
interface Case {
  readonly html: string;
  readonly context: readonly string[];
}

interface Verdict {
  readonly html: string;
  readonly context: readonly string[];
  /** The builder made nodes (false: it gave the markup to the sanitizer). */
  readonly built: boolean;
  /** Where it built: its nodes differ from DOMPurify's (the serializations, when they do). */
  readonly difference?: { readonly built: string; readonly purified: string };
}

/** Runs the builder and DOMPurify over each case in the page and compares their nodes. */
function judge(page: Page, cases: readonly Case[]): Promise<Verdict[]> {
  return page.evaluate((cases) => {
    const aq = window.AQ as MarkupGlobal;
    return cases.map(({ html, context }): Verdict => {
      const built = aq.buildMarkup(html, context);
      if (built === undefined) {
        return { html, context, built: false };
      }
      // DOMPurify's nodes of the same markup, parsed inside the same open elements.
      const open = context.map((tag) => `<${tag}>`).join('');
      const close = [...context].reverse().map((tag) => `</${tag}>`).join('');
      const purified = aq.purifiedFragment(open + html + close);
      let inner: ParentNode = purified;
      for (const tag of context) {
        inner = [...inner.children].find((child) => child.localName === tag) ?? document.createDocumentFragment();
      }
      const a = document.createElement('div');
      const b = document.createElement('div');
      a.append(built);
      b.append(...inner.childNodes);
      // isEqualNode also tells text split into several nodes apart; innerHTML the order of attributes.
      const same = a.isEqualNode(b) && a.innerHTML === b.innerHTML;
      return same ? { html, context, built: true } : { html, context, built: true, difference: { built: a.innerHTML, purified: b.innerHTML } };
    });
  }, cases as Case[]);
}

/** Elements of `root` that are not allowed, or carry a handler, a style, a link that is not http(s)/mailto, or an image that is not inline. */
function unsafeElements(root: Element): string[] {
  const allowed = ['A', 'BLOCKQUOTE', 'BR', 'CODE', 'EM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'IMG', 'LI', 'OL', 'P', 'PRE', 'S', 'STRONG', 'TABLE', 'TBODY', 'TD', 'TH', 'THEAD', 'TR', 'UL', 'DIV', 'SPAN', 'BUTTON'];
  return [...root.querySelectorAll('*')]
    .filter(
      (element) =>
        !allowed.includes(element.tagName) ||
        [...element.attributes].some((attribute) => attribute.name.startsWith('on') || attribute.name === 'style') ||
        /^(?:https?|mailto):/i.exec(element.getAttribute('href') ?? 'https:') === null ||
        (element.tagName === 'IMG' && !/^data:image\/(?:png|jpe?g|gif|webp);/i.test(element.getAttribute('src') ?? 'data:image/png;')),
    )
    .map((element) => element.outerHTML);
}

/** Random markup, mostly well formed, from the pieces the renderer writes and pieces it never does. */
function randomMarkup(count: number, seed: number): Case[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const tags = ['p', 'div', 'span', 'em', 'strong', 's', 'code', 'pre', 'a', 'ul', 'ol', 'li', 'blockquote', 'h1', 'h3', 'table', 'thead', 'tbody', 'tr', 'td', 'th', 'button', 'b', 'svg', 'math', 'noscript', 'template', 'select'];
  const names = ['class', 'href', 'src', 'title', 'alt', 'type', 'start', 'aria-label', 'data-lang', 'data-action', 'onclick', 'style', 'id', 'name'];
  const values = [
    'x', 'hljs-keyword', 'https://example.com/a', 'mailto:a@example.com', 'javascript:alert(1)', 'java\tscript:x', 'https://example.com/a b',
    'data:image/png;base64,AAAA', 'DATA:image/png;base64,AAAA', 'data:text/html,x', ' padded ', '--&gt;', 'a]&gt;', '&lt;/title&gt;', 'a /&gt; b',
    'button', 'submit', '3', '&amp;&quot;&#x27;', '&copy;', 'command:workbench.action.quit',
  ];
  const plain = ['text', ' ', '\n', '\n\n', '&amp;', '&lt;b&gt;', '&quot;', '&#x27;', '\t', 'x\u00a0y', '\uFFFD'];
  const odd = ['&copy;', '&#60;', '\uD800', '\uDC00x', 'a\u0000b', 'r\rn', '<!-- c -->', '<'];
  const texts = [...plain, ...plain, ...plain, ...odd];
  const element = (depth: number): string => {
    const r = random();
    if (r < 0.35 || depth > 4) {
      return pick(texts);
    }
    if (r < 0.55) {
      // highlight.js's span, the builder's quickest path, in every context.
      let children = '';
      for (let i = 0, n = Math.floor(random() * 3); i < n; i++) {
        children += element(depth + 1);
      }
      return `<span class="${pick(['hljs-keyword', 'hljs-title function_', 'aq-text-chunk', 'x y'])}">${children}</span>`;
    }
    if (r < 0.65) {
      return pick(['<br>', '<hr>', '<br />', '<span/>', `<img src="${pick(values)}" alt="${pick(values)}">`, '</br>']);
    }
    const tag = pick(tags);
    let attributes = '';
    for (let i = 0, n = Math.floor(random() * 3); i < n; i++) {
      attributes += ` ${pick(names)}="${pick(values)}"`;
    }
    let children = '';
    for (let i = 0, n = Math.floor(random() * 4); i < n; i++) {
      children += element(depth + 1);
    }
    const closing = random() < 0.05 ? '' : random() < 0.03 ? `</${pick(tags)}>` : `</${tag}>`;
    return `<${tag}${attributes}>${children}${closing}`;
  };
  const contexts: ReadonlyArray<readonly string[]> = [[], [], [], ['p'], ['ul'], ['code'], ['blockquote'], ['table'], ['table', 'tbody']];
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    let html = '';
    for (let j = 0, n = 1 + Math.floor(random() * 4); j < n; j++) {
      html += element(0);
    }
    cases.push({ html, context: pick(contexts) });
  }
  return cases;
}

describe('the renderer builds its own markup (markup.ts), held to the sanitizer', function () {
  this.timeout(300_000);
  let probe: ProbePage;
  let page: Page;

  before(async () => {
    probe = await openProbePage();
    page = probe.page;
    await page.evaluate(`window.__unsafe = ${unsafeElements.toString()}`);
  });

  after(async () => {
    await probe?.close();
  });

  it('builds the markup of every answer in the corpus and of every long shape, to the nodes DOMPurify makes', async () => {
    const texts = [...Object.values(TRICKY).flat(), ...Object.values(longShapes(16 * 1024))];
    const cases = await page.evaluate((texts) => texts.map((text) => ({ html: (window.AQ as MarkupGlobal).markupOf(text), context: [] as string[] })), texts);
    const verdicts = await judge(page, cases);
    const notBuilt = verdicts.filter((verdict) => !verdict.built).map((verdict) => verdict.html.slice(0, 200));
    assert.deepEqual(notBuilt, [], 'the renderer writes only markup the builder takes');
    assert.deepEqual(verdicts.filter((verdict) => verdict.difference !== undefined), []);
  });

  it('gives up on what the sanitizer would change and on what the HTML parser would build differently', async () => {
    const refused: Array<[string, readonly string[]]> = [
      ['<script>window.__pwned = true</script>', []],
      ['<span onclick="window.__pwned = true">x</span>', []],
      ['<p style="color:red">x</p>', []],
      ['<b>x</b>', []],
      ['<a href="javascript:alert(1)">x</a>', []],
      ['<a href="JAVASCRIPT:alert(1)">x</a>', []],
      ['<a href="java\tscript:alert(1)">x</a>', []],
      ['<a href="command:workbench.action.quit">x</a>', []],
      ['<a href="https://example.com/a b">x</a>', []],
      ['<img src="https://example.com/x.png" alt="x">', []],
      ['<img src="DATA:image/png;base64,AAAA" alt="x">', []],
      ['<img src="data:image/svg+xml;base64,AAAA" alt="x">', []],
      ['<a href="https://example.com" title="--&gt;&lt;img src=x&gt;">x</a>', []],
      ['<span title="a]&gt;">x</span>', []],
      ['<span title="a /&gt;">x</span>', []],
      ['<span title=" padded">x</span>', []],
      ['<span class="a" class="b">x</span>', []],
      ['<button>go</button>', []],
      ['<button type="submit">go</button>', []],
      ['<p>a<div>b</div></p>', []],
      ['<div>b</div>', ['p']],
      ['<a href="https://a.example"><a href="https://b.example">x</a></a>', []],
      ['<h1>a<h2>b</h2></h1>', []],
      ['<pre>\nx</pre>', []],
      ['<table>text</table>', []],
      ['<table><tr><td>x</td></tr></table>', []],
      ['<li>x</li>', []],
      ['text', ['tbody']],
      ['<span class="hljs-keyword">x</span>', ['table', 'tbody']],
      ['<span class="hljs-keyword">x</span>', ['table']],
      ['<span/>', []],
      ['</br>', []],
      ['<p>x', []],
      ['x</span>', []],
      ['a&nbsp;b', []],
      ['a&copy;b', []],
      ['a\u0000b', []],
      ['a\rb', []],
      ['\nleading', []],
      ['<P>x</P>', []],
    ];
    const verdicts = await judge(
      page,
      refused.map(([html, context]) => ({ html, context })),
    );
    assert.deepEqual(
      verdicts.filter((verdict) => verdict.built).map((verdict) => `${verdict.context.join('>')}: ${verdict.html}`),
      [],
      'each of these goes to the sanitizer',
    );
  });

  for (const seed of [1, 2, 3]) {
    it(`random markup (seed ${seed}): wherever the builder builds, its nodes are DOMPurify's`, async () => {
      const verdicts = await judge(page, randomMarkup(3000, seed));
      const built = verdicts.filter((verdict) => verdict.built).length;
      // Both ways are exercised, or the comparison proves little.
      assert.ok(built > 300 && built < 2700, `built ${built} of 3000`);
      assert.deepEqual(verdicts.filter((verdict) => verdict.difference !== undefined).slice(0, 5), []);
    });
  }

  it('ordinary answers streamed in pieces never reach the sanitizer; the hostile corpus streamed does, and nothing hostile stays', async () => {
    const shapes = longShapes(128 * 1024);
    const counts = await page.evaluate(
      ({ shapes, hostile, raw }) => {
        const aq = window.AQ as MarkupGlobal;
        const stream = (text: string): { parsed: number; sanitized: number; unsafe: string[] } => {
          const out = document.createElement('div');
          const renderer = new aq.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
          aq.work.parsed = aq.work.sanitized = 0;
          for (let at = 0; at < text.length; at += 997) {
            renderer.append(text.slice(at, at + 997));
          }
          renderer.finish();
          return { parsed: aq.work.parsed, sanitized: aq.work.sanitized, unsafe: (window as unknown as { __unsafe: (root: Element) => string[] }).__unsafe(out) };
        };
        const ordinary: Record<string, { parsed: number; sanitized: number }> = {};
        for (const [name, text] of Object.entries(shapes)) {
          const { parsed, sanitized } = stream(text);
          ordinary[name] = { parsed, sanitized };
        }
        const evil = stream(`${hostile}\n\n${raw}`);
        return { ordinary, hostile: evil };
      },
      { shapes, hostile: hostileCorpus('http://127.0.0.1:9'), raw: hostileHtml('http://127.0.0.1:9') },
    );
    for (const [name, count] of Object.entries(counts.ordinary)) {
      assert.ok(count.parsed > 0, `${name} was rendered`);
      assert.equal(count.sanitized, 0, `${name}: nothing went through the sanitizer's parser`);
    }
    // Raw HTML is text in an answer (markdown-it escapes it); what reaches the sanitizer is what the
    // builder gives up on (here a link title that could break out of a comment).
    assert.ok(counts.hostile.parsed > 0 && counts.hostile.sanitized > 0, JSON.stringify(counts.hostile));
    assert.deepEqual(counts.hostile.unsafe, []);
  });

  it('the hostile corpus, built or sanitized, leaves nothing that runs, loads or opens', async () => {
    const result = await page.evaluate((texts) => {
      const aq = window.AQ as MarkupGlobal;
      return texts.map((text) => {
        const html = aq.markupOf(text);
        const built = aq.buildMarkup(html);
        const holder = document.createElement('div');
        holder.append(built ?? aq.purifiedFragment(html));
        return { built: built !== undefined, bad: (window as unknown as { __unsafe: (root: Element) => string[] }).__unsafe(holder) };
      });
    }, [hostileCorpus('http://127.0.0.1:9'), ...hostileCorpus('http://127.0.0.1:9').split('\n\n')]);
    assert.deepEqual(result.flatMap((entry) => entry.bad), []);
    assert.ok(result.some((entry) => entry.built), 'some of the hostile corpus is built (its raw HTML is escaped text)');
  });
});
