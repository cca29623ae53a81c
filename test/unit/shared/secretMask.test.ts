import * as assert from 'node:assert/strict';
import { getJson } from '../../../src/client/getClient';
import { HttpStatusError } from '../../../src/client/errors';
import { ExchangeRecorder, RAW_BODY_CAP_BYTES, REQUEST_BODY_CAP_BYTES, TEXT_CAP_BYTES, type ExchangeStart } from '../../../src/client/history';
import { plainExcerpt } from '../../../src/client/failureText';
import { sendQuery } from '../../../src/client/queryClient';
import { maskCredentials, maskKey, maskSecrets, PIECE_MIN_CHARS, SecretStreamMasker } from '../../../src/shared/secretMask';
import { startServer } from '../../support/loopback';
import { seededRandom } from '../../support/random';

type Rng = () => number;
const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];

/** A key of 20–64 printable ASCII characters, often with the ones that encode differently. */
function randomKey(rng: Rng): string {
  const length = int(rng, 20, 64);
  const chars: string[] = [];
  for (let i = 0; i < length; i++) {
    chars.push(String.fromCharCode(int(rng, 0x21, 0x7e)));
  }
  for (const special of ['/', '"', '\\', '%', '+']) {
    if (rng() < 0.4) chars[int(rng, 0, length - 1)] = special;
  }
  return chars.join('');
}

const FILLER = ['lorem', 'ipsum', 'the', 'answer', 'is', 'été', '日本語', '👍', 'x=1;', '(a, b)', '\n', '  ', '%', '\\n', '{"k":', '}', 'Q'];

function randomText(rng: Rng, maxWords: number): string {
  const words: string[] = [];
  for (let i = int(rng, 0, maxWords); i > 0; i--) words.push(pick(rng, FILLER));
  return words.join(rng() < 0.5 ? ' ' : '');
}

const hex = (code: number, width: number, rng: Rng): string => {
  const digits = code.toString(16).padStart(width, '0');
  return rng() < 0.5 ? digits : digits.toUpperCase();
};

/** One character as a service might escape it: raw, backslashed, \uXXXX, \xXX, %XX, %25XX, &#NN;, &#xHH;. */
function encodeChar(char: string, rng: Rng): string {
  const code = char.charCodeAt(0);
  const slashes = '\\'.repeat(int(rng, 1, 3));
  switch (int(rng, 0, 8)) {
    case 7:
      return `&#${code};`;
    case 8:
      return `&#x${hex(code, 2, rng)};`;
    case 0:
      return char;
    case 1:
      return slashes + char;
    case 2:
      return `\\u${hex(code, 4, rng)}`;
    case 3:
      return `${slashes}u${hex(code, 4, rng)}`;
    case 4:
      return `\\x${hex(code, 2, rng)}`;
    case 5:
      return `%${hex(code, 2, rng)}`;
    default:
      return `%25${hex(code, 2, rng)}`;
  }
}

