import { openProbePage } from '../support/browser';
import { longShapes } from '../support/shapes';
describe('timing', function () {
  this.timeout(600000);
  it('times', async () => {
    const probe = await openProbePage();
    const shapes = longShapes(1024 * 1024, 1);
    const cdp = await probe.page.context().newCDPSession(probe.page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    for (const name of ['paragraph']) {
      const r = await probe.page.evaluate((text) => {
        const out = document.createElement('div');
        document.body.append(out);
        const renderer = new window.AQ.IncrementalRenderer(out, { scheduleFrame: (c) => c() });
        const times: number[] = [];
        for (let at = 0; at < text.length; at += 17476) {
          const t0 = performance.now();
          renderer.append(text.slice(at, at + 17476));
          times.push(Math.round(performance.now() - t0));
        }
        const t0 = performance.now();
        renderer.finish();
        const end = Math.round(performance.now() - t0);
        return { times: times.join(','), end, nodes: out.querySelector('p')?.childNodes.length, plain: out.innerHTML.length };
      }, shapes[name]);
      console.log(name, JSON.stringify(r));
    }
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }> } };
    const self = new Map<string, number>();
    for (const node of profile.nodes) {
      const key = `${node.callFrame.functionName || '(anon)'} ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber}`;
      self.set(key, (self.get(key) ?? 0) + node.hitCount);
    }
    console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v} ${k}`).join('\n'));
    await probe.close();
  });
});
