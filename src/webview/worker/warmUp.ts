/**
 * What the worker works through once, while the page is idle and before an answer needs it: an
 * answer of every common block, long code, a long paragraph, and a little code in every language
 * it highlights. A worker starts cold; the first long answer made it compile its code while the
 * answer streamed (in a trace of a 10 MiB answer in the workbench: 231 functions compiled and 101
 * optimized in the answer's first 200 ms, on the page's own process, whose threads share the
 * processor with the page's main thread). Worked through like an answer, the same code is
 * compiled and optimized before any answer comes.
 */
import { highlightLanguages } from '../render/code';

/** What the warm-up gives the worker's lanes. */
export interface WarmUpText {
  /** An answer of many sections of common blocks (a blocks lane). */
  readonly blocks: string;
  /** Code, by language: long code in a few common languages, a line in every other one (code lanes). */
  readonly code: ReadonlyArray<{ readonly language: string; readonly text: string }>;
  /** One long paragraph of inline markup (a text lane). */
  readonly paragraph: string;
}

/** Sections of the blocks answer (about 100 KiB). */
const SECTIONS = 160;
/** Lines of each long code sample. */
const CODE_LINES = 400;
/** Sentences of the long paragraph (about 32 KiB). */
const SENTENCES = 320;

const LONG_CODE: Readonly<Record<string, (i: number) => string>> = {
  typescript: (i) => `export function step${i}(value: number, name = 'v${i}'): string { return \`\${name}: \${value * ${i}}\`; } // ${i}`,
  python: (i) => `def step_${i}(value: int, name: str = "v${i}") -> str:  # ${i}\n    return f"{name}: {value * ${i}}"`,
  json: (i) => `{ "id": ${i}, "name": "item ${i}", "tags": ["a", "b"], "ok": ${i % 2 === 0 ? 'true' : 'false'}, "ratio": ${i}.5 },`,
  bash: (i) => `for file in ./src/*.ts; do echo "$file ${i}" | grep -c 'x' >> out_${i}.txt; done # ${i}`,
};

function section(i: number): string {
  const languages = Object.keys(LONG_CODE);
  const language = languages[i % languages.length];
  return [
    `## Section ${i}: a heading with \`code\` and *emphasis*`,
    `A paragraph with **bold**, *emphasis*, \`inline code\`, a [link](https://example.com/${i}), a [reference][docs], ~~struck~~ text and an escaped \\*star\\*. It goes on for a while, as answers do, with numbers like ${i * 37} and a second sentence.`,
    `- an item with **bold** words\n- an item with \`code\` in it\n  - a nested item ${i}\n- [ ] a task`,
    `1. first step ${i}\n2. second step, with a [link](https://example.com/step)`,
    '```' + language + '\n' + Array.from({ length: 4 }, (_, line) => LONG_CODE[language](i * 4 + line)).join('\n') + '\n```',
    `| Column | Value | Note |\n| --- | ---: | :---: |\n| a${i} | ${i} | *note* |\n| b${i} | ${i * 2} | \`code\` |`,
    `> A quote with **bold** and a [link](https://example.com/quote).\n> Its second line ${i}.`,
  ].join('\n\n');
}

export function warmUpText(): WarmUpText {
  const blocks = '[docs]: https://example.com/docs "Docs"\n\n' + Array.from({ length: SECTIONS }, (_, i) => section(i)).join('\n\n') + '\n\nThe end.\n';
  const code = [
    ...Object.entries(LONG_CODE).map(([language, line]) => ({ language, text: Array.from({ length: CODE_LINES }, (_, i) => line(i)).join('\n') + '\n' })),
    ...highlightLanguages()
      .filter((language) => !(language in LONG_CODE))
      .map((language) => ({ language, text: 'const x = "a" + 1; // b\nif (x) { run(x, [1, 2]); }\n' })),
    { language: '', text: 'plain text\n'.repeat(200) },
  ];
  const paragraph = Array.from({ length: SENTENCES }, (_, i) => `Sentence ${i} has **bold**, *emphasis*, \`code\` and a [link](https://example.com/${i}).`).join(' ');
  return { blocks, code, paragraph };
}