/** The key as a service might echo it, and the name of the encoding (for failure messages). */
function encodeKey(key: string, rng: Rng): [string, string] {
  const unicode = (all: boolean): string => Array.from(key, (c) => (all || rng() < 0.5 ? `\\u${hex(c.charCodeAt(0), 4, rng)}` : c)).join('');
  switch (int(rng, 0, 11)) {
    case 10:
      // As Go's html/template writes it: `+` and quotes as numeric references.
      return ['Go HTML', key.replace(/[+"'&<>]/g, (c) => `&#${c.charCodeAt(0)};`)];
    case 11:
      return ['HTML hex', Array.from(key, (c) => `&#x${hex(c.charCodeAt(0), 2, rng)};`).join('')];
    case 0:
      return ['raw', key];
    case 1:
      return ['JSON', JSON.stringify(key)];
    case 2:
      return ['JSON twice', JSON.stringify(JSON.stringify(key))];
    case 3:
      return ['\\u all', unicode(true)];
    case 4:
      return ['\\u some', unicode(false)];
    case 5:
      return ['URL', encodeURIComponent(key)];
    case 6:
      return ['URL twice', encodeURIComponent(encodeURIComponent(key))];
    case 7:
      return ['URL of JSON', encodeURIComponent(JSON.stringify(key))];
    case 8:
      return ['JSON of URL', JSON.stringify(encodeURIComponent(key))];
    default:
      return ['mixed', Array.from(key, (c) => encodeChar(c, rng)).join('')];
  }
}

/** Undoes every escape the tests use (several rounds), then drops backslashes: what a reader could recover. */
function decodeAll(text: string): string {
  let out = text;
  for (let round = 0; round < 3; round++) {
    out = out
      .replace(/&#x([0-9a-f]{1,6});?/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/&#([0-9]{1,7});?/g, (_, d: string) => String.fromCharCode(parseInt(d, 10)))
      .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/\\+u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/\\+x([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return out.replace(/\\/g, '');
}

/** The first 8-character piece of the key found in the text, raw or once decoded, if any. */
function leakedPiece(text: string, key: string): string | undefined {
  for (let i = 0; i + 8 <= key.length; i++) {
    const piece = key.slice(i, i + 8);
    if (text.includes(piece)) return piece;
  }
  const decoded = decodeAll(text);
  const bare = key.replace(/\\/g, '');
  for (let i = 0; i + 8 <= bare.length; i++) {
    const piece = bare.slice(i, i + 8);
    if (decoded.includes(piece)) return piece;
  }
  return undefined;
}

/** Every 8-character piece of the key found in the text as it is. */
function keyPiecesIn(text: string, key: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= key.length; i++) if (text.includes(key.slice(i, i + 8))) found.push(key.slice(i, i + 8));
  return found;
}

function assertNoPiece(text: string, key: string, what: string): void {
  const piece = leakedPiece(text, key);
  assert.equal(piece, undefined, `${what}: holds ${JSON.stringify(piece)} of the key ${JSON.stringify(key)} in ${JSON.stringify(text.length > 400 ? `…${text.slice(-400)}` : text)}`);
}

/** Cuts a text into pieces at random places (sometimes one character at a time). */
function randomChunks(text: string, rng: Rng): string[] {
  if (rng() < 0.1) return Array.from({ length: text.length }, (_, i) => text[i]);
  const cuts = new Set<number>();
  for (let i = int(rng, 0, 6); i > 0; i--) cuts.add(int(rng, 0, text.length));
  const points = [0, ...[...cuts].sort((a, b) => a - b), text.length];
  const chunks: string[] = [];
  for (let i = 1; i < points.length; i++) chunks.push(text.slice(points[i - 1], points[i]));
  return chunks;
}

function streamed(chunks: readonly string[], secrets: readonly string[]): string {
  const masker = new SecretStreamMasker(secrets);
  return chunks.map((chunk) => masker.push(chunk)).join('') + masker.end();
}

const START: ExchangeStart = {
  applicationId: 'app',
  applicationLabel: 'App',
  surface: 'command',
  method: 'POST',
  url: 'http://127.0.0.1:1/api/applications/app/query',
  headers: { 'Content-Type': 'application/json', Authorization: 'Bearer placeholder' },
  body: '{"query":"hi"}',
};

describe('secretMask', () => {
  const KEY = 'aq_Sk/"\\%+Zr8-TEST-key-value-W9xY';

  describe('maskSecrets', () => {
    it('masks a key raw, JSON-escaped, \\u-escaped, URL-encoded and double-encoded, as •••• and its last 4', () => {
      const forms = [
        KEY,
        JSON.stringify(KEY),
        JSON.stringify(JSON.stringify(KEY)),
        Array.from(KEY, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
        Array.from(KEY, (c) => `\\\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join(''),
        encodeURIComponent(KEY),
        encodeURIComponent(encodeURIComponent(KEY)).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
        KEY.replace(/\//g, '\\/'),
      ];
      for (const form of forms) {
        const masked = maskSecrets(`before ${form} after`, [KEY]);
        assert.match(masked, /^before "?(\\")?••••W9xY(\\")?"? after$/, form);
      }
    });

    it('keeps the mask exactly, whatever `$` patterns the key ends with', () => {
      const key = 'abcdefghij-key$&$1';
      assert.equal(maskSecrets(`x ${key} y`, [key]), 'x ••••$&$1 y');
      assert.equal(maskKey(key), '••••$&$1');
    });

    it('masks a key shorter than 12 as •••• alone, leaves keys shorter than 4 and other text alone', () => {
      assert.equal(maskSecrets('a sk-1234 b', ['sk-1234']), 'a •••• b');
      assert.equal(maskSecrets('abc abc', ['abc', '']), 'abc abc');
      assert.equal(maskSecrets('nothing here', [KEY]), 'nothing here');
    });

    it('masks any Bearer token not masked yet in request text, and leaves a masked one', () => {
      assert.equal(maskCredentials('Authorization: Bearer sk-live-abcdefghijkl1234'), 'Authorization: Bearer ••••1234');
      assert.equal(maskCredentials('Bearer ••••1234'), 'Bearer ••••1234');
    });

    it('leaves the word Bearer in an answer as it is (only known keys are masked there)', () => {
      assert.equal(maskSecrets('The Bearer scheme sends a token.', [KEY]), 'The Bearer scheme sends a token.');
    });

    it('masks a piece of 8 or more characters of a key anywhere, and no shorter piece', () => {
      assert.equal(maskSecrets(`see ${KEY.slice(0, 20)} here`, [KEY]), 'see •••• here');
      assert.equal(maskSecrets(`mid ${KEY.slice(9, 17)} end`, [KEY]), 'mid •••• end');
      assert.equal(maskSecrets(`tail ${KEY.slice(-10)}.`, [KEY]), `tail ${maskKey(KEY)}.`);
      assert.equal(maskSecrets(`short ${KEY.slice(9, 9 + PIECE_MIN_CHARS - 1)} end`, [KEY]), `short ${KEY.slice(9, 9 + PIECE_MIN_CHARS - 1)} end`);
    });

    it('masks a key written as HTML character references: numeric, hexadecimal, named, and escaped once more', () => {
      const key = 'gen+Key/Abc=123456789';
      const forms = [
        key.replace('+', '&#43;'),
        Array.from(key, (c) => `&#${c.charCodeAt(0)};`).join(''),
        Array.from(key, (c) => `&#X${c.charCodeAt(0).toString(16).toUpperCase()};`).join(''),
        key.replace('+', '&plus;').replace('/', '&sol;').replace('=', '&equals;'),
        key.replace('+', '&amp;#43;'),
        Array.from(key, (c) => `&#000${c.charCodeAt(0)};`).join(''),
      ];
      for (const form of forms) assert.equal(maskSecrets(`<p>${form}</p>`, [key]), `<p>${maskKey(key)}</p>`, form);
    });

    it('never adds characters of a key the text did not hold: a text ending in a key\'s first six characters stays as it is', () => {
      const text = `your key should start with ${KEY.slice(0, 6)}`;
      assert.equal(maskSecrets(text, [KEY]), text);
      assert.equal(streamed([text.slice(0, 20), text.slice(20)], [KEY]), text);
    });

    it('masks a key that holds another key whole', () => {
      assert.equal(maskSecrets('x abcd-efgh-ijkl-mnop y', ['abcd', 'abcd-efgh-ijkl-mnop']), 'x ••••mnop y');
    });
  });

  describe('SecretStreamMasker', () => {
    it('masks a key split at every position across two chunks, releasing the text before it at once', () => {
      for (const [name, form] of [['raw', KEY], ['JSON', JSON.stringify(KEY).slice(1, -1)], ['URL', encodeURIComponent(KEY)]] as const) {
        const text = `answer: ${form}.`;
        const at = text.indexOf(form);
        for (let split = 0; split <= text.length; split++) {
          const masker = new SecretStreamMasker([KEY]);
          const first = masker.push(text.slice(0, split));
          const out = first + masker.push(text.slice(split)) + masker.end();
          assert.equal(out, maskSecrets(text, [KEY]), `${name} split at ${split}`);
          // Before the key's encoded form starts nothing waits; inside it, everything before it was released.
          if (split > at && split < at + form.length) assert.equal(first, text.slice(0, at), `${name} split at ${split}: released`);
          assertNoPiece(first, KEY, `${name} split at ${split}`);
        }
      }
    });

    it('releases text that cannot become part of a key at once, and holds only a piece that may still grow', () => {
      const masker = new SecretStreamMasker([KEY]);
      assert.equal(masker.push('Hello, world! 日本語 👍'), 'Hello, world! 日本語 👍');
      assert.equal(masker.push('the key starts aq_S'), 'the key starts ');
      assert.equal(masker.push('! not'), 'aq_S! not');
      assert.equal(masker.push(' a backslash \\'), ' a backslash ');
      assert.equal(masker.push('n then'), '\\n then');
      assert.equal(masker.push(' percent %2'), ' percent ');
      assert.equal(masker.push('0 done'), '%20 don');
      assert.equal(masker.end(), 'e');
      const other = new SecretStreamMasker([KEY]);
      assert.equal(other.end(), '');
    });

    it('masks a stream that ends inside a key once 8 of its characters came, and leaves fewer as they are', () => {
      for (let k = 1; k < KEY.length; k++) {
        for (const [raw, encode] of [[true, (s: string) => s], [false, (s: string) => JSON.stringify(s).slice(1, -1)], [false, (s: string) => encodeURIComponent(s)]] as const) {
          const masker = new SecretStreamMasker([KEY]);
          const out = masker.push(`text ${encode(KEY.slice(0, k))}`) + masker.end();
          // Backslashes are read as escaping, so a piece counts without them, unless the text holds the key's own characters as they are.
          const piece = raw ? k : KEY.slice(0, k).replace(/\\/g, '').length;
          if (piece >= PIECE_MIN_CHARS) assert.equal(out, 'text ••••', `cut after ${k}`);
          else assert.equal(out, `text ${encode(KEY.slice(0, k))}`, `cut after ${k}`);
          assertNoPiece(out, KEY, `cut after ${k}`);
          assert.equal(maskSecrets(`text ${encode(KEY.slice(0, k))}`, [KEY]), out);
        }
      }
    });

    it('keeps multibyte text around a key intact, split at every code unit', () => {
      const text = `日本語👍é ${JSON.stringify(KEY)} 👍🏽 fin`;
      const expected = maskSecrets(text, [KEY]);
      assert.ok(expected.startsWith('日本語👍é "••••W9xY" 👍🏽'));
      for (let a = 0; a <= text.length; a += 3) {
        for (let b = a; b <= text.length; b += 5) {
          assert.equal(streamed([text.slice(0, a), text.slice(a, b), text.slice(b)], [KEY]), expected, `split at ${a}, ${b}`);
        }
      }
    });

    it('a silence releases what it held (fewer than 8 characters of a key), and a piece that grows on is masked from there', () => {
      const masker = new SecretStreamMasker([KEY]);
      assert.equal(masker.push('it says aq_Sk'), 'it says ');
      assert.equal(masker.releaseHeld(), 'aq_Sk', 'a stalled stream shows all that arrived');
      // The key goes on: no 8 characters of it ever show together.
      const rest = masker.push(`${KEY.slice(5)} done`) + masker.end();
      assert.equal(rest, `${maskKey(KEY)} done`);
      assertNoPiece(`it says aq_Sk${rest}`, KEY, 'released, then continued');
      // Ordinary text after a silence is unchanged.
      const plainMasker = new SecretStreamMasker([KEY]);
      assert.equal(plainMasker.push('the ref') + plainMasker.releaseHeld() + plainMasker.push('und policy') + plainMasker.end(), 'the refund policy');
    });

    it('passes everything through unchanged when it knows no key', () => {
      const masker = new SecretStreamMasker([]);
      assert.equal(masker.push('Bearer abc \\'), 'Bearer abc \\');
      assert.equal(masker.end(), '');
    });
  });

  describe('property: no 8-character piece of a key survives any encoding, chunking or cut', function () {
    this.timeout(20_000);
    const CASES = 3000;

    it(`${CASES} seeded cases: maskSecrets, the stream masker, cuts, and the recorded exchange`, () => {
      const rng = seededRandom(0x5eed);
      let key = '';
      for (let n = 0; n < CASES; n++) {
        // A new key every third case (compiling one costs more than masking with it); each case has its own encoding, text and chunks.
        if (n % 3 === 0) key = randomKey(rng);
        // The key's own mask (its last characters), unless it holds `%` and hex digits, which a URL-encoding
        // can make ambiguous at its end: then a mask of its pieces, and still no piece of 8 left.
        const mask = /%[0-9a-f]/i.test(key) ? '••••' : maskKey(key);
        const [encoding, echoed] = encodeKey(key, rng);
        const text = `${randomText(rng, 20)}${rng() < 0.5 ? ' ' : ''}${echoed}${rng() < 0.2 ? '' : ` ${randomText(rng, 20)}`}`;
        const what = `case ${n} (${encoding})`;

        const whole = maskSecrets(text, [key]);
        assertNoPiece(whole, key, `${what} maskSecrets`);
        assert.ok(whole.includes(mask), `${what}: the mask ${mask} is missing from ${JSON.stringify(whole)}`);
        for (let cut = 0; cut <= whole.length; cut += 7) {
          assertNoPiece(whole.slice(0, cut), key, `${what} maskSecrets cut at ${cut}`);
        }

        const chunks = randomChunks(text, rng);
        const out = streamed(chunks, [key]);
        assertNoPiece(out, key, `${what} stream`);
        // A key ending in a backslash may take more or fewer of the backslashes after it, depending on where the chunks end.
        if (!key.endsWith('\\')) assert.equal(out, whole, `${what}: the stream masked differently from the whole text (key ${JSON.stringify(key)}, chunks ${JSON.stringify(chunks)})`);
        else assert.ok(out.includes(mask), `${what}: the mask ${mask} is missing from the stream`);

        // The input cut anywhere (a read limit, a cap): masked as a cut text and as a stream that ends there.
        for (let cut = int(rng, 0, 9); n % 2 === 0 && cut <= text.length; cut += int(rng, 5, 25)) {
          const head = text.slice(0, cut);
          assertNoPiece(maskSecrets(head, [key]), key, `${what} maskSecrets of a cut at ${cut}`);
          assertNoPiece(streamed(randomChunks(head, rng), [key]), key, `${what} stream cut at ${cut}`);
        }

        if (n % 3 === 0) {
          const recorder = new ExchangeRecorder({ ...START, headers: { ...START.headers, Authorization: `Bearer ${key}` }, body: JSON.stringify({ query: text }), secrets: [key] });
          recorder.headers(500, 'Internal Server Error', { 'content-type': 'text/plain' }, 'text');
          if (rng() < 0.5) {
            for (const chunk of chunks) recorder.raw(chunk);
          } else {
            // Bytes, cut anywhere, also inside a multibyte character.
            const bytes = Buffer.from(text, 'utf8');
            for (let at = 0; at < bytes.length; ) {
              const next = Math.min(bytes.length, at + int(rng, 1, 40));
              recorder.raw(bytes.subarray(at, next));
              at = next;
            }
          }
          // The runner masks the answer once, for every view and this record.
          const answerMasker = new SecretStreamMasker([key]);
          for (const chunk of randomChunks(text, rng)) recorder.text(answerMasker.push(chunk));
          recorder.text(answerMasker.end());
          const exchange = recorder.finish({ kind: 'error', message: `The service said: ${text}` });
          assertNoPiece(JSON.stringify(exchange), key, `${what} recorded exchange`);
          assert.ok(exchange.response?.text.includes(mask), `${what}: the recorded answer lacks the mask`);
          assert.ok(exchange.response?.raw.includes(mask), `${what}: the recorded body lacks the mask`);
        }
      }
    });
  });

  describe('pieces, references and stream framing', () => {
    const key = 'aq_Zk3-9QpL2_vX7mN0bR4tY8wE1uI5oA';

    it('property: a random piece of 8 or more characters in any encoding, in any chunks, is masked and nothing else changes', () => {
      const rng = seededRandom(0x9ec3);
      for (let n = 0; n < 1500; n++) {
        const length = int(rng, PIECE_MIN_CHARS, key.length);
        const from = int(rng, 0, key.length - length);
        const piece = key.slice(from, from + length);
        const [encoding, echoed] = encodeKey(piece, rng);
        const before = `${randomText(rng, 12)} `;
        const after = ` ${randomText(rng, 12)}`;
        const text = `${before}${echoed}${after}`;
        const whole = maskSecrets(text, [key]);
        assertNoPiece(whole, key, `case ${n} (${encoding}, ${length} characters from ${from})`);
        assert.ok(whole.includes('••••'), `case ${n}: masked ${JSON.stringify(whole)}`);
        assert.equal(streamed(randomChunks(text, rng), [key]), whole, `case ${n}: the stream masks as the whole text does`);
      }
    });

    it('a key split across SSE events: the answer is masked, and the framed raw body is withheld with a note', () => {
      const events = [key.slice(0, 11), key.slice(11)].map((part) => `data: ${JSON.stringify({ choices: [{ delta: { content: part } }] })}\n\n`);
      const recorder = new ExchangeRecorder({ ...START, secrets: [key] });
      recorder.headers(200, 'OK', { 'content-type': 'text/event-stream' }, 'sse');
      const answer = new SecretStreamMasker([key]);
      for (const event of events) recorder.raw(event);
      for (const part of [key.slice(0, 11), key.slice(11)]) recorder.text(answer.push(part));
      recorder.text(answer.end());
      const exchange = recorder.finish({ kind: 'done', answerHeldKey: answer.masked > 0 });
      assert.equal(exchange.response?.text, maskKey(key));
      assert.equal(exchange.response?.raw, '');
      assert.match(exchange.response?.rawWithheld ?? '', /not kept: the answer held a piece of an API key/);
      assert.deepEqual(keyPiecesIn(JSON.stringify(exchange), key), []);
      // The same stream without a key keeps its raw body.
      const clean = new ExchangeRecorder({ ...START, secrets: [key] });
      clean.headers(200, 'OK', {}, 'sse');
      clean.raw(events[0].replace(key.slice(0, 11), 'hello world'));
      assert.equal(clean.finish({ kind: 'done', answerHeldKey: false }).response?.raw.includes('hello world'), true);
    });

    it('History keeps an answer\'s words: "Bearer" stays in the answer, and is masked in the request and the failure message', () => {
      const recorder = new ExchangeRecorder({ ...START, body: '{"query":"use Bearer abcdefghijklmnop"}', secrets: [key] });
      recorder.headers(200, 'OK', {}, 'text');
      recorder.raw('The Bearer scheme sends a token.');
      recorder.text('The Bearer scheme sends a token.');
      const exchange = recorder.finish({ kind: 'error', message: 'The service said: Authorization: Bearer abcdefghijklmnop' });
      assert.equal(exchange.response?.text, 'The Bearer scheme sends a token.');
      assert.equal(exchange.response?.raw, 'The Bearer scheme sends a token.');
      assert.equal(exchange.request.body, '{"query":"use Bearer ••••mnop"}');
      assert.equal(exchange.outcome.message, 'The service said: Authorization: Bearer ••••mnop');
    });

    it('an error body quoting the key\'s first 20 characters: the excerpt masks them', () => {
      assert.equal(plainExcerpt(`Invalid API key ${key.slice(0, 20)}, check your dashboard.`, 'text/plain', [key]), 'Invalid API key ••••, check your dashboard.');
    });

    it('a 1 MiB question or answer of backslashes, % or &# is masked as it is (no key in it), without running away', () => {
      for (const unit of ['\\', '%', '&#', '&amp;', '%25', '\\u00']) {
        const text = unit.repeat(Math.ceil((1 << 20) / unit.length));
        assert.equal(maskSecrets(text, [key]), text, JSON.stringify(unit));
        assert.equal(streamed(randomChunks(text, seededRandom(7)), [key]), text, JSON.stringify(unit));
      }
    });
  });

  describe('caps and cuts never keep a piece of a key', () => {
    it('the recorded raw body and answer, with a key straddling the 512 KiB caps', () => {
      const rng = seededRandom(42);
      for (let offset = -60; offset <= 10; offset += 7) {
        const key = randomKey(rng);
        const echoed = pick(rng, [key, JSON.stringify(key), encodeURIComponent(key)]);
        const text = `${'a'.repeat(RAW_BODY_CAP_BYTES + offset)}${echoed}${' tail'.repeat(40)}`;
        const recorder = new ExchangeRecorder({ ...START, secrets: [key] });
        recorder.headers(200, 'OK', {}, 'text');
        const answerMasker = new SecretStreamMasker([key]);
        for (let at = 0; at < text.length; at += 4096) {
          recorder.raw(text.slice(at, at + 4096));
          recorder.text(answerMasker.push(text.slice(at, at + 4096)));
        }
        recorder.text(answerMasker.end());
        const exchange = recorder.finish({ kind: 'done' });
        assert.equal(exchange.response?.rawTruncated, true);
        assert.equal(TEXT_CAP_BYTES, RAW_BODY_CAP_BYTES);
        assertNoPiece(exchange.response?.raw.slice(-200) ?? '', key, `raw at ${offset}`);
        assertNoPiece(exchange.response?.text.slice(-200) ?? '', key, `text at ${offset}`);
        assert.equal(exchange.wireBytes, Buffer.byteLength(text));
      }
    });

    it('the recorded request body, with a key straddling its 1 MiB cap', () => {
      const key = 'req-body-KEY/with"escapes\\0123456789';
      for (let offset = -40; offset <= 0; offset += 5) {
        const body = JSON.stringify({ query: `${'b'.repeat(REQUEST_BODY_CAP_BYTES + offset - 10)}${key}` });
        const exchange = new ExchangeRecorder({ ...START, body, secrets: [key] }).finish({ kind: 'done' });
        assertNoPiece(exchange.request.body?.slice(-200) ?? '', key, `request body at ${offset}`);
      }
    });

    it('an error excerpt cut at 500 characters', () => {
      for (let at = 440; at <= 520; at += 3) {
        const body = `${'e'.repeat(at)}${JSON.stringify(KEY)}${'f'.repeat(200)}`;
        assertNoPiece(plainExcerpt(body, 'text/plain', [KEY]), KEY, `key at ${at}`);
        assertNoPiece(plainExcerpt(JSON.stringify({ error: body }), 'application/json', [KEY]), KEY, `JSON, key at ${at}`);
        assertNoPiece(plainExcerpt(`<p>${body.replace(/"/g, '&quot;')}</p>`, 'text/html', [KEY]), KEY, `HTML, key at ${at}`);
      }
    });

    describe('against a real loopback server that answers 500 with a 600-character body ending in the key', function () {
      this.timeout(20_000);
      // Where the JSON-escaped key ends: at the end of the 600 characters, across the 500-character excerpt, whole inside it.
      for (const end of [600, 520, 300]) {
        it(`the error message and excerpt hold no piece of it (key ending at ${end})`, async () => {
          const escaped = JSON.stringify(KEY).slice(1, -1);
          const body = `${'x'.repeat(end - escaped.length)}${escaped}${'y'.repeat(600 - end)}`;
          assert.equal(body.length, 600);
          const server = await startServer((_req, res) => {
            res.writeHead(500, { 'Content-Type': 'text/plain' });
            res.end(body);
          });
          try {
            for (const send of [
              () => getJson({ baseUrl: server.url, endpoint: 'applications/app', apiKey: KEY }),
              () => sendQuery({ baseUrl: server.url, applicationId: 'app', apiKey: KEY, body: { query: 'hi' } }),
            ]) {
              const error: unknown = await send().then(
                () => undefined,
                (caught: unknown) => caught,
              );
              assert.ok(error instanceof HttpStatusError, String(error));
              assert.equal(error.status, 500);
              assertNoPiece(error.message, KEY, 'message');
              assertNoPiece(error.bodyExcerpt, KEY, 'excerpt');
              if (end <= 500) assert.ok(error.bodyExcerpt.includes(maskKey(KEY)), error.bodyExcerpt);
            }
          } finally {
            await server.close();
          }
        });
      }
    });
  });
});
