import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openProbePage, randomPieces, type ProbePage, type RendererGlobal } from '../support/browser';
import type { ClockedRenderer, PageClock } from './probe';
import { HeldText, type HeldPiece } from '../../src/shared/answer/heldText';
import { countLines, estimatedHeight, GROUP_SIZE } from '../../src/shared/answer/blocks';
import { longShapes } from '../support/shapes';

interface ProbeGlobal extends RendererGlobal {
  work: { parsed: number; highlighted: number; sanitized: number };
  GROUP_SIZE: number;
  scrolledAnswer: NonNullable<RendererGlobal['scrolledAnswer']>;
  heldRenderer: NonNullable<RendererGlobal['heldRenderer']>;
  heldGroupOffset: NonNullable<RendererGlobal['heldGroupOffset']>;
  heldGroupElement: NonNullable<RendererGlobal['heldGroupElement']>;
  watchedElements(): { watched: Set<Element>; restore: () => void };
  groupsInView(scroller: Element, out: Element): { inView: number; waitingInView: number };
  waitingGroups(out: Element): { groups: number; elements: number };
  onPageClock(out: HTMLElement, clock: PageClock): ClockedRenderer;
  fastClock(times: number): () => void;
}

/** What the extension host passes over for an answer that comes in `batches` (in order), and the text of each group it held, by id. */
function heldAnswer(...batches: string[]): { pieces: HeldPiece[]; texts: string[]; heldCount: number } {
  const held = new HeldText();
  const pieces = batches.flatMap((batch) => held.pass(batch));
  const texts = Array.from({ length: held.heldCount }, (_, id) => held.text(id) ?? '');
  return { pieces, texts, heldCount: held.heldCount };
}

interface Mismatch {
  readonly at: number;
  readonly firstDifference: number;
  readonly got: string;
  readonly expected: string;
}

/**
 * Streams `text` in the given pieces with a synchronous frame after each; after the last one,
 * finishes (or flushes) and compares with the one-shot render. Returns the mismatches.
 */
function streamAndCompare(page: Page, text: string, plans: ReadonlyArray<readonly number[]>): Promise<Mismatch[]> {
  return page.evaluate(
    ({ text, plans }) => {
      const expected = window.AQ.renderMarkdownOnce(text);
      const bad: Mismatch[] = [];
      for (const pieces of plans) {
        const out = document.createElement('div');
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
        let at = 0;
        for (const size of pieces) {
          renderer.append(text.slice(at, at + size));
          at += size;
        }
        renderer.append(text.slice(at));
        renderer.finish();
        const got = out.innerHTML;
        if (got !== expected) {
          let i = 0;
          while (i < got.length && got[i] === expected[i]) {
            i++;
          }
          bad.push({ at: pieces[0] ?? 0, firstDifference: i, got: got.slice(Math.max(0, i - 200), i + 200), expected: expected.slice(Math.max(0, i - 200), i + 200) });
          break;
        }
      }
      return bad;
    },
    { text, plans: plans.map((plan) => [...plan]) },
  );
}

