import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { ImageRewriter, rewriteImages } from '../../../../src/host/vscodeChat/images';

const md = new MarkdownIt({ html: true });

/** The rewriter fed `pieces` one after another, as a stream. */
function streamed(pieces: readonly string[]): string {
  const rewriter = new ImageRewriter();
  return pieces.map((piece) => rewriter.push(piece)).join('') + rewriter.end();
}

/** Every way of cutting `text` into two pieces, and into single characters. */
function everySplit(text: string): string[][] {
  const splits = [[...text]];
  for (let at = 0; at <= text.length; at++) splits.push([text.slice(0, at), text.slice(at)]);
  return splits;
}

function images(markdown: string): number {
  const html = md.render(markdown);
  return (html.match(/<img/gi) ?? []).length;
}

describe('lm/images: remote images in answers are shown as links or text', () => {
  const cases: readonly (readonly [string, string])[] = [
    ['![logo](https://evil.example/p.png)', '\\![logo](https://evil.example/p.png)'],
    ['see ![a][ref]\n\n[ref]: https://evil.example/x.png', 'see \\![a][ref]\n\n[ref]: https://evil.example/x.png'],
    ['![ref]\n\n[ref]: https://evil.example/x.png', '\\![ref]\n\n[ref]: https://evil.example/x.png'],
    ['<img src="https://evil.example/x.png">', '&lt;img src="https://evil.example/x.png">'],
    ['<IMG SRC=https://evil.example/x.png>', '&lt;IMG SRC=https://evil.example/x.png>'],
    ['Hello! [link](https://a.example) <b>', 'Hello! [link](https://a.example) <b>'],
    ['already \\![x](https://a.example/x.png)', 'already \\![x](https://a.example/x.png)'],
    ['\\\\![x](https://a.example/x.png)', '\\\\\\![x](https://a.example/x.png)'],
    ['[![x](https://a.example/x.png)](https://b.example)', '[\\![x](https://a.example/x.png)](https://b.example)'],
  ];
  for (const [input, expected] of cases) {
    it(`rewrites ${JSON.stringify(input)}, however it is split`, () => {
      for (const pieces of everySplit(input)) assert.equal(streamed(pieces), expected, JSON.stringify(pieces));
      assert.equal(images(expected), 0);
    });
  }

  it('renders no image for any of them (markdown-it, HTML on)', () => {
    for (const [input] of cases) assert.ok(images(input) > 0 || input.startsWith('Hello') || input.startsWith('already'), input);
  });

  const code: readonly string[] = [
    '`![x](https://a.example/x.png)` and `<img src=x>`',
    '``a ` ![x](https://a.example/x.png) ``',
    '```md\n![x](https://a.example/x.png)\n<img src="y">\n```\n',
    '~~~~\n```\n![x](https://a.example/x.png)\n~~~~\n',
    '```\nunclosed fence ![x](https://a.example/x.png)',
  ];
  for (const input of code) {
    it(`leaves code exactly as it is: ${JSON.stringify(input)}`, () => {
      for (const pieces of everySplit(input)) assert.equal(streamed(pieces), input, JSON.stringify(pieces));
    });
  }

  it('rewrites after a fence closes, and in text after code', () => {
    const input = '```\n![a](u)\n```\n![b](https://a.example/b.png) `![c](u)` ![d](https://a.example/d.png)';
    const expected = '```\n![a](u)\n```\n\\![b](https://a.example/b.png) `![c](u)` \\![d](https://a.example/d.png)';
    for (const pieces of everySplit(input)) assert.equal(streamed(pieces), expected, JSON.stringify(pieces));
  });

  it('treats a backtick that never closes as text, so the image after it is rewritten', () => {
    const inputs = [
      'a ` b ![x](https://evil.example/x.png)',
      'a ` b ![x](https://evil.example/x.png)\n\nnext `code`',
      'a `` b ![x](https://evil.example/x.png) ` c',
      '```js` ![x](https://evil.example/x.png)',
      'a ` b <img src=https://evil.example/x.png>\n```\ncode\n```',
    ];
    for (const input of inputs) {
      assert.ok(images(input) > 0, `the input renders an image: ${input}`);
      for (const pieces of everySplit(input)) {
        const out = streamed(pieces);
        assert.equal(images(out), 0, `${JSON.stringify(pieces)} -> ${out}`);
      }
    }
  });

  it('holds back only a few characters outside code', () => {
    const rewriter = new ImageRewriter();
    assert.equal(rewriter.push('Look at this!'), 'Look at this');
    assert.equal(rewriter.push('[x](https://a.example/x.png) and <i'), '\\![x](https://a.example/x.png) and ');
    assert.equal(rewriter.push('talic>'), '<italic>');
    assert.equal(rewriter.end(), '');
  });

  it('gives everything back at the end', () => {
    assert.equal(rewriteImages('ends with !'), 'ends with !');
    assert.equal(rewriteImages('ends with <im'), 'ends with <im');
    assert.equal(rewriteImages('a ``'), 'a ``');
    assert.equal(rewriteImages('```'), '```');
  });
});
