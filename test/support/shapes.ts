// Long answers of one shape each (a code block, a list, a table, a quote, a paragraph): the renderer
// streams these block by block. Shared by the browser tests (tens of KiB) and the bench (MiB).
import { seededRandom } from './random';

const WORDS = ['the', 'renderer', 'stream', 'answer', 'function', 'value', 'request', 'token', 'ünïcode', '数据', 'emoji 🚀', 'cache', 'frame'];

/** A sentence with inline markup that closes within a word or two. */
function sentence(random: () => number): string {
  const parts: string[] = [];
  for (let i = 0, n = 6 + Math.floor(random() * 10); i < n; i++) {
    const word = WORDS[Math.floor(random() * WORDS.length)];
    const r = random();
    parts.push(r < 0.06 ? `**${word}**` : r < 0.1 ? `\`${word}()\`` : r < 0.13 ? `[${word}](https://example.com/${i})` : r < 0.15 ? `*${word} ${word}*` : r < 0.16 ? `~~${word}~~` : word);
  }
  return parts.join(' ') + '.';
}

/** Lines of `make(i)` until `bytes` code units. */
function repeat(bytes: number, make: (i: number) => string): string {
  const lines: string[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    const line = make(i);
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** The shapes, each about `bytes` long. */
export function longShapes(bytes: number, seed = 1): Record<string, string> {
  const random = seededRandom(seed);
  const code = (i: number): string =>
    i % 97 === 5 ? `/* a comment that spans\n   several lines ${i}\n */` : i % 13 === 0 ? `  const s${i} = \`template \${i} <b>&amp;</b>\`;` : `  const value${i}: number = await compute(${i}, 'text'); // step ${i}`;
  return {
    fence: 'Intro.\n\n```typescript\n' + repeat(bytes, code) + '```\nAfter the fence, **bold**.\n',
    openFence: '```python\n' + repeat(bytes, (i) => `    value_${i} = compute(${i}, "text")  # step ${i}`),
    tildeFence: '  ~~~~js\n' + repeat(bytes, (i) => (i % 5 === 0 ? `\t  x${i}();` : `   let a${i} = ${i};`)) + '  ~~~~~\n\nnext',
    plainFence: '```\n' + repeat(bytes, (i) => `<line ${i}> & "quoted"`) + '```\n',
    list: repeat(bytes, (i) => (i % 7 === 3 ? `  - nested ${sentence(random)}` : i % 11 === 0 ? `- ${sentence(random)}\n  continued ${i}` : `- ${sentence(random)}`)) + '\nAfter the list.\n',
    looseLate: repeat(bytes, (i) => `* item ${i} ${sentence(random)}`) + '\n* loose now\n',
    ordered: repeat(bytes, (i) => `${i + 3}. ${sentence(random)}`),
    table: '| Left | Center | Right |\n| :--- | :----: | ----: |\n' + repeat(bytes, (i) => (i % 9 === 0 ? `| only ${i} |` : `| ${sentence(random)} | \`a | b\` ${i} | **${i}** |`)) + '\nafter table\n',
    quote: repeat(bytes, (i) => (i % 6 === 5 ? '>' : i % 17 === 0 ? `> - quoted item ${i}` : `> ${sentence(random)}`)) + 'lazy line\n\nafter quote\n',
    paragraph: Array.from({ length: Math.ceil(bytes / 60) }, () => sentence(random)).join(' ').slice(0, bytes) + '\n\nNext paragraph.\n',
    wrapped: repeat(bytes, () => sentence(random)) + '\n',
    strayBacktick: 'Start ` stray ' + Array.from({ length: Math.ceil(bytes / 60) }, () => sentence(random)).join(' ') + ' end`.\n',
    becomesHeading: repeat(bytes, () => sentence(random)) + '---\n',
    blocks: repeat(bytes, (i) =>
      [`## Part ${i}\n`, `${sentence(random)}\n`, '```ts\nconst a = 1 < 2;\n```\n', `1. ${sentence(random)}\n2. two\n`, `> ${sentence(random)}\n`, `| a | b |\n| - | - |\n| ${i} | x |\n`][i % 6],
    ),
    references: repeat(bytes, (i) => `- see [ref ${i % 5}] and [link](https://example.com/${i})`) + '\n[REF 3]: https://example.com/three\n\n> [ref 1]: https://example.com/one\n',
  };
}
