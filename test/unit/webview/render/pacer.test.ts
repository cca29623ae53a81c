// The frame pacer on its own clock: how a render's budget follows how busy the page is, and how
// long a window of text fits in what is left of it.
import * as assert from 'node:assert/strict';
import { FramePacer, FULL_BUDGET_MS, WindowPace } from '../../../../src/webview/render/pacer';

/** A page on a clock of its own, rendering through one pacer. */
class Page {
  readonly pacer = new FramePacer();
  now = 0;

  /**
   * Renders frame after frame: each render starts `pageMs` after the last one's work ended (what
   * the page did meanwhile) and works for its whole budget. Returns the budgets, in order.
   */
  frames(pageMs: readonly number[]): number[] {
    return pageMs.map((page) => {
      this.now += page;
      const budget = this.pacer.budget(this.now);
      this.pacer.ended(this.now, this.now + budget, true);
      this.now += budget;
      return budget;
    });
  }
}

const times = (count: number, ms: number): number[] => Array.from({ length: count }, () => ms);

describe('FramePacer', () => {
  it('gives an answer\'s first frame the least budget, then the full budget while the page is light', () => {
    assert.deepEqual(new Page().frames([0, 10, 10, 10]), [8, FULL_BUDGET_MS, FULL_BUDGET_MS, FULL_BUDGET_MS]);
  });

  it('keeps the render to what is left of a two-frame (33 ms) frame when the page takes the rest, never under 8 ms', () => {
    // The page takes 20 ms besides the render: the budget settles at 13 ms.
    assert.equal(new Page().frames(times(12, 20)).at(-1), 13);
    // 35 ms (a webview in the workbench while megabytes stream in): the least, 8 ms.
    assert.equal(new Page().frames(times(12, 35)).at(-1), 8);
    // A page that takes 80 ms a frame (a busy workbench): the least, 8 ms.
    assert.equal(new Page().frames(times(12, 80)).at(-1), 8);
  });

  it('follows a page that turns busy and light again, half the way each frame', () => {
    const page = new Page();
    page.frames(times(3, 10));
    const busy = page.frames(times(4, 20));
    // The page's share moves halfway to each new sample: 10 → 15 → 17.5 → 18.75 → 19.375.
    assert.deepEqual(busy, [18, 15.5, 14.25, 13.625]);
    const light = page.frames(times(6, 5));
    assert.ok(light[0] > busy[3] && light.at(-1) === FULL_BUDGET_MS, `and comes back: ${light.join(', ')}`);
  });

  it('learns nothing from a render that asked for no next frame, or from a gap of more than a second', () => {
    const page = new Page();
    page.frames(times(2, 10));
    // The answer paused: its render asked for no next frame; the next render comes 200 ms later.
    page.pacer.budget(page.now);
    page.pacer.ended(page.now, page.now + 5, false);
    page.now += 200;
    assert.equal(page.pacer.budget(page.now), FULL_BUDGET_MS);
    // A hidden page: 5 s between two renders says nothing about the work.
    page.pacer.ended(page.now, page.now + 20, true);
    page.now += 5000;
    assert.equal(page.pacer.budget(page.now), FULL_BUDGET_MS);
  });
});

describe('WindowPace', () => {
  it('gives the least window until one has shown the pace, and never more than asked', () => {
    const pace = new WindowPace(1024);
    assert.equal(pace.fits(20, 4096), 1024);
    assert.equal(pace.fits(20, 512), 512);
    assert.equal(pace.roomFor(0), true);
  });

  it('fits the window to the time left at the pace seen, between the least and the most', () => {
    const pace = new WindowPace(1024);
    // 4,000 characters in 8 ms: 2 ms per thousand.
    pace.learn(8, 4000);
    assert.equal(pace.fits(5, 4096), 2500);
    assert.equal(pace.fits(20, 4096), 4096);
    assert.equal(pace.fits(1, 4096), 1024);
    // A least window (1,024 characters) takes about 2 ms: it fits in 2.1 ms left, not in 2 ms.
    assert.equal(pace.roomFor(2.1), true);
    assert.equal(pace.roomFor(2), false);
  });

  it('moves halfway to each window\'s pace, and learns nothing from a window shorter than the least', () => {
    const pace = new WindowPace(1024);
    pace.learn(4, 2000);
    pace.learn(12, 2000);
    // (2 + 6) / 2 = 4 ms per thousand: 10 ms fit 2,500 characters.
    assert.equal(pace.fits(10), 2500);
    pace.learn(500, 100);
    assert.equal(pace.fits(10), 2500);
  });
});
