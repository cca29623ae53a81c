// The frame pacer on its own clock: how a render's budget follows how busy the page is.
import * as assert from 'node:assert/strict';
import { FramePacer, FULL_BUDGET_MS } from '../../src/webview/render/pacer';

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

  it('keeps the render to what is left of a 50 ms frame when the page takes the rest, never under 8 ms', () => {
    // The page takes 35 ms besides the render: the budget settles at 15 ms.
    assert.equal(new Page().frames(times(12, 35)).at(-1), 15);
    // A page that takes 80 ms a frame (a busy workbench): the least, 8 ms.
    assert.equal(new Page().frames(times(12, 80)).at(-1), 8);
  });

  it('follows a page that turns busy and light again, half the way each frame', () => {
    const page = new Page();
    page.frames(times(3, 10));
    const busy = page.frames(times(4, 40));
    // The page's share moves halfway to each new sample: 10 → 25 → 32.5 → 36.25 → 38.125.
    assert.deepEqual(busy, [FULL_BUDGET_MS, 17.5, 13.75, 11.875]);
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
