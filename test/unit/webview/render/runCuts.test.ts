import * as assert from 'node:assert/strict';
import { closedInline, LONG_PARAGRAPH, runEnd, runEnds } from '../../../../src/webview/render/runCuts';

/** A paragraph of sentences, with some emphasis, links and code spans, `bytes` long. */
function paragraph(bytes: number, seed = 1): string {
  let state = seed;
  const next = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const words = ['token', 'cache', '**bold words**', '*leaning*', '`a | b`', '[a link](https://example.com)', 'value', '数据', 'stream', 'frame'];
  let text = '';
  while (text.length < bytes) {
    const sentence = Array.from({ length: 4 + next(10) }, () => words[next(words.length)]).join(' ');
    text += sentence[0].toUpperCase() + sentence.slice(1) + (next(5) === 0 ? '!\n' : '. ');
  }
  return text.slice(0, bytes).trimEnd();
}

/** The ends a stream finds when the text comes in `pieces`, deciding each run as soon as it can. */
function streamedEnds(text: string, pieces: readonly number[]): number[] {
  const ends: number[] = [];
  let from = 0;
  let known = 0;
  for (const piece of pieces) {
    known = Math.min(text.length, known + piece);
    for (;;) {
      const end = runEnd(text, from, known, false);
      if (typeof end !== 'number') break;
      ends.push(end);
      from = end;
    }
  }
  for (;;) {
    const end = runEnd(text, from, text.length, true);
    from = end === 'rest' || end === 'later' ? text.length : end;
    ends.push(from);
    if (from >= text.length) return ends;
  }
}

describe('A long paragraph cut into runs', () => {
  it('cuts where its whole text is cut, however the text arrives', () => {
    const text = paragraph(200_000, 3);
    const whole = runEnds(text);
    assert.ok(whole.length > 10, `${whole.length} runs`);
    for (const pieces of [[text.length], Array(400).fill(500), Array(2000).fill(101), [1, 7000, 3, 50_000, 9, 150_000]]) {
      assert.deepEqual(streamedEnds(text, pieces), whole);
    }
  });

  it('ends runs at a sentence where it can, never inside emphasis, a link or a code span', () => {
    const text = paragraph(100_000, 5);
    let from = 0;
    for (const end of runEnds(text).slice(0, -1)) {
      const run = text.slice(from, end);
      assert.ok(closedInline(run), `run at ${from} leaves something open: ${JSON.stringify(run.slice(-60))}`);
      assert.match(text.slice(0, end), /[.!?]\s+$/, 'a run ends after a sentence');
      from = end;
    }
  });

  it('bounds every run, even when something stays open or no word ends', () => {
    const open = '*' + paragraph(100_000, 7).replace(/[*`[\]_~]/g, 'x');
    const word = 'x'.repeat(50_000) + '😀'.repeat(30_000);
    for (const text of [open, word]) {
      const ends = runEnds(text);
      let from = 0;
      for (const end of ends) {
        assert.ok(end - from <= 4 * 4096 + 1024 + 1, `a run of ${end - from}`);
        assert.ok(!/[\ud800-\udbff]$/.test(text.slice(from, end)), 'no run ends inside a surrogate pair');
        from = end;
      }
      assert.equal(ends.at(-1), text.length);
    }
  });

  it('leaves the last few KiB as one run', () => {
    const text = paragraph(LONG_PARAGRAPH + 100, 9);
    const ends = runEnds(text);
    assert.equal(ends.at(-1), text.length);
    assert.ok(text.length - (ends.at(-2) ?? 0) < 2 * 4096 + 1024, 'the last run is under two steps');
  });
});
