// How fast the key masker reads an answer (`npm run bench mask`): ordinary text in 64 KiB and 8-byte
// chunks with a key shaped like the service's (`aq_` and 32 URL-safe characters) and one full of the
// characters that start escapes, then every hostile shape known at 1× and 2× its size, where time
// must grow linearly (the masker reads each character a bounded number of times, whatever the text).
import { maskSecrets, SecretStreamMasker } from '../src/shared/secretMask';
import type { BenchRow } from './core';

const SERVICE_KEY = 'aq_Xk3-9QpL2_vX7mN0bR4tY8wE1uI5oAz';
const ESCAPING_KEY = 'aq_Bench/"\\%+key-0123456789-abcdefghijXY';
const TOTAL_MIB = 20;
/** The size of the hostile texts at 1× (2× is twice this). */
const HOSTILE_BYTES = 2 * 1024 * 1024;
/** How many times each hostile text is masked; the fastest counts (the least disturbed by a busy machine). */
const HOSTILE_ROUNDS = 7;
/** 2× the input may take at most this many times as long (linear, with room for noise). */
const LINEAR_RATIO = 2.2;

/** One MiB of text: words, punctuation, a little JSON, multibyte characters, and the key (raw and JSON-escaped). */
function sampleMiB(key: string): string {
  const words = ['the', 'answer', 'streams', 'in', 'été', '日本語', '👍', '{"delta":', '"text"}', '\n', 'a\\b', '50%', 'R&D'];
  const parts: string[] = [];
  let length = 0;
  let seed = 7;
  while (length < 1024 * 1024) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const word = seed % 5000 === 0 ? JSON.stringify(key) : seed % 5001 === 0 ? key : words[seed % words.length];
    parts.push(word, ' ');
    length += word.length + 1;
  }
  return parts.join('').slice(0, 1024 * 1024);
}

function throughput(key: string, chunkSize: number, text: string): number {
  const masker = new SecretStreamMasker([key]);
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

/** The hostile shapes: each a unit repeated, plus a near-miss of the key (7 of its characters, again and again). */
const HOSTILE: readonly (readonly [string, string])[] = [
  ['backslashes', '\\'],
  ['% runs', '%'],
  ['%25 runs', '%25'],
  ['&# runs', '&#'],
  ['&amp; runs', '&amp;'],
  ['\\u00 runs', '\\u00'],
  ['near-misses of the key', `${SERVICE_KEY.slice(0, 7)}\\`],
];

/**
 * The fastest of a few maskings of `text` (whole, or in 4 KiB stream chunks), in ms of the process's
 * processor time: what another busy process on the machine takes from it does not count.
 */
function fastest(text: string, streamed: boolean): number {
  let best = Infinity;
  for (let round = 0; round < HOSTILE_ROUNDS; round++) {
    const started = process.cpuUsage();
    if (streamed) {
      const masker = new SecretStreamMasker([SERVICE_KEY]);
      for (let at = 0; at < text.length; at += 4096) masker.push(text.slice(at, at + 4096));
      masker.end();
    } else {
      maskSecrets(text, [SERVICE_KEY]);
    }
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/**
 * The masker's throughput and its growth on hostile text. Goals: ordinary text in 64 KiB chunks at
 * 30 MiB/s or more with a service-shaped key (a 10 MiB answer costs the extension host a third of a
 * second, spread over its stream) and 8 MiB/s with a key full of escape characters (it is read four
 * ways), 8-byte chunks at 1 MiB/s or more (ten times the fastest stream the Chat benches send), and
 * every hostile shape at 2× its size in at most 2.2× the time.
 */
export function runMaskBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [keyName, key] of [['service-shaped key', SERVICE_KEY], ['key full of escape characters', ESCAPING_KEY]] as const) {
    const text = sampleMiB(key);
    for (const [name, size, goal] of [['64 KiB', 64 * 1024, key === SERVICE_KEY ? 30 : 8], ['8 B', 8, 1]] as const) {
      const rate = throughput(key, size, text);
      rows.push({ name: `SecretStreamMasker: ${TOTAL_MIB} MiB of text in ${name} chunks, ${keyName}`, value: `${rate.toFixed(1)} MiB/s`, goal: `≥ ${goal} MiB/s`, ok: rate >= goal });
    }
  }
  for (const [name, unit] of HOSTILE) {
    for (const streamed of [false, true]) {
      const one = unit.repeat(Math.ceil(HOSTILE_BYTES / unit.length));
      const single = fastest(one, streamed);
      const double = fastest(one + one, streamed);
      const ratio = double / single;
      rows.push({
        name: `mask ${name}, ${streamed ? 'streamed in 4 KiB chunks' : 'whole'}: 2 MiB, then 4 MiB`,
        value: `${single.toFixed(1)} ms, ${double.toFixed(1)} ms (×${ratio.toFixed(2)})`,
        goal: `×${LINEAR_RATIO} or less`,
        ok: ratio <= LINEAR_RATIO,
      });
    }
  }
  return Promise.resolve(rows);
}
