import * as assert from 'node:assert/strict';
import { CodeChunks, highlightCode } from '../../../../src/webview/render/code';

/** A TypeScript file of `lines` lines, long enough for many chunks. */
function typescript(lines: number): string {
  return Array.from({ length: lines }, (_, n) => `export function f${n}(a: number): string { return \`\${a} + ${n}\`; } // note ${n}\n`).join('');
}

describe('a code block made in chunks (webview/render/code.ts)', () => {
  it('takes at most the chunks asked for, and chunk by chunk makes exactly the markup of the whole', () => {
    const code = typescript(800);
    const chunks = new CodeChunks('typescript');
    chunks.push(code);
    const taken: string[] = [];
    for (let html = chunks.take(true, Number.POSITIVE_INFINITY, 1); html !== ''; html = chunks.take(true, Number.POSITIVE_INFINITY, 1)) taken.push(html);
    assert.ok(taken.length > 4, `several chunks (${taken.length})`);
    for (const html of taken) assert.equal(html.split('<span class="aq-code-chunk">').length - 1, 1, 'one chunk a call');
    assert.equal(taken.join(''), highlightCode(code, 'typescript'));
    assert.equal(chunks.pending, '');
  });

  it('a deadline already past takes nothing and loses nothing', () => {
    const code = typescript(50);
    const chunks = new CodeChunks('typescript');
    chunks.push(code);
    assert.equal(chunks.take(true, performance.now() - 1), '');
    assert.equal(chunks.pending, code);
    assert.equal(chunks.take(true), highlightCode(code, 'typescript'));
  });
});
