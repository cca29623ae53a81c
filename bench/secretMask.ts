// How fast SecretStreamMasker masks an answer stream: 50 MiB of text in 8-byte and 64 KiB chunks,
// with a 40-character key echoed a few times (`npm run bench mask`).
import { SecretStreamMasker } from '../src/shared/secretMask';
import type { BenchRow } from './core';

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

/**
 * The masker's throughput. Goals: a 50 MiB answer in 64 KiB chunks is masked in a quarter of a
 * second (200 MiB/s), and 8-byte chunks go at over a million bytes a second (more than ten times
 * the 10,000 chunks a second of the fastest stream the Chat benches send).
 */
export function runMaskBench(): Promise<BenchRow[]> {
  const text = sampleMiB();
  const rows: BenchRow[] = [];
  for (const [name, size, goal] of [['64 KiB', 64 * 1024, 200], ['8 B', 8, 1]] as const) {
    const rate = run(size, text);
    rows.push({ name: `SecretStreamMasker: ${TOTAL_MIB} MiB in ${name} chunks, 40-character key`, value: `${rate.toFixed(1)} MiB/s`, goal: `≥ ${goal} MiB/s`, ok: rate >= goal });
  }
  return Promise.resolve(rows);
}
