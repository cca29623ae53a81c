// How fast SecretStreamMasker masks an answer stream: 50 MiB of text in 8-byte and 64 KiB chunks,
// with a 40-character key echoed a few times. `npm run compile-tests && node out/bench/secretMask.js`
import { SecretStreamMasker } from '../src/shared/secretMask';

const KEY = 'aq_Bench/"\\%+key-0123456789-abcdefghijXY';
const TOTAL_MIB = 50;

/** One MiB of text: words, punctuation, a little JSON, multibyte characters, and the key (raw and JSON-escaped). */
function sampleMiB(): string {
  const words = ['the', 'answer', 'streams', 'in', 'été', '日本語', '👍', '{"delta":', '"text"}', '\n', 'a\\b', '50%'];
  const parts: string[] = [];
  let length = 0;
  let seed = 7;
  while (length < 1024 * 1024) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const word = seed % 5000 === 0 ? JSON.stringify(KEY) : seed % 5001 === 0 ? KEY : words[seed % words.length];
    parts.push(word, ' ');
    length += word.length + 1;
  }
  return parts.join('').slice(0, 1024 * 1024);
}

function run(chunkSize: number, text: string): number {
  const masker = new SecretStreamMasker([KEY]);
  const started = process.hrtime.bigint();
  let released = 0;
  for (let round = 0; round < TOTAL_MIB; round++) {
    for (let at = 0; at < text.length; at += chunkSize) {
      released += masker.push(text.slice(at, at + chunkSize)).length;
    }
  }
  released += masker.end().length;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (released === 0) throw new Error('nothing released');
  return TOTAL_MIB / seconds;
}

const text = sampleMiB();
for (const [name, size] of [['64 KiB', 64 * 1024], ['8 B', 8]] as const) {
  console.log(`${TOTAL_MIB} MiB in ${name} chunks, 40-character key: ${run(size, text).toFixed(1)} MiB/s`);
}