/** Offsets where a split is most likely to go wrong: around line breaks and markers near `centre`. */
function awkwardSplits(text: string, centre: number, span: number): number[] {
  const splits = new Set<number>();
  for (let i = Math.max(1, centre - span); i < Math.min(text.length, centre + span); i++) {
    if (/[\n`~|>*[\]\-_ ]/.test(text[i - 1] + text[i]) || (text.charCodeAt(i) >= 0xdc00 && text.charCodeAt(i) <= 0xdfff)) {
      splits.add(i);
    }
  }
  return [...splits];
}

/**
 * Renders `text` frame by frame (frames called by hand) on a page clock (see PageClock); returns
 * the most and the median characters parsed in a frame (after the first three, in which the
 * renderer learns the page's pace), the most in any frame, the frames it took, and whether the
 * result equals a one-shot render.
 */
function parsedPerFrame(page: Page, text: string, clock: PageClock): Promise<{ most: number; mostAny: number; median: number; frames: number; equal: boolean }> {
  return page.evaluate(
    ({ text, clock }) => {
      const out = document.createElement('div');
      const { renderer, frame, pending, restore } = (window.AQ as ProbeGlobal).onPageClock(out, clock);
      try {
        renderer.append(text);
        let most = 0;
        let mostAny = 0;
        const parsed: number[] = [];
        let frames = 0;
        while (pending() && frames < 10_000) {
          const inFrame = frame();
          mostAny = Math.max(mostAny, inFrame);
          if (frames >= 3) {
            most = Math.max(most, inFrame);
            parsed.push(inFrame);
          }
          frames++;
        }
        renderer.finish();
        renderer.flush();
        const median = [...parsed].sort((a, b) => a - b)[Math.floor(parsed.length / 2)] ?? 0;
        return { most, mostAny, median, frames, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
      } finally {
        restore();
      }
    },
    { text, clock },
  );
}

/** What {@link farAhead} saw. */
interface FarAhead {
  /** Once the first part's far groups stopped being made to wait: groups, those that wait, and the answer's top-level elements. */
  readonly early: { readonly waiting: number; readonly groups: number; readonly top: number };
  /** Groups in the middle rendered whole after the view was scrolled there. */
  readonly middleRendered: number;
  /** Once done: groups that wait, whether the last group is rendered, whether every item of the middle groups has paragraphs (a loose list). */
  readonly end: { readonly waiting: number; readonly groups: number; readonly lastRendered: boolean; readonly middleLoose: boolean };
  /** Where the flushed answer differs from the one-shot render (300 characters either side), if it does. */
  readonly difference: { readonly got: string; readonly expected: string } | undefined;
  /** Links to https://example.com/spec in the flushed answer. */
  readonly links: number;
}

/**
 * An answer far ahead of the renderer, in real frames and a view 400 px high: `first` comes at
 * once, the view is scrolled to the middle, then `rest` comes and the answer ends. Groups are the
 * elements `groups` selects in the answer (waiting ones have a style: their estimated height).
 */
function farAhead(page: Page, first: string, rest: string, groups: string): Promise<FarAhead> {
  return page.evaluate(
    async ({ first, rest, selector }) => {
      const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
      const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
      const renderer = new window.AQ.IncrementalRenderer(out);
      const groups = (): Element[] => [...out.querySelectorAll(selector)];
      const waiting = (): number => groups().filter((group) => group.hasAttribute('style')).length;
      renderer.append(first);
      // The blocks before the first group are rendered first, over a frame or a few; then groups
      // are made to wait, as many a frame as the frame's budget allows, until what is not rendered
      // is within reach (how many frames that takes depends on the budget the page's pace gives).
      for (let i = 0; i < 10 && waiting() === 0; i++) {
        await frame();
      }
      for (let i = 0, before = -1; i < 20 && waiting() > before; i++) {
        before = waiting();
        await frame();
      }
      const early = { waiting: waiting(), groups: groups().length, top: out.querySelectorAll(':scope > *').length };
      // The reader looks at the middle while the rest is still to come (groups made later are not the middle).
      const all = groups();
      scroller.scrollTop = scroller.scrollHeight / 2;
      for (let i = 0; i < 10; i++) {
        await frame();
      }
      const middle = all.filter((group, i) => i > all.length * 0.2 && i < all.length * 0.8 && !group.hasAttribute('style') && group.childElementCount === (window.AQ as ProbeGlobal).GROUP_SIZE);
      renderer.append(rest);
      renderer.finish();
      while (!renderer.done) {
        await frame();
      }
      const last = groups()[groups().length - 1];
      const end = {
        waiting: waiting(),
        groups: groups().length,
        lastRendered: last !== undefined && !last.hasAttribute('style') && last.childElementCount > 0,
        middleLoose: middle.length > 0 && middle.every((group) => [...group.children].every((item) => item.firstElementChild?.localName === 'p')),
      };
      renderer.flush?.();
      const got = out.innerHTML;
      const expected = window.AQ.renderMarkdownOnce(first + rest);
      let at = 0;
      while (at < got.length && got[at] === expected[at]) {
        at++;
      }
      const difference = at === got.length && at === expected.length ? undefined : { got: got.slice(Math.max(0, at - 300), at + 300), expected: expected.slice(Math.max(0, at - 300), at + 300) };
      const result = { early, middleRendered: middle.length, end, difference, links: out.querySelectorAll('a[href="https://example.com/spec"]').length };
      scroller.remove();
      return result;
    },
    { first, rest, selector: groups },
  );
}

describe('renderer streams long blocks in Chromium', function () {
  this.timeout(600_000);
  let probe: ProbePage;
  let page: Page;
  const shapes = longShapes(24 * 1024);

  before(async () => {
    probe = await openProbePage();
    page = probe.page;
  });

  after(async () => {
    await probe?.close();
  });

  describe('the final DOM equals a one-shot render', () => {
    for (const [name, text] of Object.entries(shapes)) {
      it(`${name}: in random chunks (3 seeds) and all at once`, async () => {
        const plans: number[][] = [[text.length]];
        for (const seed of [1, 2, 3]) {
          plans.push(randomPieces(seed, text.length, 300, 6000, 0.1));
        }
        assert.deepEqual(await streamAndCompare(page, text, plans), []);
      });

      it(`${name}: split where the stream starts, in the middle and near the end, then in 997-unit chunks`, async () => {
        const splits = [...awkwardSplits(text, 8 * 1024, 24), ...awkwardSplits(text, text.length >> 1, 12), ...awkwardSplits(text, text.length - 40, 40)];
        const plans = splits.map((split) => [split, ...Array.from({ length: Math.ceil((text.length - split) / 997) }, () => 997)]);
        assert.deepEqual(await streamAndCompare(page, text, plans), []);
      });
    }

    it('CR LF and lone CR line breaks split across appends', async () => {
      const text = shapes.fence.replace(/\n/g, (_, i: number) => (i % 3 === 0 ? '\r\n' : i % 3 === 1 ? '\r' : '\n'));
      const plans = awkwardSplits(text, 9000, 30).map((split) => [split, 1, 1, 2, 500]);
      assert.deepEqual(await streamAndCompare(page, text, plans), []);
    });
  });

  describe('the work per append does not grow with the open block', () => {
    const appended = 2048;
    /** Each case: the block's opening, then lines made from the templates in turn (`{i}`: the line number). */
    const cases: Record<string, { start: string; lines: string[] }> = {
      'fenced code block': { start: '```typescript\n', lines: ["  const value{i}: number = await compute({i}, 'text'); // step {i}\n"] },
      list: { start: '', lines: ['- item {i} with **bold** and `code` words\n'] },
      table: { start: '| a | b | c |\n|---|:-:|--:|\n', lines: ['| {i} | **x** | `y` {i} |\n'] },
      'block quote': { start: '', lines: ['> quoted line {i} with *emphasis*\n', '> more {i}\n', '> and {i}\n', '>\n'] },
      'paragraph without line breaks': { start: 'Start', lines: [' word{i} **b** [l](https://example.com/{i}).'] },
    };
    for (const [name, shape] of Object.entries(cases)) {
      it(`${name}: characters parsed, highlighted and sanitised for ${appended} new ones at 64 KiB, 256 KiB and 1 MiB`, async () => {
        const work = await page.evaluate(
          ({ start, lines, sizes, appended }) => {
            const line = (i: number): string => lines[i % lines.length].replaceAll('{i}', String(i));
            const aq = window.AQ as ProbeGlobal;
            const out = document.createElement('div');
            const renderer = new aq.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
            let i = 0;
            let size = 0;
            const next = (bytes: number): string => {
              let text = '';
              while (text.length < bytes) {
                text += line(i++);
              }
              return text;
            };
            renderer.append(start);
            const results: Array<{ size: number; parsed: number; highlighted: number; sanitized: number }> = [];
            for (const target of sizes) {
              while (size < target) {
                const text = next(16 * 1024);
                size += text.length;
                renderer.append(text);
              }
              renderer.flush?.();
              aq.work.parsed = aq.work.highlighted = aq.work.sanitized = 0;
              for (let n = 0; n < 4; n++) {
                renderer.append(next(appended));
              }
              results.push({ size, parsed: aq.work.parsed / 4, highlighted: aq.work.highlighted / 4, sanitized: aq.work.sanitized / 4 });
            }
            return results;
          },
          { start: shape.start, lines: shape.lines, sizes: [64 * 1024, 256 * 1024, 1024 * 1024], appended },
        );
        for (const stage of ['parsed', 'highlighted', 'sanitized'] as const) {
          const [small, , large] = work.map((w) => w[stage]);
          assert.ok(large <= small * 1.5 + appended, `${stage}: ${JSON.stringify(work)}`);
          assert.ok(large <= 16 * appended, `${stage} per append is bounded: ${JSON.stringify(work)}`);
        }
        if (name === 'fenced code block') {
          // Highlighted code is built from highlight.js's markup directly, never parsed by the sanitizer.
          assert.ok(work[0].highlighted > 0 && work[0].sanitized < appended / 4, `highlighted code skips the sanitizer: ${JSON.stringify(work)}`);
        }
      });
    }
  });

  describe('the browser lays out only the new text: a long block grows in chunks, each a block of bounded size', () => {
    const bound = 32 * 1024;
    for (const [name, selector] of [
      ['fence', '.aq-answer .aq-code code'],
      ['plainFence', '.aq-answer .aq-code code'],
      ['paragraph', '.aq-answer > p'],
    ] as const) {
      it(`${name}: while streaming and at the end, text outside chunks and in any one chunk stays under ${bound / 1024} KiB; chunks are blocks`, async () => {
        const text = longShapes(256 * 1024, 3)[name];
        const result = await page.evaluate(
          ({ text, selector }) => {
            const out = document.createElement('div');
            out.className = 'aq-answer';
            document.body.append(out);
            const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
            const chunkClass = /code$/.test(selector) ? 'aq-code-chunk' : 'aq-text-chunk';
            let loose = 0;
            let largest = 0;
            const look = (): void => {
              const block = out.querySelector(selector);
              for (const node of block?.childNodes ?? []) {
                const size = node.textContent?.length ?? 0;
                if (node instanceof Element && node.classList.contains(chunkClass)) {
                  largest = Math.max(largest, size);
                } else {
                  loose += size;
                }
              }
            };
            let maxLoose = 0;
            for (let at = 0; at < text.length; at += 997) {
              renderer.append(text.slice(at, at + 997));
              loose = 0;
              look();
              maxLoose = Math.max(maxLoose, loose);
            }
            renderer.finish();
            loose = 0;
            look();
            const chunks = [...out.querySelectorAll(`.${chunkClass}`)];
            const displays = [...new Set(chunks.map((chunk) => getComputedStyle(chunk).display))];
            // A chunk of code ends with its line break, which must add no empty line.
            const code = out.querySelector('.aq-code code');
            let sameHeight = true;
            if (code instanceof HTMLElement) {
              // Every chunk laid out (off screen they take an estimated height): their real heights add up.
              for (const chunk of chunks) (chunk as HTMLElement).style.contentVisibility = 'visible';
              const flat = code.cloneNode(false) as HTMLElement;
              flat.textContent = code.textContent;
              code.after(flat);
              sameHeight = flat.getBoundingClientRect().height === code.getBoundingClientRect().height;
              flat.remove();
            }
            out.remove();
            return { maxLoose, endLoose: loose, largest, chunks: chunks.length, displays, sameHeight };
          },
          { text, selector },
        );
        const summary = JSON.stringify(result);
        assert.ok(result.chunks >= 8, summary);
        assert.deepEqual(result.displays, ['block'], summary);
        assert.ok(result.maxLoose <= bound && result.largest <= bound, summary);
        assert.equal(result.endLoose, 0, summary);
        assert.ok(result.sameHeight, summary);
      });
    }

    it('a long code block: chunks off screen are skipped, and a line far wider than the view is laid out whole, the block scrolling sideways to its end', async () => {
      const result = await page.evaluate(async () => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        const scroller = document.createElement('div');
        scroller.style.cssText = 'height: 400px; width: 300px; overflow: auto';
        const out = document.createElement('div');
        out.className = 'aq-answer';
        scroller.append(out);
        document.body.append(scroller);
        try {
          const lines = Array.from({ length: 6000 }, (_, i) => `const value${i} = compute(${i}, "text");`);
          const wide = `const wide = "${'w'.repeat(3000)}";`;
          lines[3000] = wide;
          const text = '```ts\n' + lines.join('\n') + '\n```\n';
          const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
          for (let at = 0; at < text.length; at += 8192) renderer.append(text.slice(at, at + 8192));
          renderer.finish();
          await frame();
          await frame();
          const chunks = [...out.querySelectorAll('.aq-code-chunk')];
          // Whether a chunk's content is shown, told by a highlighted token in it (the first 128 Ki characters are highlighted).
          const tokens = chunks.map((chunk) => chunk.querySelector('span')).filter((token) => token !== null);
          const shownAtTop = tokens.filter((token) => token.checkVisibility({ contentVisibilityAuto: true })).length;
          // The chunk with the wide line comes into view.
          const chunk = chunks.find((c) => c.textContent?.includes(wide) === true) as HTMLElement;
          chunk.scrollIntoView();
          await frame();
          await frame();
          const walker = document.createTreeWalker(chunk, NodeFilter.SHOW_TEXT);
          let node: Node | null;
          while ((node = walker.nextNode()) !== null && !(node.textContent ?? '').includes('wwww')) {
            // the text node of the wide line's string
          }
          const range = document.createRange();
          range.selectNodeContents(node as Node);
          const line = range.getBoundingClientRect();
          const box = chunk.getBoundingClientRect();
          const pre = chunk.closest('pre') as HTMLElement;
          return { chunks: chunks.length, highlighted: tokens.length, shownAtTop, lineWidth: Math.round(line.width), lineRight: Math.round(line.right), chunkRight: Math.round(box.right), preScroll: pre.scrollWidth, preWidth: pre.clientWidth };
        } finally {
          scroller.remove();
        }
      });
      const summary = JSON.stringify(result);
      assert.ok(result.highlighted >= 8 && result.shownAtTop < result.highlighted / 2, `most chunks are skipped: ${summary}`);
      assert.ok(result.lineWidth > 3 * result.preWidth, `the wide line is wider than the block: ${summary}`);
      // A chunk clips what overflows it (it is contained): the wide line must end inside it.
      assert.ok(result.lineRight <= result.chunkRight + 1, `the chunk holds the whole line: ${summary}`);
      assert.ok(result.preScroll >= result.lineWidth, `the block scrolls sideways to the line's end: ${summary}`);
    });
  });

  describe('long runs of children come in groups, so no element has thousands of children', () => {
    for (const [name, child] of [
      ['list', 'li'],
      ['ordered', 'li'],
      ['table', 'tr'],
      ['quote', 'blockquote p, blockquote li'],
      ['blocks', ':scope > :not(.aq-group), :scope > .aq-group > *'],
    ] as const) {
      it(`${name}: while streaming and at the end, no element of the answer has more than 300 children, though there are thousands of ${name === 'blocks' ? 'top-level blocks' : child}`, async () => {
        const text = longShapes(384 * 1024, 5)[name];
        const result = await page.evaluate(
          ({ text, child }) => {
            const out = document.createElement('div');
            out.className = 'aq-answer';
            document.body.append(out);
            const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
            const widest = (): number => Math.max(out.childElementCount, ...[...out.querySelectorAll('*')].map((element) => element.childElementCount));
            let most = 0;
            for (let at = 0; at < text.length; at += 4001) {
              renderer.append(text.slice(at, at + 4001));
              most = Math.max(most, widest());
            }
            renderer.finish();
            const items = out.querySelectorAll(child).length;
            const groups = [...out.querySelectorAll('.aq-group, table.aq-table-long > tbody')];
            const visibility = [...new Set(groups.map((group) => getComputedStyle(group).contentVisibility))];
            out.remove();
            return { most: Math.max(most, widest()), items, groups: groups.length, visibility, done: renderer.done === true };
          },
          { text, child },
        );
        const summary = JSON.stringify(result);
        assert.ok(result.done, summary);
        assert.ok(result.items > 1000, summary);
        assert.ok(result.most <= 300, summary);
        // Groups off screen are skipped by the browser, except in a numbered list (its numbers would restart).
        assert.deepEqual(result.visibility, name === 'ordered' ? ['visible'] : ['auto'], summary);
      });
    }
  });

  it('an answer far ahead of the renderer: whole groups wait as text and render as they come into view, with definitions that arrive later; flushed, it equals a one-shot render', async () => {
    // Many short blocks, a use of a definition now and then, and the definition at the very end.
    const parts = longShapes(768 * 1024, 9).blocks.split('\n\n');
    const text = parts.map((part, i) => (i % 150 === 75 ? `${part}\n\nSee [the spec][spec] here.` : part)).join('\n\n') + '\n\n[spec]: https://example.com/spec "Spec"\n';
    const uses = parts.filter((_, i) => i % 150 === 75).length;
    const first = text.slice(0, Math.floor(text.length * 0.7));
    const result = await farAhead(page, first, text.slice(first.length), ':scope > .aq-group');
    const summary = JSON.stringify(result);
    assert.ok(result.early.groups > 20 && result.early.waiting > result.early.groups / 2, `most groups wait while the renderer is far behind: ${summary}`);
    assert.ok(result.middleRendered > 0, `the groups in view are rendered: ${summary}`);
    assert.ok(result.end.waiting > 0 && result.end.lastRendered, `at the end, the newest text is rendered and groups far from the view still wait: ${summary}`);
    assert.equal(result.difference, undefined, summary);
    assert.equal(result.links, uses, summary);
  });

  it('a bulleted list far ahead of the renderer: whole groups of its items wait as text and render as they come into view, turn loose with the list, and use definitions that arrive later; flushed, it equals a one-shot render', async () => {
    const items = longShapes(768 * 1024, 12).looseLate.split('\n').filter((line) => line.startsWith('* item'));
    const list = items.map((item, i) => (i % 150 === 75 ? `${item} see [the spec][spec]` : item)).join('\n');
    const uses = items.filter((_, i) => i % 150 === 75).length;
    const first = list.slice(0, list.indexOf('\n', Math.floor(list.length * 0.7)) + 1);
    // A blank line before the last item makes the whole list loose; the definition comes after it.
    const rest = list.slice(first.length) + '\n\n* loose now\n\n[spec]: https://example.com/spec "Spec"\n';
    const result = await farAhead(page, first, rest, 'ul > .aq-group');
    const summary = JSON.stringify(result);
    assert.equal(result.early.top, 1, `one list: ${summary}`);
    // More than 256 KiB behind, groups of items wait until the rest is within that: one parse
    // window's worth of groups (20) or more, by how far the page's own frames got first (20 in
    // some runs, 38 to 60 in others, with frames fitted to 33 ms and to 50 ms alike).
    assert.ok(result.early.groups > 20 && result.early.waiting >= 20, `groups of items wait while the renderer is far behind: ${summary}`);
    assert.ok(result.middleRendered > 0, `the groups in view are rendered: ${summary}`);
    assert.ok(result.end.waiting > 0, `at the end, groups far from the view still wait: ${summary}`);
    assert.ok(result.middleRendered > 0 && result.end.middleLoose, `the groups rendered before the list turned loose are rendered again, loose: ${summary}`);
    assert.equal(result.difference, undefined, summary);
    assert.equal(result.links, uses, summary);
  });

  it('groups the extension host held back wait in place, their text is asked for as they come into view, and the answer then equals a one-shot render', async () => {
    // What the host passes over of an answer that came at full speed: text, held groups, text.
    const parts = longShapes(1536 * 1024, 11).blocks.split('\n\n');
    // A definition inside a held group, used before it and after it.
    const text = parts.map((part, i) => (i % 400 === 200 ? `${part}\n\nSee [the spec][spec] here.` : i === Math.floor(parts.length / 2) ? `${part}\n\n[spec]: https://example.com/spec "Spec"` : part)).join('\n\n') + '\n';
    const uses = parts.filter((_, i) => i % 400 === 200).length;
    const { pieces, texts, heldCount } = heldAnswer(text.slice(0, 30_000), text.slice(30_000));
    assert.ok(heldCount > 50, `the host held most of it: ${heldCount} groups`);
    const result = await page.evaluate(
      async ({ pieces, texts }) => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
        const asked: number[] = [];
        // The host answers a little later, as a message would.
        const renderer = (window.AQ as ProbeGlobal).heldRenderer(out, pieces, texts, { wantHeld: (ids) => void asked.push(...ids) });
        const groups = (): Element[] => [...out.querySelectorAll(':scope > .aq-group')];
        const waiting = (): number => (window.AQ as ProbeGlobal).waitingGroups(out).groups;
        while (!renderer.done) {
          await frame();
        }
        const end = { waiting: waiting(), groups: groups().length, asked: asked.length, busy: renderer.asking };
        // The reader scrolls to the middle: the groups there are asked for and rendered.
        scroller.scrollTop = scroller.scrollHeight / 2;
        for (let i = 0; i < 30; i++) {
          await frame();
        }
        const all = groups();
        const middle = { asked: asked.length, rendered: all.filter((group, i) => i > all.length * 0.2 && i < all.length * 0.8 && !group.hasAttribute('style') && group.childElementCount === (window.AQ as ProbeGlobal).GROUP_SIZE).length };
        renderer.flush();
        while (renderer.asking) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        renderer.flush();
        const got = out.innerHTML;
        const expected = window.AQ.renderMarkdownOnce(pieces.map((piece) => ('text' in piece ? piece.text : piece.groups.map((group) => texts[group.id]).join(''))).join(''));
        let at = 0;
        while (at < got.length && got[at] === expected[at]) {
          at++;
        }
        // Which group first holds a different number of blocks, if any (a miscount shows there).
        const one = document.createElement('div');
        one.innerHTML = expected;
        const sizes = (root: Element): number[] => [...root.querySelectorAll(':scope > .aq-group')].map((group) => group.childElementCount);
        const expectedSizes = sizes(one);
        const group = sizes(out).findIndex((size, i) => size !== expectedSizes[i]);
        const difference = at === got.length && at === expected.length ? undefined : { group, got: got.slice(Math.max(0, at - 300), at + 300), expected: expected.slice(Math.max(0, at - 300), at + 300) };
        const result = { end, middle, difference, links: out.querySelectorAll('a[href="https://example.com/spec"]').length, asked: new Set(asked).size === asked.length };
        scroller.remove();
        return result;
      },
      { pieces, texts },
    );
    const summary = JSON.stringify(result);
    assert.ok(result.end.waiting > 40, `held groups wait in place: ${summary}`);
    assert.ok(result.end.asked < 10, `only the groups near the view are asked for: ${summary}`);
    assert.ok(result.middle.asked > result.end.asked && result.middle.rendered > 0, `scrolled to, held groups are asked for and rendered: ${summary}`);
    assert.equal(result.asked, true, `no group is asked for twice: ${summary}`);
    assert.equal(result.difference, undefined, summary);
    assert.equal(result.links, uses, summary);
  });

  it('a waiting group of long blocks that comes into view in a slow page is rendered a piece per frame, and the answer still equals a one-shot render', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `Paragraph ${i}: ${'word '.repeat(80)}`).join('\n\n') + '\n';
    const result = await page.evaluate(
      async (text) => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
        let pending: Array<() => void> = [];
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => void pending.push(callback) });
        // Renders one frame's worth (if asked for) after a real frame, so that the page sees what is in view.
        const pump = async (): Promise<void> => {
          await frame();
          const callbacks = pending;
          pending = [];
          for (const callback of callbacks) callback();
        };
        const shown = (): number => out.querySelectorAll(':scope > .aq-group > *').length;
        let restore = (): void => undefined;
        try {
          renderer.append(text);
          renderer.finish();
          for (let i = 0; i < 2000 && !renderer.done; i++) await pump();
          const waiting = out.querySelectorAll(':scope > .aq-group[style]').length;
          // The reader scrolls to the middle, and the page becomes slow: its clock runs 500 times
          // fast (at 50 times, a warm page rendered two 4 KiB pieces within one frame's 8 ms budget).
          scroller.scrollTop = scroller.scrollHeight / 2;
          restore = (window.AQ as ProbeGlobal).fastClock(500);
          const perFrame: number[] = [];
          for (let i = 0; i < 40; i++) {
            const before = shown();
            await pump();
            perFrame.push(shown() - before);
          }
          restore();
          renderer.flush();
          return { waiting, perFrame, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
        } finally {
          restore();
          scroller.remove();
        }
      },
      text,
    );
    const added = result.perFrame.filter((n) => n > 0);
    const summary = JSON.stringify(result);
    assert.ok(result.waiting > 10, `groups wait: ${summary}`);
    // A group holds GROUP_SIZE of these blocks (about 13 KiB): a frame renders a piece of it, never all.
    assert.ok(added.length >= 3 && Math.max(...added) < GROUP_SIZE * 0.75, summary);
    assert.ok(result.equal, summary);
  });

  for (const first of [true, false]) {
    it(`a held group with a long code block ${first ? 'as its first block' : 'among its blocks'} that comes into view is highlighted over several frames of a slow page, not in one, and the answer still equals a one-shot render`, async () => {
      const line = 'export async function step(value: number): Promise<string> { const x = await fetch(`/api/${value}`); return x.text(); } // note\n';
      const fence = '```ts\n' + line.repeat(Math.ceil((100 * 1024) / line.length)) + '```';
      const parts = longShapes(1024 * 1024, 11).blocks.split('\n\n');
      // Where the code block goes so that the host's group holding it starts with it, or does not.
      const placed = Array.from({ length: 64 }, (_, k) => Math.floor(parts.length / 3) + k)
        .map((at) => {
          const text = [...parts.slice(0, at), fence, ...parts.slice(at)].join('\n\n') + '\n';
          return { text, ...heldAnswer(text.slice(0, 30_000), text.slice(30_000)) };
        })
        .find(({ texts }) => texts.some((held) => (first ? held.startsWith(fence) : held.includes(`\n${fence}`))));
      assert.ok(placed !== undefined, 'a place for the code block');
      const { pieces, texts } = placed;
      // The held group with the code block, and every held group's estimated height (what the page gives each).
      const fenceId = texts.findIndex((held) => held.includes(fence));
      const heights = texts.map((held) => estimatedHeight(countLines(held), held.length));
      const result = await page.evaluate(
        async ({ pieces, texts, fenceId, heights }) => {
          const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
          const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
          let pending: Array<() => void> = [];
          const renderer = (window.AQ as ProbeGlobal).heldRenderer(out, pieces, texts, { scheduleFrame: (callback) => void pending.push(callback) });
          const pump = async (): Promise<void> => {
            await frame();
            const callbacks = pending;
            pending = [];
            for (const callback of callbacks) callback();
          };
          let restore = (): void => undefined;
          try {
            for (let i = 0; i < 2000 && !renderer.done; i++) await pump();
            // The reader scrolls to where the code block's group is (the held groups wait in runs), and
            // once the run there is split (the observer has seen the scroll), to the group's own element.
            const offset = (window.AQ as ProbeGlobal).heldGroupOffset(scroller, out, fenceId, heights);
            if (offset === undefined) throw new Error('no run of held groups holds the code block\'s group');
            scroller.scrollTop = offset;
            for (let i = 0; i < 20 && (window.AQ as ProbeGlobal).heldGroupElement(out, heights[fenceId]) === undefined; i++) await pump();
            const tall = (window.AQ as ProbeGlobal).heldGroupElement(out, heights[fenceId]);
            if (tall === undefined) throw new Error('the code block\'s group never got an element of its own');
            const keywords = (): number => Math.max(0, ...[...tall.querySelectorAll('pre code')].map((code) => code.querySelectorAll('.hljs-keyword').length));
            // It comes into view in a slow page (its clock runs 50 times fast).
            scroller.scrollTop = tall.offsetTop - scroller.offsetTop;
            restore = (window.AQ as ProbeGlobal).fastClock(50);
            const perFrame: number[] = [];
            for (let i = 0; i < 400 && (perFrame.length === 0 || tall.hasAttribute('style')); i++) {
              await pump();
              perFrame.push(keywords());
            }
            restore();
            renderer.flush();
            while (renderer.asking) await new Promise((resolve) => setTimeout(resolve, 10));
            renderer.flush();
            const expected = window.AQ.renderMarkdownOnce(pieces.map((piece) => ('text' in piece ? piece.text : piece.groups.map((group) => texts[group.id]).join(''))).join(''));
            return { grew: perFrame.filter((n, i) => n > (perFrame[i - 1] ?? 0)).length, final: keywords(), last: perFrame[perFrame.length - 1], frames: perFrame.length, equal: out.innerHTML === expected };
          } finally {
            restore();
            scroller.remove();
          }
        },
        { pieces, texts, fenceId, heights },
      );
      const summary = JSON.stringify(result);
      assert.ok(result.final > 2000, `the code block is highlighted: ${summary}`);
      // Highlighted whole as it came into view, its keywords would all come in one frame.
      assert.ok(result.grew >= 3, `its highlighting came over several frames: ${summary}`);
      assert.equal(result.last, result.final, `it was all highlighted before the group stopped waiting: ${summary}`);
      assert.ok(result.equal, summary);
    });
  }

  it('hundreds of held groups that come at once stand in one element until the view comes near; scrolled to, only the groups near the view get elements of their own and are rendered; the answer then equals a one-shot render', async () => {
    const { pieces, texts, heldCount } = heldAnswer(longShapes(1024 * 1024, 14).blocks);
    const result = await page.evaluate(
      async ({ pieces, texts }) => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
        try {
          const asked: number[] = [];
          const renderer = (window.AQ as ProbeGlobal).heldRenderer(out, pieces, texts, { wantHeld: (ids) => void asked.push(...ids) });
          const elements = (): number => out.querySelectorAll(':scope > .aq-group').length;
          while (!renderer.done) {
            await frame();
          }
          for (let i = 0; i < 5; i++) {
            await frame();
          }
          const atTop = { elements: elements(), waiting: (window.AQ as ProbeGlobal).waitingGroups(out), asked: asked.length };
          const before = new Set(out.querySelectorAll(':scope > .aq-group'));
          // The reader scrolls to the middle: the run there is split where the view is.
          scroller.scrollTop = scroller.scrollHeight / 2;
          for (let i = 0; i < 30; i++) {
            await frame();
          }
          // A group split off the run and rendered wholly above the view was rendered out of sight
          // (it would take a group's height not laid out, and push what the reader looks at away).
          const top = scroller.getBoundingClientRect().top;
          const renderedAbove = [...out.querySelectorAll(':scope > .aq-group:not([style])')].filter((group) => !before.has(group) && group.getBoundingClientRect().bottom < top - 1).length;
          const middle = { elements: elements(), asked: asked.length - atTop.asked, renderedAbove, ...(window.AQ as ProbeGlobal).groupsInView(scroller, out) };
          renderer.flush();
          while (renderer.asking) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          renderer.flush();
          const expected = window.AQ.renderMarkdownOnce(pieces.map((piece) => ('text' in piece ? piece.text : piece.groups.map((group) => texts[group.id]).join(''))).join(''));
          return { atTop, middle, all: elements(), equal: out.innerHTML === expected };
        } finally {
          scroller.remove();
        }
      },
      { pieces, texts },
    );
    const summary = JSON.stringify({ heldCount, ...result });
    assert.ok(heldCount > 100, summary);
    assert.ok(result.atTop.waiting.groups > heldCount - 10, `the held groups wait: ${summary}`);
    assert.ok(result.atTop.waiting.elements * 20 < result.atTop.waiting.groups, `a few elements hold them: ${summary}`);
    assert.ok(result.middle.inView > 0 && result.middle.waitingInView === 0, `the groups in view are rendered: ${summary}`);
    assert.equal(result.middle.renderedAbove, 0, `none out of sight above the view: ${summary}`);
    assert.ok(result.middle.asked > 0 && result.middle.asked <= 12, `only the groups near the view were asked for: ${summary}`);
    assert.ok(result.middle.elements - result.atTop.elements <= 14, `only those got elements of their own: ${summary}`);
    assert.ok(result.all > heldCount, `all rendered, each group is an element: ${summary}`);
    assert.ok(result.equal, summary);
  });

  it('while the view follows the stream, the page watches only the newest waiting groups; scrolled away, the groups there are rendered', async () => {
    // Text that came at once, far more than a frame renders: the page makes its groups wait, one element each.
    const pieces: HeldPiece[] = [{ text: longShapes(1024 * 1024, 13).blocks }];
    const texts: string[] = [];
    const result = await page.evaluate(
      async ({ pieces, texts }) => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        // What the page's intersection observers watch.
        const { watched, restore } = (window.AQ as ProbeGlobal).watchedElements();
        const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
        try {
          // The view follows the newest text, as the panel's does, until the reader scrolls.
          let following = true;
          const renderer = (window.AQ as ProbeGlobal).heldRenderer(out, pieces, texts, {
            onRender: () => void (following && (scroller.scrollTop = scroller.scrollHeight)),
          });
          const waiting = (): { groups: number; elements: number } => (window.AQ as ProbeGlobal).waitingGroups(out);
          while (!renderer.done) {
            await frame();
          }
          for (let i = 0; i < 5; i++) {
            await frame();
          }
          const atEnd = { waiting: waiting(), watched: watched.size };
          // The reader scrolls to the middle: the groups there are rendered.
          following = false;
          scroller.scrollTop = scroller.scrollHeight / 2;
          for (let i = 0; i < 30; i++) {
            await frame();
          }
          return { atEnd, middle: { watched: watched.size, waiting: waiting(), ...(window.AQ as ProbeGlobal).groupsInView(scroller, out) } };
        } finally {
          restore();
          scroller.remove();
        }
      },
      { pieces, texts },
    );
    const summary = JSON.stringify(result);
    assert.ok(result.atEnd.waiting.elements > 100, `many groups wait: ${summary}`);
    assert.ok(result.atEnd.watched <= 20, `at the end, only the newest are watched: ${summary}`);
    assert.ok(result.middle.watched >= result.middle.waiting.elements && result.middle.watched > 100, `away from the end, all are watched: ${summary}`);
    assert.ok(result.middle.inView > 0 && result.middle.waitingInView === 0, `the groups in view are rendered: ${summary}`);
  });

  for (const held of [true, false]) {
    it(`groups that first wait while the view is far from the end (the reader is at the top) are all watched, and those in view are rendered without a scroll (${held ? 'held by the host, in runs' : 'made to wait by the page'})`, async () => {
      // Short paragraphs: the first groups start within the view (the first GROUP_SIZE blocks stay outside groups).
      const text = Array.from({ length: 40_000 }, (_, i) => `Paragraph ${i}.`).join('\n\n') + '\n';
      const { pieces, texts } = held ? heldAnswer(text) : { pieces: [{ text }], texts: [] };
      const result = await page.evaluate(
        async ({ pieces, texts }) => {
          const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
          const { watched, restore } = (window.AQ as ProbeGlobal).watchedElements();
          const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
          // At the top of the page, as tall as the area the page watches (its view and a screen below it).
          scroller.style.cssText += `;position:fixed;top:0;left:0;right:0;height:${2 * innerHeight}px`;
          try {
            // The view stays at the top: no scroll ever says where it is.
            const renderer = (window.AQ as ProbeGlobal).heldRenderer(out, pieces, texts);
            for (let i = 0; i < 600 && !renderer.done; i++) {
              await frame();
            }
            for (let i = 0; i < 30; i++) {
              await frame();
            }
            const waiting = (window.AQ as ProbeGlobal).waitingGroups(out);
            return { top: scroller.scrollTop, waiting, watched: watched.size, ...(window.AQ as ProbeGlobal).groupsInView(scroller, out) };
          } finally {
            restore();
            scroller.remove();
          }
        },
        { pieces, texts },
      );
      const summary = JSON.stringify(result);
      assert.equal(result.top, 0, `the view stayed at the top: ${summary}`);
      assert.ok(result.waiting.groups > 100, `many groups wait: ${summary}`);
      assert.ok(result.watched >= result.waiting.elements && (held || result.watched > 100), `far from the end, all waiting groups are watched: ${summary}`);
      assert.ok(result.inView > 0 && result.waitingInView === 0, `the groups in view are rendered: ${summary}`);
    });
  }

  it('a held group the host placed where no group starts here is asked for at once and rendered in line; the answer still equals a one-shot render', async () => {
    const text = longShapes(256 * 1024, 12).blocks;
    // Cut by hand at the 100th block: not where a group starts.
    const blocks = text.split('\n\n');
    const before = blocks.slice(0, 100).join('\n\n') + '\n\n';
    const group = blocks.slice(100, 100 + GROUP_SIZE).join('\n\n') + '\n\n';
    const after = blocks.slice(100 + GROUP_SIZE).join('\n\n');
    const result = await page.evaluate(
      async ({ before, group, after }) => {
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        const out = document.createElement('div');
        document.body.append(out);
        let asked = 0;
        const renderer = new window.AQ.IncrementalRenderer(out, {
          wantHeld: (ids) => {
            asked += ids.length;
            setTimeout(() => renderer.provideHeld(0, group), 5);
          },
        });
        renderer.append(before);
        renderer.hold([{ id: 0, length: group.length, lines: group.split('\n').length - 1, bytes: group.length, references: {} }]);
        renderer.append(after);
        renderer.finish();
        for (let i = 0; i < 2000 && !renderer.done; i++) {
          await frame();
        }
        renderer.flush();
        const equal = out.innerHTML === window.AQ.renderMarkdownOnce(before + group + after);
        out.remove();
        return { asked, equal, done: renderer.done };
      },
      { before, group, after },
    );
    assert.deepEqual(result, { asked: 1, equal: true, done: true });
  });

  it('a 2 MiB list or table that arrives at once is rendered over several frames, not in one', async () => {
    for (const name of ['list', 'table'] as const) {
      const text = longShapes(2 * 1024 * 1024, 4)[name];
      const result = await page.evaluate(
        ({ text, child }) => {
          const out = document.createElement('div');
          let pending: Array<() => void> = [];
          const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => void pending.push(callback) });
          // The most children one frame added.
          let most = 0;
          const frame = (): void => {
            const before = out.querySelectorAll(child).length;
            const callbacks = pending;
            pending = [];
            for (const callback of callbacks) callback();
            most = Math.max(most, out.querySelectorAll(child).length - before);
          };
          renderer.append(text);
          let frames = 0;
          while (pending.length > 0 && frames < 100_000) {
            frame();
            frames++;
          }
          renderer.finish();
          while (pending.length > 0) frame();
          // A bulleted list this far ahead of the renderer has groups of items that wait for the view (see the next test).
          const waiting = out.querySelectorAll('.aq-group[style]').length;
          renderer.flush();
          return { most, waiting, total: out.querySelectorAll(child).length, frames, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
        },
        { text, child: name === 'list' ? 'li' : 'tr' },
      );
      const summary = `${name}: ${JSON.stringify({ ...result })}`;
      assert.ok(result.total > 10_000 && result.most < result.total / 2, summary);
      assert.ok(name === 'list' ? result.waiting > 100 : result.waiting === 0, summary);
      assert.ok(result.equal, summary);
    }
  });

  it('an answer that ends while a frame is pending still renders once per frame, not twice, until it is done', async () => {
    const text = longShapes(1024 * 1024, 5).blocks;
    const result = await page.evaluate((text) => {
      // The page's clock runs four times fast, so that the rest after `finish` takes frames on a
      // fast machine too (an answer that ends far behind is final within a frame or two).
      const restore = (window.AQ as ProbeGlobal).fastClock(4);
      try {
        const out = document.createElement('div');
        let pending: Array<() => void> = [];
        let renders = 0;
        const renderer = new window.AQ.IncrementalRenderer(out, {
          scheduleFrame: (callback) => void pending.push(callback),
          onRender: () => void renders++,
        });
        const rendersPerFrame: number[] = [];
        const frame = (): void => {
          const before = renders;
          const callbacks = pending;
          pending = [];
          for (const callback of callbacks) callback();
          rendersPerFrame.push(renders - before);
        };
        renderer.append(text.slice(0, text.length / 2));
        frame();
        // The rest arrives (a frame is asked for), and the answer ends before that frame comes:
        // `finish` renders at once, within a frame's budget, and asks for a frame for the rest.
        renderer.append(text.slice(text.length / 2));
        renderer.finish();
        const afterFinish = rendersPerFrame.length;
        while (pending.length > 0 && rendersPerFrame.length < 10_000) frame();
        renderer.flush();
        return { rendersPerFrame: rendersPerFrame.slice(afterFinish), done: renderer.done, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
      } finally {
        restore();
      }
    }, text);
    const summary = JSON.stringify({ ...result, frames: result.rendersPerFrame.length, rendersPerFrame: result.rendersPerFrame.slice(0, 20) });
    // The frames after `finish` had work to do (else the case is not tested), and none rendered twice.
    assert.ok(result.rendersPerFrame.filter((n) => n > 0).length >= 2, summary);
    assert.ok(result.rendersPerFrame.every((n) => n <= 1), summary);
    assert.ok(result.done && result.equal, summary);
  });

  // The page's clock runs 200 times fast: to the renderer, every piece of work takes that much longer.
  const slowPages: Array<{ shape: 'blocks' | 'list' | 'table'; what: string; fits: (slow: { most: number; median: number }) => boolean }> = [
    // A base window is 4 KiB (parsed as blocks, then its inline text again): a slow frame stays under one.
    { shape: 'blocks', what: 'windows shrink to the pace it shows', fits: (slow) => slow.most < 4 * 1024 },
    // A container's window is at most 4 KiB, and one is parsed each frame at least: most of a slow
    // page's frames parse one window of the least length (1 KiB; 4 KiB before windows were fitted
    // to the pace). The most in a frame is the block's first 8 KiB, before it streams.
    { shape: 'list', what: 'a long list\'s windows shrink to the pace they show', fits: (slow) => slow.median < 2 * 1024 },
    { shape: 'table', what: 'a long table\'s windows shrink to the pace they show', fits: (slow) => slow.median < 2 * 1024 },
  ];
  for (const { shape, what, fits } of slowPages) {
    it(`a page that renders slowly parses less per frame: ${what}, and the answer still equals a one-shot render`, async () => {
      const text = longShapes(192 * 1024, 6)[shape];
      const slow = await parsedPerFrame(page, text, { slowdown: 200, busyMs: 0 });
      const normal = await parsedPerFrame(page, text, { slowdown: 1, busyMs: 0 });
      const summary = JSON.stringify({ slow, normal });
      assert.ok(fits(slow), summary);
      // On a fast machine the normal page renders all of it in its first three frames: any of its frames counts.
      assert.ok(normal.mostAny >= 4 * 1024 && slow.frames > normal.frames * 2, summary);
      assert.ok(slow.equal && normal.equal, summary);
    });
  }

  for (const shape of ['blocks', 'list'] as const) {
    it(`${shape === 'blocks' ? 'many short blocks' : 'a bulleted list'} that stream in faster than the page renders them: groups far behind wait (not only past 256 KiB), and the answer is final a frame or two after its end; at a pace the page keeps up with, none waits`, async () => {
      const text = longShapes(192 * 1024, 8)[shape];
      // The page's clock moves only by the work done (1 ms per thousand characters parsed) and 80 ms
      // between frames: the renderer's budget is 8 ms a frame, about 8,000 characters.
      const run = (perFrame: number): Promise<{ waitingBeforeEnd: number; waiting: number; framesToDone: number; equal: boolean; flushedEqual: boolean }> =>
        page.evaluate(
          ({ text, perFrame }) => {
            const out = document.createElement('div');
            const { renderer, frame, restore } = (window.AQ as ProbeGlobal).onPageClock(out, { msPerKChar: 1, busyMs: 80 });
            try {
              for (let at = 0; at < text.length; at += perFrame) {
                renderer.append(text.slice(at, at + perFrame));
                frame();
              }
              const waitingBeforeEnd = out.querySelectorAll('.aq-group[style]').length;
              renderer.finish();
              let framesToDone = 0;
              while (!renderer.done && framesToDone < 10_000) {
                frame();
                framesToDone++;
              }
              const waiting = out.querySelectorAll('.aq-group[style]').length;
              const expected = window.AQ.renderMarkdownOnce(text);
              const equal = out.innerHTML === expected;
              renderer.flush();
              return { waitingBeforeEnd, waiting, framesToDone, equal, flushedEqual: out.innerHTML === expected };
            } finally {
              restore();
            }
          },
          { text, perFrame },
        );
      const flood = await run(24 * 1024);
      const paced = await run(2 * 1024);
      const summary = JSON.stringify({ flood, paced });
      // 192 KiB in all: groups wait while it streams because the page loses ground, not because it is 256 KiB behind.
      assert.ok(flood.waitingBeforeEnd > 0 && flood.waiting > 0 && flood.framesToDone <= 3, summary);
      assert.ok(paced.waiting === 0 && paced.equal, summary);
      assert.ok(flood.flushedEqual, summary);
    });
  }

  it('a bulleted list that ends far behind the renderer is final in the next frame: its far groups of items all wait at once, and it equals a one-shot render once flushed', async () => {
    const text = longShapes(384 * 1024, 9).list;
    const result = await page.evaluate((text) => {
      const out = document.createElement('div');
      // 1 ms per thousand characters parsed (parsing blocks only, which is what making items wait costs, does not count), 80 ms between frames: the renderer's budget is 8 ms.
      const { renderer, frame, pending, restore, end } = (window.AQ as ProbeGlobal).onPageClock(out, { msPerKChar: 1, busyMs: 80 });
      try {
        // The list streams for a while, the renderer keeping up with it, and the rest (320 KiB) comes at once with the end.
        const first = 64 * 1024;
        for (let at = 0; at < first; at += 4096) {
          renderer.append(text.slice(at, Math.min(first, at + 4096)));
          frame();
        }
        for (let frames = 0; pending() && frames < 100; frames++) frame();
        const waitingBefore = out.querySelectorAll('.aq-group[style]').length;
        const { parsed, waiting } = end(text.slice(first));
        renderer.flush();
        return { waitingBefore, waiting, parsed, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
      } finally {
        restore();
      }
    }, text);
    const summary = JSON.stringify(result);
    // It kept up before its end, so no group waited then; at its end, groups of the 320 KiB it was behind wait.
    assert.ok(result.waitingBefore === 0 && result.waiting > 20, summary);
    // Final in the frame after its end (17 frames when a window of items a frame waited), and that frame rendered no more than a whole frame's budget (20,000 characters) and a window.
    assert.ok(result.parsed.length <= 1 && Math.max(0, ...result.parsed) <= 20_000 + 4096, summary);
    assert.ok(result.equal, summary);
  });

  it('an answer that ends behind is final in the frame after its end when its rest takes less than its pace while streaming said, and that frame stops at a whole frame\'s budget when it takes more', async () => {
    // 404 paragraphs of about 300 characters. The first 65 and part of the 66th stream; the rest comes at once with the end,
    // and the blocks up to where a group starts and the last ones are rendered, the groups between them wait.
    const words = longShapes(256 * 1024, 11).paragraph.split(' ');
    const blocks = Array.from({ length: 404 }, (_, i) => words.slice(i * 50, i * 50 + 50).join(' '));
    const text = blocks.join('\n\n') + '\n';
    const first = blocks.slice(0, 65).join('\n\n').length + 2 + 100;
    const result = await page.evaluate(({ text, first }) => {
      const ended = (msAtEnd: number): { parsed: number[]; waiting: number; equal: boolean } => {
        const out = document.createElement('div');
        // 10 ms per thousand characters parsed while it streams, 80 ms between frames: the renderer's budget is 8 ms.
        const clock = { msPerKChar: 10, busyMs: 80 };
        const { renderer, frame, pending, restore, end } = (window.AQ as ProbeGlobal).onPageClock(out, clock);
        try {
          for (let at = 0; at < first; at += 2048) {
            renderer.append(text.slice(at, Math.min(first, at + 2048)));
            frame();
          }
          for (let frames = 0; pending() && frames < 200; frames++) frame();
          // From its end on, its work costs `msAtEnd` per thousand characters.
          clock.msPerKChar = msAtEnd;
          const { parsed, waiting } = end(text.slice(first));
          renderer.flush();
          return { parsed, waiting, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
        } finally {
          restore();
        }
      };
      return { cheaper: ended(0.6), same: ended(10) };
    }, { text, first });
    const summary = JSON.stringify(result);
    // Groups wait, and the rest (about 20,000 characters, 12 ms) is final in one frame, though its budget (8 ms) was
    // spent on its way and the pace it streamed at said the rest needs far more (the code before: two frames, 14,000 and
    // 6,200 characters). That frame renders no more than a whole frame's budget (20 ms: 33,300 characters) and a window.
    assert.ok(result.cheaper.waiting > 0 && result.cheaper.parsed.length === 1 && result.cheaper.parsed[0] <= 33_300 + 4096, summary);
    // At the pace it streamed at, the rest takes several frames: none renders more than a whole frame's budget (20 ms: 2,000 characters) and a window.
    assert.ok(result.same.waiting > 0 && result.same.parsed.length > 1 && Math.max(...result.same.parsed) <= 2_000 + 4096, summary);
    assert.ok(result.cheaper.equal && result.same.equal, summary);
  });

  it('a long paragraph the page renders keeps to its frame budget when text piles up: the chunks left show as plain text, later frames freeze them, and it equals a one-shot render', async () => {
    // One paragraph, the whole answer.
    const text = longShapes(192 * 1024, 5).paragraph.split('\n\n')[0] + '\n';
    const result = await page.evaluate((text) => {
      const out = document.createElement('div');
      // 1 ms per thousand characters parsed, 80 ms between frames: the renderer's budget is 8 ms, about 8,000 characters.
      const { renderer, frame, pending, restore } = (window.AQ as ProbeGlobal).onPageClock(out, { msPerKChar: 1, busyMs: 80 });
      const shown = (arrived: number): { shown: number; rendered: number; largest: number } => {
        const once = document.createElement('div');
        once.innerHTML = window.AQ.renderMarkdownOnce(text.slice(0, arrived));
        // The paragraph's children: its chunks, and the blocks of plain text after them.
        const largest = Math.max(0, ...[...(out.querySelector('p')?.childNodes ?? [])].map((node) => node.textContent?.length ?? 0));
        return { shown: out.textContent?.length ?? 0, rendered: once.textContent?.length ?? 0, largest };
      };
      try {
        // The paragraph streams and the renderer catches up with it.
        let arrived = 16 * 1024;
        renderer.append(text.slice(0, arrived));
        for (let frames = 0; pending() && frames < 100; frames++) frame();
        // 40 KiB come at once (as in a Compare panel, where a column waited two frames for its share).
        renderer.append(text.slice(arrived, arrived + 40 * 1024));
        arrived += 40 * 1024;
        const burst = frame();
        const afterBurst = shown(arrived);
        // Then about 1 MiB/s: 16 KiB a frame, twice what the budget parses.
        const streaming: number[] = [];
        const views: Array<{ shown: number; rendered: number; largest: number }> = [];
        while (arrived < text.length) {
          renderer.append(text.slice(arrived, arrived + 16 * 1024));
          arrived += 16 * 1024;
          streaming.push(frame());
          views.push(shown(Math.min(arrived, text.length)));
        }
        renderer.finish();
        const ending: number[] = [];
        while (!renderer.done && ending.length < 100) ending.push(frame());
        const largest = Math.max(afterBurst.largest, ...views.map((v) => v.largest));
        return { burst, afterBurst, streaming, hidden: views.filter((v) => v.shown < v.rendered).length, largest, ending, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
      } finally {
        restore();
      }
    }, text);
    const summary = JSON.stringify(result);
    // The frame after the 40 KiB froze one chunk of about 8 KiB past its budget: not all 40 KiB (as before), nor rendered the rest.
    assert.ok(result.burst <= 8000 + 4000 + 9300, summary);
    // The text not frozen yet is shown, as plain text: at least as many characters as the rendered text has.
    assert.ok(result.afterBurst.shown >= result.afterBurst.rendered && result.hidden === 0, summary);
    // In blocks of about 8 KiB, as the chunks are (the browser lays out only those that change), not as one text of up to 48 KiB.
    assert.ok(result.largest <= 9300, summary);
    // It keeps up at twice its budget's pace without a frame over its budget, the catch-up and two chunks (it leaves at most 48 KiB for later).
    assert.ok(Math.max(...result.streaming) <= 8000 + 4000 + 2 * 9300, summary);
    // The end freezes what is left (at most 48 KiB and the last chunk's text) at once: final in the frame after the last text, and the same as a one-shot render.
    assert.ok(result.ending.length === 1 && result.ending[0] <= 48 * 1024 + 2 * 9300 && result.equal, summary);
  });

  it('an answer that ends a few KiB past what its frame budget renders is final in that frame; one that ends far past it takes more frames, none past a whole frame’s budget', async () => {
    // Paragraphs of about 600 or 2,400 characters: too few blocks for a group to wait (see lazy.ts).
    const paragraphs = (count: number, words: number): string =>
      Array.from({ length: count }, (_, i) => `Paragraph **${i}** with \`code()\` and ${Array.from({ length: words }, (_, w) => `word${w}`).join(' ')}.`).join('\n\n') + '\n';
    const before = paragraphs(8, 90);
    const run = (rest: string): Promise<{ framesToDone: number; parsed: number[]; equal: boolean }> =>
      page.evaluate(
        ({ before, rest }) => {
          const out = document.createElement('div');
          // 1 ms per thousand characters parsed, 80 ms between frames: the renderer's budget is 8 ms, about 8,000 characters.
          const { renderer, frame, pending, restore } = (window.AQ as ProbeGlobal).onPageClock(out, { msPerKChar: 1, busyMs: 80 });
          try {
            renderer.append(before);
            for (let frames = 0; pending() && frames < 100; frames++) frame();
            renderer.append(rest);
            renderer.finish();
            const parsed: number[] = [];
            while (!renderer.done && parsed.length < 100) parsed.push(frame());
            return { framesToDone: parsed.length, parsed, equal: out.innerHTML === window.AQ.renderMarkdownOnce(before + rest) };
          } finally {
            restore();
          }
        },
        { before, rest },
      );
    const near = await run(`\n${paragraphs(20, 90)}`);
    const far = await run(`\n${paragraphs(20, 360)}`);
    const summary = JSON.stringify({ near, far });
    // About 12 KiB: 8 KiB in the budget, the rest past it (it took a second frame when only the last 1 KiB could).
    assert.ok(near.framesToDone === 1 && near.equal, summary);
    // About 48 KiB: no frame renders more than a whole frame's budget (20 ms, 20,000 characters) and a window.
    assert.ok(far.framesToDone >= 3 && Math.max(...near.parsed, ...far.parsed) <= 20_000 + 4096 && far.equal, summary);
  });

  it('in a page that is busy between frames (as the workbench is), a frame renders less, and the answer still equals a one-shot render', async () => {
    const text = longShapes(192 * 1024, 7).blocks;
    // Between two frames the clock moves on by 80 ms: layout, paint and other tasks took that long, as the renderer sees it.
    // The clock moves by the work done (1 ms per thousand characters parsed, about the pace measured
    // here), not by real time, so a busy test machine cannot make the idle page look busy too.
    const busy = await parsedPerFrame(page, text, { slowdown: 1, busyMs: 80, msPerKChar: 1 });
    const idle = await parsedPerFrame(page, text, { slowdown: 1, busyMs: 0, msPerKChar: 1 });
    const summary = JSON.stringify({ busy, idle });
    // The same text over more frames, less of it in each: with this clock the renderer's budget
    // is 20 ms a frame on the idle page and 8 ms on the busy one (the pacer, also tested on its own
    // clock in test/unit/webview/render/pacer.test.ts), so a frame parses 20,000 characters against 8,000, over
    // 11 frames against 25. Real time no longer enters, so a loaded machine gives the same figures.
    assert.ok(busy.frames >= idle.frames * 2 && busy.median <= idle.median * 0.5 && busy.most <= idle.most * 0.5, summary);
    assert.ok(busy.equal && idle.equal, summary);
  });

  it('in a busy page, a table that loses ground renders a little past its budget to catch up, and one that does not never does; both equal a one-shot render', async () => {
    const text = longShapes(384 * 1024, 7).table;
    // The page's clock moves by the work done (1 ms per thousand characters parsed) and 80 ms
    // between frames: the renderer's budget is its least, 8 ms (8,000 characters a frame).
    // Returns the characters parsed in each frame that appended text (after the first six, which
    // learn the page's pace), and in each frame after the last append.
    const stream = (perFrame: number): Promise<{ appending: number[]; after: number[]; equal: boolean }> =>
      page.evaluate(
        ({ text, perFrame }) => {
          const out = document.createElement('div');
          const { renderer, frame, pending, restore } = (window.AQ as ProbeGlobal).onPageClock(out, { msPerKChar: 1, busyMs: 80 });
          try {
            const appending: number[] = [];
            for (let at = 0; at < text.length; at += perFrame) {
              renderer.append(text.slice(at, at + perFrame));
              appending.push(frame());
            }
            const after: number[] = [];
            while (pending() && after.length < 10_000) after.push(frame());
            renderer.finish();
            for (let frames = 0; !renderer.done && frames < 10_000; frames++) frame();
            return { appending: appending.slice(6), after, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
          } finally {
            restore();
          }
        },
        { text, perFrame },
      );
    const losing = await stream(16 * 1024);
    const atOnce = await stream(text.length);
    const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const summary = JSON.stringify({ losing: { median: median(losing.appending), most: Math.max(...losing.appending) }, atOnce: { frames: atOnce.after.length, most: Math.max(...atOnce.after) } });
    // 16 KiB a frame against 8,000 characters: it falls further behind every frame, and then parses about 12,000 a frame (8 ms and 4 ms more).
    assert.ok(median(losing.appending) >= 10_500 && Math.max(...losing.appending) <= 12_000 + 4096, summary);
    // All of it at once: far behind, but less so every frame, so it never takes more than its 8 ms.
    assert.ok(atOnce.after.length > 20 && Math.max(...atOnce.after) <= 8_000 + 1024, summary);
    assert.ok(losing.equal && atOnce.equal, summary);
  });

  it('a view that follows its text lets go when the reader scrolls up, also when a follow comes before the scroll\'s event', async () => {
    const result = await page.evaluate(async () => {
      const { scroller, out } = (window.AQ as ProbeGlobal).scrolledAnswer();
      const Scroller = window.AQ.AutoScroller as NonNullable<RendererGlobal['AutoScroller']>;
      const view = new Scroller(scroller);
      const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
      // The text grows for a few frames, and the view follows it to its end.
      for (let i = 0; i < 5; i++) {
        out.append(Object.assign(document.createElement('p'), { textContent: `Paragraph ${i}. ${'word '.repeat(400)}` }));
        view.update();
        await frame();
      }
      const followed = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
      // The reader scrolls up; before the scroll's event (it comes with the next frame), more text
      // comes and the view is asked to follow it (as a put-off follow's timer or a resize notice does).
      scroller.scrollTop = 100;
      out.append(Object.assign(document.createElement('p'), { textContent: 'More.' }));
      view.update();
      const right = scroller.scrollTop;
      await frame();
      await frame();
      // And from there on, new text does not move it.
      out.append(Object.assign(document.createElement('p'), { textContent: 'Even more.' }));
      view.update();
      await frame();
      const after = scroller.scrollTop;
      scroller.remove();
      return { followed, right, after };
    });
    assert.ok(result.followed < 24, `the view followed the text to its end: ${JSON.stringify(result)}`);
    assert.equal(result.right, 100, `the reader's scroll stands: ${JSON.stringify(result)}`);
    assert.equal(result.after, 100, `and the view no longer follows: ${JSON.stringify(result)}`);
  });

  it('highlighting is capped per block: past the cap, code is plain text', async () => {
    const result = await page.evaluate(() => {
      const code = Array.from({ length: 8000 }, (_, i) => `let v${i} = "${'x'.repeat(20)}";`).join('\n');
      const out = document.createElement('div');
      out.innerHTML = window.AQ.renderMarkdownOnce('```javascript\n' + code + '\n```\n');
      const spans = [...out.querySelectorAll('code span[class^="hljs-"]')];
      const last = spans[spans.length - 1];
      const text = out.querySelector('code')?.textContent ?? '';
      const before = document.createRange();
      before.setStart(out.querySelector('code') as Node, 0);
      before.setEndAfter(last);
      return { highlightedUpTo: before.toString().length, length: text.length, same: text === code + '\n' };
    });
    assert.ok(result.same);
    assert.ok(result.highlightedUpTo > 100_000 && result.highlightedUpTo < 160_000, JSON.stringify(result));
  });
});
