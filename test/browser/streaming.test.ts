import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openProbePage, randomPieces, type ProbePage, type RendererGlobal } from '../support/browser';
import { longShapes } from '../support/shapes';

interface ProbeGlobal extends RendererGlobal {
  work: { parsed: number; highlighted: number; sanitized: number };
}

interface Mismatch {
  readonly plan: number;
  readonly firstDifference: number;
  readonly got: string;
  readonly expected: string;
}

/**
 * Streams `text` in the pieces of each plan with a synchronous frame after each piece, finishes,
 * and compares with the one-shot render. Returns the first mismatch, if any.
 */
function streamAndCompare(page: Page, text: string, plans: ReadonlyArray<readonly number[]>): Promise<Mismatch[]> {
  return page.evaluate(
    ({ text, plans }) => {
      const expected = window.AQ.renderMarkdownOnce(text);
      for (const [plan, pieces] of plans.entries()) {
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
          while (i < got.length && got[i] === expected[i]) i++;
          return [{ plan, firstDifference: i, got: got.slice(Math.max(0, i - 200), i + 200), expected: expected.slice(Math.max(0, i - 200), i + 200) }];
        }
      }
      return [];
    },
    { text, plans: plans.map((plan) => [...plan]) },
  );
}

/** Offsets where a split is most likely to go wrong: around line breaks and markers near `centre`. */
function awkwardSplits(text: string, centre: number, span: number): number[] {
  const splits: number[] = [];
  for (let i = Math.max(1, centre - span); i < Math.min(text.length, centre + span); i++) {
    if (/[\n`~|>*[\]\-_ ]/.test(text[i - 1] + text[i]) || (text.charCodeAt(i) >= 0xdc00 && text.charCodeAt(i) <= 0xdfff)) splits.push(i);
  }
  return splits;
}

describe('renderer streams long blocks in Chromium', function () {
  this.timeout(600_000);
  let probe: ProbePage;
  let page: Page;

  before(async () => {
    probe = await openProbePage();
    page = probe.page;
  });

  after(async () => {
    await probe?.close();
  });

  // Longer than the open text the renderer parses at once (16 KiB), so each streams as a long block.
  const shapes = longShapes(48 * 1024);

  describe('the final DOM equals a one-shot render', () => {
    for (const [name, text] of Object.entries(shapes)) {
      it(`${name}: in random chunks (3 seeds) and all at once`, async () => {
        const plans = [1, 2, 3].map((seed) => randomPieces(seed, text.length, 64, 4096, 0.1));
        assert.deepEqual(await streamAndCompare(page, text, [...plans, [text.length]]), []);
      });

      it(`${name}: split where markup is, near the middle and near the end, then in 997-unit chunks`, async () => {
        const plans = [...awkwardSplits(text, text.length >> 1, 40), ...awkwardSplits(text, text.length - 60, 40)].map((split) => [
          split,
          ...Array.from({ length: Math.ceil((text.length - split) / 997) }, () => 997),
        ]);
        assert.deepEqual(await streamAndCompare(page, text, plans), []);
      });
    }

    it('CR LF and lone CR line breaks split across appends', async () => {
      const text = shapes.list.replace(/\n/g, '\r\n') + '\r' + shapes.fence.replace(/\n/g, '\r');
      const mismatches = await page.evaluate((text) => {
        const out = document.createElement('div');
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
        // Every CR LF split between two appends.
        for (const piece of text.split(/(?<=\r)(?=\n)/)) renderer.append(piece);
        renderer.finish();
        return out.innerHTML === window.AQ.renderMarkdownOnce(text.replace(/\r\n?/g, '\n'));
      }, text);
      assert.ok(mismatches);
    });
  });

  describe('the work of an append follows the new text, not the open block', () => {
    const big = longShapes(1200 * 1024, 3);
    for (const name of ['fence', 'list', 'table', 'paragraph', 'quote']) {
      it(`${name}: characters parsed, highlighted and sanitized for 2 KiB appended at 64 KiB, 256 KiB and 1 MiB into the block`, async () => {
        const result = await page.evaluate(
          ({ text }) => {
            const aq = window.AQ as ProbeGlobal;
            const out = document.createElement('div');
            const renderer = new aq.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
            const costs: Array<{ at: number; parsed: number; highlighted: number; sanitized: number }> = [];
            let at = 0;
            for (const mark of [64 * 1024, 256 * 1024, 1024 * 1024]) {
              renderer.append(text.slice(at, mark));
              at = mark;
              const sample = { parsed: 0, highlighted: 0, sanitized: 0 };
              // Eight appends of 2 KiB: the most any one of them cost.
              for (let i = 0; i < 8; i++) {
                aq.work.parsed = aq.work.highlighted = aq.work.sanitized = 0;
                renderer.append(text.slice(at, at + 2048));
                at += 2048;
                sample.parsed = Math.max(sample.parsed, aq.work.parsed);
                sample.highlighted = Math.max(sample.highlighted, aq.work.highlighted);
                sample.sanitized = Math.max(sample.sanitized, aq.work.sanitized);
              }
              costs.push({ at, ...sample });
            }
            renderer.append(text.slice(at));
            renderer.finish();
            return { costs, equal: out.innerHTML === aq.renderMarkdownOnce(text) };
          },
          { text: big[name] },
        );
        assert.ok(result.equal, 'equal to a one-shot render at the end');
        // A bounded amount per append whatever the block's length: the open part (at most 32 KiB of
        // a paragraph's words, 16 KiB of a list item or row) plus the new text, a few times over.
        for (const cost of result.costs) {
          assert.ok(cost.parsed < 160 * 1024 && cost.highlighted < 64 * 1024 && cost.sanitized < 160 * 1024, `${name} at ${cost.at}: ${JSON.stringify(result.costs)}`);
        }
        const [first, , last] = result.costs;
        assert.ok(last.parsed <= first.parsed * 2 + 8192, `${name}: the cost does not grow with the block: ${JSON.stringify(result.costs)}`);
      });
    }
  });

  it('every word received is in the page while it streams: what is not rendered yet shows as plain text', async () => {
    const big = longShapes(256 * 1024, 4);
    const missing = await page.evaluate((shapes) => {
      const problems: string[] = [];
      for (const [name, text] of Object.entries(shapes)) {
        const out = document.createElement('div');
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
        for (let at = 0; at < text.length; at += 5000) {
          renderer.append(text.slice(at, at + 5000));
          // The last whole word that came (letters and digits only: markup renders away, and so do links' addresses).
          const words = text.slice(0, at + 5000).replace(/\]\([^)\s]*\)?/g, ']').match(/[A-Za-z]+\d+|[A-Za-z]{4,}/g) ?? [];
          const word = words[words.length - 2];
          if (word !== undefined && !(out.textContent ?? '').includes(word)) {
            problems.push(`${name} at ${at}: "${word}" is not in the page`);
            break;
          }
        }
      }
      return problems;
    }, { fence: big.fence, list: big.list, table: big.table, paragraph: big.paragraph, quote: big.quote, blocks: big.blocks });
    assert.deepEqual(missing, []);
  });

  it('text not rendered yet shows once, in order, in blocks of at most 16 Ki characters while four long code blocks or paragraphs share the page\'s frames (as in Compare)', async () => {
    const code = Array.from({ length: 20_000 }, (_, i) => `const value${i} = compute(${i}); // step ${i}`).join('\n') + '\n';
    const words = Array.from({ length: 100_000 }, (_, i) => `word${i}`).join(' ');
    const cases: Record<string, { text: string; shown: string; selector: string }> = {
      code: { text: '```\n' + code + '```\n', shown: code, selector: 'pre > code' },
      paragraph: { text: words + '\n', shown: words, selector: 'p' },
    };
    for (const [name, { text, shown, selector }] of Object.entries(cases)) {
      const result = await page.evaluate(
        async ({ text, shown, selector }) => {
          const outs = Array.from({ length: 4 }, () => document.body.appendChild(document.createElement('div')));
          const renderers = outs.map((out) => new window.AQ.IncrementalRenderer(out));
          const problems: string[] = [];
          let frames = 0;
          let mostWaiting = 0;
          for (let at = 0; !renderers.every((renderer) => renderer.done) && frames < 5000; at += 64 * 1024) {
            for (const renderer of renderers) {
              if (at < text.length) renderer.append(text.slice(at, at + 64 * 1024));
              if (at + 64 * 1024 >= text.length && at < text.length) renderer.finish();
            }
            await new Promise((resolve) => requestAnimationFrame(resolve));
            frames++;
            for (const out of outs) {
              const chunks = [...out.querySelectorAll('.aq-raw-chunk')].map((chunk) => chunk.textContent?.length ?? 0);
              mostWaiting = Math.max(mostWaiting, chunks.reduce((sum, length) => sum + length, 0));
              if (chunks.some((length) => length > 16 * 1024 + 1)) problems.push(`frame ${frames}: a block of ${Math.max(...chunks)} characters`);
              const inPage = out.querySelector(selector)?.textContent ?? '';
              if (!shown.startsWith(inPage.trimEnd())) problems.push(`frame ${frames}: the block's text is not the answer's from its start (${inPage.length} characters shown)`);
            }
            if (problems.length > 0) break;
          }
          for (const out of outs) out.remove();
          return { problems, frames, mostWaiting, done: renderers.every((renderer) => renderer.done) };
        },
        { text, shown, selector },
      );
      assert.deepEqual(result.problems, [], name);
      assert.ok(result.done && result.mostWaiting > 0, `${name}: text waited to be rendered: ${JSON.stringify(result)}`);
    }
  });

  it('a long table streams into sections of 64 rows, in order, as a one-shot render makes them; rows scrolled far away are still in the page for Find and Select All', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => `| row${i + 1} | cell ${i} | ${'x'.repeat(i % 40)} |`).join('\n');
    const text = `| Name | Value | Notes |\n|---|---|---|\n${rows}\n\nAfter the table.\n`;
    const result = await page.evaluate(
      async ({ text, pieces }) => {
        const scroller = document.body.appendChild(document.createElement('div'));
        scroller.style.cssText = 'height: 400px; overflow: auto';
        const out = scroller.appendChild(document.createElement('div'));
        out.className = 'aq-answer';
        const renderer = new window.AQ.IncrementalRenderer(out, { onRender: () => (scroller.scrollTop = scroller.scrollHeight) });
        let at = 0;
        for (const size of pieces) {
          renderer.append(text.slice(at, at + size));
          at += size;
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        renderer.append(text.slice(at));
        renderer.finish();
        while (!renderer.done) await new Promise((resolve) => requestAnimationFrame(resolve));
        const sections = [...out.querySelectorAll('table > tbody')].map((body) => [...body.querySelectorAll('tr')].map((row) => row.cells[0].textContent));
        // The first rows are far above the view now: Find and Select All still reach them.
        const found = (window as unknown as { find(text: string): boolean }).find('row17');
        const selection = getSelection()!;
        selection.selectAllChildren(out);
        const selected = selection.toString();
        const equal = out.innerHTML === window.AQ.renderMarkdownOnce(text);
        const visibility = getComputedStyle(out.querySelector('tbody')!).contentVisibility;
        scroller.remove();
        return { sections, found, selectedFirst: /\brow1\b/.test(selected), selectedLast: /\brow1000\b/.test(selected), selectedLength: selected.length, equal, visibility };
      },
      { text, pieces: randomPieces(7, text.length, 2000, 20_000, 0.1) },
    );
    assert.ok(result.equal, 'equal to a one-shot render');
    assert.equal(result.visibility, 'auto', 'the browser lays out a section only near the screen');
    assert.deepEqual(result.sections.map((section) => section.length), [...Array(15).fill(64), 40], 'sections of 64 rows, the last one what is left');
    assert.deepEqual(result.sections.flat(), Array.from({ length: 1000 }, (_, i) => `row${i + 1}`), 'every row, in order');
    assert.ok(result.found, 'Find reaches a row far above the view');
    assert.ok(result.selectedFirst && result.selectedLast, `Select All takes the first and the last row (${result.selectedLength} characters selected)`);
  });

  it('a 1.5 MiB list or table, or 448 KiB of many blocks, that arrives at once is rendered over several frames, and ends equal to a one-shot render', async () => {
    // (Many blocks past 512 Ki characters waiting would fold unrendered as a flood: see the fold's own test.)
    const big = longShapes(1536 * 1024, 5);
    const texts: Record<string, string> = { list: big.list, table: big.table, blocks: longShapes(448 * 1024, 5).blocks };
    for (const name of Object.keys(texts)) {
      const result = await page.evaluate(async (text) => {
        const out = document.createElement('div');
        let frames = 0;
        const renderer = new window.AQ.IncrementalRenderer(out, { onRender: () => frames++ });
        renderer.append(text);
        renderer.finish();
        const started = Date.now();
        while (!renderer.done && Date.now() - started < 120_000) await new Promise((resolve) => requestAnimationFrame(resolve));
        return { frames, done: renderer.done, equal: out.innerHTML === window.AQ.renderMarkdownOnce(text) };
      }, texts[name]);
      assert.ok(result.done && result.equal, `${name}: ${JSON.stringify(result)}`);
      assert.ok(result.frames >= 4, `${name}: over several frames: ${JSON.stringify(result)}`);
    }
  });

  it('an answer that floods in far faster than the page renders folds its oldest text unrendered: the newest is rendered at once, the fold shows the rest on demand', async () => {
    // Many short blocks of plain words (the quickest to render): the fold, not the rendering, is
    // under test. Now and then a fence or a loose list holds blank lines that a fold must not cut at.
    const part = (i: number): string =>
      i % 50 === 7 ? `\`\`\`\ncode ${i}\n\n## not a heading\n\`\`\`\n` : i % 70 === 3 ? `- item ${i}\n\n- loose item\n\n  still the item\n` : `## Part ${i}\n\nParagraph ${i} of plain words, long enough to make up a large answer quickly.\n`;
    const text = Array.from({ length: 48_000 }, (_, i) => part(i)).join('\n');
    const result = await page.evaluate(async (text) => {
      const aq = window.AQ as ProbeGlobal;
      const out = document.createElement('div');
      const renderer = new aq.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
      const started = performance.now();
      aq.work.parsed = 0;
      renderer.append(text);
      renderer.finish();
      const renderedMs = performance.now() - started;
      // What folded was found by a line scan, not parsed (what is kept is parsed to render it).
      const parsed = aq.work.parsed;
      const fold = out.querySelector('[data-role="fold"]');
      const label = fold?.textContent ?? '';
      const kept = out.innerHTML.length;
      const lastBlock = out.lastElementChild?.outerHTML ?? '';
      (fold?.querySelector('button[data-action="show-folded"]') as HTMLElement | null)?.click();
      // The folded blocks come back a few each frame.
      for (let frames = 0; out.querySelector('[data-role="fold"]') !== null && frames < 3000; frames++) await new Promise((resolve) => requestAnimationFrame(resolve));
      const whole = window.AQ.renderMarkdownOnce(text);
      return { renderedMs, parsed, length: text.length, label, kept, whole: whole.length, endsLikeWhole: whole.trimEnd().endsWith(lastBlock), equal: out.innerHTML === whole, done: renderer.done };
    }, text);
    assert.ok(result.done, JSON.stringify(result));
    assert.match(result.label, /folded \(\d+(\.\d+)? MiB of text\)/);
    assert.ok(result.kept < result.whole / 2, `most of it folded unrendered: ${JSON.stringify(result)}`);
    assert.ok(result.parsed < result.length / 4, `what folded was not parsed: ${result.parsed} of ${result.length} characters parsed`);
    assert.ok(result.endsLikeWhole, 'the end is rendered');
    assert.ok(result.equal, 'shown, the answer is whole and equals a one-shot render');
  });

  it('text the host says it still holds counts as waiting: pieces of a flood fold as they come instead of being rendered, and the end renders once nothing more is held', async () => {
    const text = Array.from({ length: 48_000 }, (_, i) => `## Part ${i}\n\nParagraph ${i} of plain words, long enough to make up a large answer quickly.\n`).join('\n');
    const result = await page.evaluate(async (text) => {
      const aq = window.AQ as ProbeGlobal;
      // Pieces of 64 KiB, each rendered as it comes (a page that keeps up): only what the host holds tells a flood.
      const stream = (withQueued: boolean): { parsed: number; out: HTMLElement; renderer: InstanceType<typeof aq.IncrementalRenderer> } => {
        const out = document.createElement('div');
        const renderer = new aq.IncrementalRenderer(out, { scheduleFrame: (callback) => callback() });
        aq.work.parsed = 0;
        for (let at = 0; at < text.length; at += 64 * 1024) {
          const end = Math.min(text.length, at + 64 * 1024);
          renderer.append(text.slice(at, end), withQueued ? text.length - end : 0);
        }
        renderer.finish();
        return { parsed: aq.work.parsed, out, renderer };
      };
      const without = stream(false).parsed;
      const { parsed, out, renderer } = stream(true);
      const fold = out.querySelector('[data-role="fold"]');
      const lastBlock = out.lastElementChild?.outerHTML ?? '';
      const kept = out.innerHTML.length;
      (fold?.querySelector('button[data-action="show-folded"]') as HTMLElement | null)?.click();
      for (let frames = 0; out.querySelector('[data-role="fold"]') !== null && frames < 3000; frames++) await new Promise((resolve) => requestAnimationFrame(resolve));
      const whole = window.AQ.renderMarkdownOnce(text);
      return { without, parsed, length: text.length, folded: fold !== null, kept, whole: whole.length, endsLikeWhole: whole.trimEnd().endsWith(lastBlock), equal: out.innerHTML === whole, done: renderer.done };
    }, text);
    assert.ok(result.without > result.length * 0.9, `without the host's count, every piece is rendered: ${JSON.stringify(result)}`);
    assert.ok(result.folded && result.parsed < result.length / 4, `with it, what the host still held folded unparsed: ${JSON.stringify(result)}`);
    assert.ok(result.kept < result.whole / 4 && result.endsLikeWhole, 'the end is rendered');
    assert.ok(result.done && result.equal, 'shown, the answer is whole and equals a one-shot render');
  });

  it('past 6 Mi characters, the oldest blocks fold into one labelled row that shows them on demand and offers the whole answer as Markdown', async () => {
    const text = Array.from({ length: 90_000 }, (_, i) => `Paragraph ${i} of plain words, long enough to make up a large answer quickly.\n`).join('\n');
    const result = await page.evaluate(async (text) => {
      const out = document.createElement('div');
      document.body.append(out);
      let opened = 0;
      const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (callback) => callback(), openWhole: () => opened++ });
      for (let at = 0; at < text.length; at += 256 * 1024) renderer.append(text.slice(at, at + 256 * 1024));
      renderer.finish();
      const fold = out.querySelector('[data-role="fold"]');
      const first = out.children[0] === fold;
      const label = fold?.textContent ?? '';
      const keptBefore = (out.textContent ?? '').length;
      (fold?.querySelector('button[data-action="open-answer"]') as HTMLElement | null)?.click();
      (fold?.querySelector('button[data-action="show-folded"]') as HTMLElement | null)?.click();
      for (let frames = 0; out.querySelector('[data-role="fold"]') !== null && frames < 3000; frames++) await new Promise((resolve) => requestAnimationFrame(resolve));
      const equal = out.innerHTML === window.AQ.renderMarkdownOnce(text);
      out.remove();
      return { first, label, keptBefore, opened, equal, folded: fold !== null, after: out.querySelector('[data-role="fold"]') === null };
    }, text);
    assert.ok(result.folded && result.first, 'the fold is the answer\'s first row');
    assert.match(result.label, /folded \(\d+(\.\d+)? MiB of text\)/);
    assert.ok(result.keptBefore < text.length * 0.8, `the folded part is out of the page until shown: ${result.keptBefore} of ${text.length}`);
    assert.equal(result.opened, 1, 'Open as Markdown asks for the whole answer');
    assert.ok(result.after && result.equal, 'shown, the answer is whole and equals a one-shot render');
  });
});
