import * as assert from 'node:assert/strict';
import { SerialSections } from '../../../../src/host/output/serialSections';

/** A stream of text as the output channel would receive it. */
function channel(): { sections: SerialSections; text: () => string; writes: string[] } {
  const writes: string[] = [];
  return { sections: new SerialSections((text) => writes.push(text)), text: () => writes.join(''), writes };
}

describe('SerialSections (answers sharing the output channel)', () => {
  it('writes a lone answer live, piece by piece', () => {
    const { sections, writes } = channel();
    const a = sections.open();
    a.begin('[A]\n');
    a.append('one ');
    assert.deepEqual(writes, ['[A]\n', 'one '], 'each piece reaches the channel as it arrives');
    a.append('two');
    a.end('\n[/A]\n');
    assert.deepEqual(writes, ['[A]\n', 'one ', 'two', '\n[/A]\n']);
    assert.equal(sections.size, 0);
  });

  it('keeps a second answer that streams at the same time out of the first, then writes it whole', () => {
    const { sections, text } = channel();
    const a = sections.open();
    const b = sections.open();
    a.begin('[A]\n');
    b.begin('[B]\n');
    for (let i = 0; i < 100; i++) {
      a.append(`a${i} `);
      b.append(`b${i} `);
    }
    const aBody = Array.from({ length: 100 }, (_, i) => `a${i} `).join('');
    const bBody = Array.from({ length: 100 }, (_, i) => `b${i} `).join('');
    assert.equal(text(), `[A]\n${aBody}`, 'nothing of B shows while A streams');
    a.end('\n[/A]\n');
    assert.equal(text(), `[A]\n${aBody}\n[/A]\n[B]\n${bBody}`, 'B follows A at once, with what it buffered');
    b.append('live');
    assert.ok(text().endsWith('live'), 'B now writes live');
    b.end('\n[/B]\n');
    assert.equal(text(), `[A]\n${aBody}\n[/A]\n[B]\n${bBody}live\n[/B]\n`);
  });

  it('an answer that finishes while it waits is written in one piece when its turn comes', () => {
    const { sections, text, writes } = channel();
    const a = sections.open();
    const b = sections.open();
    const c = sections.open();
    a.begin('[A]');
    b.begin('[B]');
    c.begin('[C]');
    c.append('c');
    b.append('b');
    b.end('[/B]');
    c.end('[/C]');
    assert.equal(text(), '[A]', 'B and C wait for A');
    a.append('a');
    a.end('[/A]');
    assert.equal(text(), '[A]a[/A][B]b[/B][C]c[/C]');
    assert.deepEqual(writes.slice(-2), ['[B]b[/B]', '[C]c[/C]'], 'each waiting answer arrives whole');
    assert.equal(sections.size, 0);
  });

  it('an answer that fails before it starts still leaves its footer and lets the next one through', () => {
    const { sections, text } = channel();
    const a = sections.open();
    const b = sections.open();
    b.begin('[B]');
    b.append('b');
    a.end('[A failed]');
    assert.equal(text(), '[A failed][B]b');
  });

  it('ignores a second begin, a second end and text after the end', () => {
    const { sections, text } = channel();
    const a = sections.open();
    a.begin('[A]');
    a.begin('[A again]');
    a.append('a');
    a.end('[/A]');
    a.append('late');
    a.end('[/A again]');
    assert.equal(text(), '[A]a[/A]');
  });
});
