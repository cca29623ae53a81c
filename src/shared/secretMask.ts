/**
 * The one owner of masking API keys in text: whole texts ({@link maskSecrets}), request text where a
 * `Bearer` token is a credential too ({@link maskCredentials}), and streams cut into arbitrary chunks
 * ({@link SecretStreamMasker}).
 *
 * The rule: no piece of a key of {@link PIECE_MIN_CHARS} or more characters (the whole key, for a
 * shorter key) is shown or stored, in any form a service may echo it in: raw; JSON/JS-escaped (`\/`,
 * `\"`, `\u002F`, `\x2F`, behind runs of backslashes); URL-encoded (`%2F`, `%252F`, `%5Cu002F`); or
 * as HTML character references (`&#43;`, `&#x2B;`, `&plus;`, `&amp;#43;`), mixed per character.
 *
 * How, in time linear in the text whatever the text is: one pass decodes each encoded character
 * (with a bounded look-ahead) and feeds it to a suffix automaton of each key, which knows at every
 * character the longest piece of the key that ends there. A piece that reaches the minimum marks its
 * source text for masking. A stream holds back only the text of the piece still growing and an
 * encoded character still incomplete. Pure: no vscode, no DOM, no Node.
 */

const MASK = '••••';
/** Keys shorter than this are never masked: it would garble ordinary text and reveal little. */
const MIN_SECRET_LENGTH = 4;
/** The shortest piece of a key that is masked (a key shorter than this is masked only whole). */
export const PIECE_MIN_CHARS = 8;
/** How many compiled keys are kept (a session handles a few). */
const CACHE_SIZE = 64;
/**
 * How many escaping layers are looked through before a key character (backslashes, `%5C`,
 * `%25` and `&amp;` repeats). Bounds the look-ahead, so a run of backslashes costs a constant per
 * character; a key escaped deeper than this is not a form any service writes.
 */
const MAX_LAYERS = 8;
/** The longest decimal or hexadecimal character reference read (`&#0000043;`). */
const MAX_REF_DIGITS = 8;
/** The longest entity name read (`&DiacriticalGrave;`). */
const MAX_ENTITY_NAME = 18;

/**
 * A key as History, the inspector and every masked text show it: `••••` plus its last 4
 * characters, or only `••••` when the key is shorter than 12 characters (so at most a third shows).
 */
export function maskKey(key: string): string {
  return key.length >= 12 ? `${MASK}${key.slice(-4)}` : MASK;
}

/** Whether a token is a key as {@link maskKey} leaves it. */
export function isMaskedToken(token: string): boolean {
  return token.startsWith(MASK) && token.length <= MASK.length + 4;
}

// A Bearer token, also JSON-escaped or URL-encoded in a body; stops at quotes, backslashes and separators.
const BEARER = /\b(Bearer)(\s{1,16}|%20|\+)([^\s"'<>,;\\&]+)/gi;

/** Masks every piece of each secret (see the module's rule) in any of its encoded forms. */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  const keys = compileAll(secrets);
  if (keys.length === 0 || text === '') return text;
  const masker = new SecretStreamMasker(keys);
  return masker.push(text) + masker.end();
}

/**
 * {@link maskSecrets}, then every `Bearer <token>` that is not masked yet: for request text (headers,
 * a body, a URL, a log line), where such a token is a credential. Never for an answer, where
 * "Bearer" is a word.
 */
export function maskCredentials(text: string, secrets: readonly string[] = []): string {
  return maskSecrets(text, secrets).replace(BEARER, (whole, word: string, space: string, token: string) => (isMaskedToken(token) ? whole : `${word}${space}${maskKey(token)}`));
}

/** A stretch of the source text to show as `mask`. */
interface Mark {
  start: number;
  end: number;
  mask: string;
}

/**
 * Masks the known secrets in a stream cut into arbitrary chunks. {@link push} releases at once
 * everything that can no longer be part of a piece of a key, masked, and holds back only the text
 * of a piece still growing (or an encoded character not yet complete); {@link end} releases the
 * rest. Text that ends with fewer than {@link PIECE_MIN_CHARS} characters of a key is released as
 * it is: it was never a piece.
 */
export class SecretStreamMasker {
  private readonly keys: readonly CompiledKey[];
  /** The ways the text is read, each with a lane per key that needs it. */
  private readonly readers: Reader[];
  /** Source text not yet released; `base` is the absolute offset of its first character. */
  private pending = '';
  private base = 0;
  private readonly marks: Mark[] = [];
  private maskedCount = 0;

  constructor(secrets: readonly string[] | readonly CompiledKey[]) {
    this.keys = secrets.length > 0 && typeof secrets[0] === 'string' ? compileAll(secrets as readonly string[]) : (secrets as readonly CompiledKey[]);
    const readers = [
      new Reader('decoded', this.keys.map((key) => new Lane(key.decoded, key))),
      new Reader('percentOnce', this.keys.filter((key) => key.key.includes('%')).map((key) => new Lane(key.decoded, key))),
      new Reader('percentAsIs', this.keys.filter((key) => key.key.includes('%')).map((key) => new Lane(key.decoded, key))),
      new Reader('raw', this.keys.flatMap((key) => (key.raw === undefined ? [] : [new Lane(key.raw, key)]))),
    ];
    this.readers = readers.filter((reader) => reader.lanes.length > 0);
  }

  /** How many pieces of a key were masked in what was released so far (neighbours merged count once). */
  get masked(): number {
    return this.maskedCount;
  }

  /** The next chunk in; what can be shown now out (masked; may be empty). */
  push(chunk: string): string {
    if (this.keys.length === 0) return chunk;
    this.pending += chunk;
    this.advance(false);
    return this.release(this.safePoint());
  }

  /**
   * A silence in the stream: releases the text held back for a piece that may still grow (fewer
   * than {@link PIECE_MIN_CHARS} characters of a key, shown as they are), so a stalled answer shows
   * all that arrived. If the piece grows later, it is masked from here on: what was shown stays
   * under the rule (no 8 characters of a key). An escape not yet complete stays held.
   */
  releaseHeld(): string {
    if (this.keys.length === 0) return '';
    let upTo = this.base + this.pending.length;
    for (const reader of this.readers) upTo = Math.min(upTo, reader.at);
    // A piece already long enough is a mark that may still grow: release up to its start only.
    for (const mark of this.marks) upTo = Math.min(upTo, mark.start);
    return this.release(upTo);
  }

  /** The end of the stream: everything held, masked. */
  end(): string {
    if (this.keys.length === 0) return '';
    this.advance(true);
    const out = this.release(this.base + this.pending.length);
    for (const reader of this.readers) for (const lane of reader.lanes) lane.reset();
    return out;
  }

  /** Reads and matches every character that can be read now (`final`: no more text comes). */
  private advance(final: boolean): void {
    const text = this.pending;
    const limit = this.base + text.length;
    const unit = { code: 0, end: 0 };
    for (const reader of this.readers) {
      const raw = reader.reading === 'raw';
      while (reader.at < limit) {
        const at = reader.at - this.base;
        // A run of characters that start no escape reads the same in every reading: each lane walks it in one loop
        // (the first finds where the run ends).
        const run = reader.lanes[0].walk(text, at, text.length, this.base, this.onPiece, raw ? 'none' : reader.reading === 'percentAsIs' ? 'noPercent' : 'all');
        if (run > at) {
          for (let i = 1; i < reader.lanes.length; i++) reader.lanes[i].walk(text, at, run, this.base, this.onPiece, 'none');
          reader.at = this.base + run;
          continue;
        }
        const first = text.charCodeAt(at);
        if (!raw && (first === BACKSLASH || first === AMPERSAND || (first === PERCENT && reader.reading !== 'percentAsIs'))) {
          if (!decodeUnit(text, at, final, reader.reading, unit)) break;
        } else {
          unit.code = first;
          unit.end = at + 1;
        }
        const end = this.base + unit.end;
        // A decoded backslash is one more escaping layer, never a key character (decoding lanes match keys without them).
        if (raw || unit.code !== BACKSLASH) for (const lane of reader.lanes) this.feed(lane, unit.code, reader.at, end);
        reader.at = end;
      }
    }
  }

  /** One character of source span [start, end) into one lane; a piece long enough becomes a mark. */
  private feed(lane: Lane, code: number, start: number, end: number): void {
    const length = lane.step(code, start);
    if (length >= lane.minPiece) this.onPiece(lane, length, end);
  }

  /** A lane found a piece of `length` characters that ends at source offset `end`: it becomes a mark (merged with the last when they touch). */
  private readonly onPiece = (lane: Lane, length: number, end: number): void => {
    // A piece that began in text already released (a silence released it) is masked from there on.
    const from = Math.max(lane.startOf(length), this.base);
    const mask = lane.endsKey() ? lane.key.wholeMask : MASK;
    const last = this.marks.length > 0 ? this.marks[this.marks.length - 1] : undefined;
    if (last !== undefined && from <= last.end && end >= last.start) {
      if (from < last.start) last.start = from;
      if (end >= last.end) {
        last.end = end;
        last.mask = mask;
      }
      return;
    }
    this.marks.push({ start: from, end, mask });
  };

  /** The earliest source offset that may still become part of a piece: nothing from there is released. */
  private safePoint(): number {
    let safe = Infinity;
    // After a silence released a growing piece's start, that piece is held from the release on.
    for (const reader of this.readers) {
      safe = Math.min(safe, reader.at);
      for (const lane of reader.lanes) safe = Math.min(safe, lane.heldFrom());
    }
    // A mark that ends past the safe point may still grow: release nothing of it yet.
    for (const mark of this.marks) if (mark.end > safe && mark.start < safe) safe = mark.start;
    return safe;
  }

  /** Releases the source text before `upTo` (absolute), marks replaced by their masks. */
  private release(upTo: number): string {
    if (upTo <= this.base) return '';
    if (this.marks.length === 0) {
      // The common case, per chunk: nothing to mask, no arrays made.
      const out = this.pending.slice(0, upTo - this.base);
      this.pending = this.pending.slice(upTo - this.base);
      this.base = upTo;
      return out;
    }
    // Readers find pieces in their own order: put the marks that end by `upTo` in order, overlapping ones merged.
    const ready = this.marks.filter((mark) => mark.end <= upTo).sort((a, b) => a.start - b.start);
    const later = this.marks.filter((mark) => mark.end > upTo);
    this.marks.length = 0;
    this.marks.push(...later);
    let out = '';
    let at = this.base;
    for (let i = 0; i < ready.length; i++) {
      const mark = ready[i];
      let { end, mask } = mark;
      while (i + 1 < ready.length && ready[i + 1].start <= end) {
        i++;
        if (ready[i].end >= end) ({ end, mask } = ready[i]);
      }
      out += this.pending.slice(at - this.base, Math.max(at, mark.start) - this.base) + mask;
      at = Math.max(at, end);
      this.maskedCount++;
    }
    out += this.pending.slice(at - this.base, upTo - this.base);
    this.pending = this.pending.slice(upTo - this.base);
    this.base = upTo;
    return out;
  }
}

/**
 * How a reader reads the text: every escaping undone; the same, but `%25` always the character `%`
 * (so a key holding `%41` is found URL-encoded as `%2541`); the same, but `%` never an escape (so a
 * key holding `%41` is found JSON-escaped); or character by character. The middle two run only for
 * keys that hold a `%`, and the last only for keys that hold a character that starts an escape.
 */
type Reading = 'decoded' | 'percentOnce' | 'percentAsIs' | 'raw';

/** One way of reading the text, how far it has read, and its lanes. */
class Reader {
  /** The absolute offset of the next character it reads. */
  at = 0;

  constructor(
    readonly reading: Reading,
    readonly lanes: readonly Lane[],
  ) {}
}

/** One key's suffix automaton walked over one stream of characters. */
class Lane {
  private state = 0;
  private length = 0;
  /** The source start of each of the last characters fed (a ring longer than the key: a piece is never longer). */
  private readonly starts: Float64Array;
  private readonly ring: number;
  private count = 0;
  readonly minPiece: number;

  constructor(
    private readonly automaton: SuffixAutomaton,
    readonly key: CompiledKey,
  ) {
    let size = 16;
    while (size <= automaton.size) size *= 2;
    this.starts = new Float64Array(size);
    this.ring = size - 1;
    this.minPiece = Math.min(PIECE_MIN_CHARS, automaton.size);
  }

  /** Feeds one character that starts at source offset `start`; the length of the key's longest piece ending here. */
  step(code: number, start: number): number {
    this.starts[this.count & this.ring] = start;
    this.count++;
    const key = this.automaton;
    const symbol = key.symbolOf(code);
    if (symbol < 0) {
      this.state = 0;
      this.length = 0;
      return 0;
    }
    let state = this.state;
    let length = this.length;
    while (state !== 0 && key.next[state * key.alphabet + symbol] < 0) {
      state = key.link[state];
      length = key.len[state];
    }
    const to = key.next[state * key.alphabet + symbol];
    if (to < 0) {
      this.state = 0;
      this.length = 0;
    } else {
      this.state = to;
      this.length = length + 1;
    }
    return this.length;
  }

  /**
   * Feeds `text[from, to)` (source offsets from `base`), one character each, as {@link step} does but
   * in one loop, stopping early at the first character that starts an escape of `stopAt`; calls
   * `onPiece` for each character where a piece of the minimum length or more ends. Returns where it
   * stopped.
   */
  walk(text: string, from: number, to: number, base: number, onPiece: (lane: Lane, length: number, end: number) => void, stopAt: 'all' | 'noPercent' | 'none'): number {
    const automaton = this.automaton;
    const { next, link, len, alphabet } = automaton;
    const starts = this.starts;
    const ring = this.ring;
    let state = this.state;
    let length = this.length;
    let count = this.count;
    let i = from;
    for (; i < to; i++) {
      const code = text.charCodeAt(i);
      if (stopAt !== 'none' && (code === BACKSLASH || code === AMPERSAND || (code === PERCENT && stopAt === 'all'))) break;
      starts[count & ring] = base + i;
      count++;
      const symbol = automaton.symbolOf(code);
      if (symbol < 0) {
        state = 0;
        length = 0;
        continue;
      }
      while (state !== 0 && next[state * alphabet + symbol] < 0) {
        state = link[state];
        length = len[state];
      }
      const target = next[state * alphabet + symbol];
      if (target < 0) {
        state = 0;
        length = 0;
      } else {
        state = target;
        length++;
        if (length >= this.minPiece) {
          this.state = state;
          this.length = length;
          this.count = count;
          onPiece(this, length, base + i + 1);
        }
      }
    }
    this.state = state;
    this.length = length;
    this.count = count;
    return i;
  }

  /** The source start of the piece of `length` characters that ends at the last character fed. */
  startOf(length: number): number {
    return this.starts[(this.count - length) & this.ring];
  }

  /** Whether the piece ending here is the key's end (so `••••` and the key's last characters show). */
  endsKey(): boolean {
    return this.automaton.terminal[this.state] === 1;
  }

  /** Where the piece still growing starts (infinity when none is). */
  heldFrom(): number {
    return this.length === 0 ? Infinity : this.startOf(this.length);
  }

  reset(): void {
    this.state = 0;
    this.length = 0;
  }
}

/** One key, compiled: a suffix automaton for its decoded forms (backslashes left out: the decoder reads them as escaping) and, when it holds a character that starts an encoding, one for its raw form. */
class CompiledKey {
  /** The mask of a piece that ends where the key ends (its last characters show, as {@link maskKey}). */
  readonly wholeMask: string;
  readonly decoded: SuffixAutomaton;
  readonly raw: SuffixAutomaton | undefined;

  constructor(readonly key: string) {
    this.wholeMask = maskKey(key);
    const bare = key.replace(/\\/g, '');
    this.decoded = new SuffixAutomaton(bare.length >= MIN_SECRET_LENGTH ? bare : key);
    this.raw = /[\\%&]/.test(key) ? new SuffixAutomaton(key) : undefined;
  }
}

/** The suffix automaton of one string: walked a character at a time, it knows the longest piece of the string that ends there. */
class SuffixAutomaton {
  readonly size: number;
  readonly alphabet: number;
  readonly next: Int32Array;
  readonly link: Int32Array;
  readonly len: Int32Array;
  readonly terminal: Uint8Array;
  private readonly ascii = new Int16Array(128).fill(-1);
  private readonly other = new Map<number, number>();

  constructor(key: string) {
    this.size = key.length;
    let alphabet = 0;
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i);
      if (this.symbolOf(code) < 0) {
        if (code < 128) this.ascii[code] = alphabet;
        else this.other.set(code, alphabet);
        alphabet++;
      }
    }
    this.alphabet = alphabet;
    const capacity = 2 * key.length + 1;
    this.next = new Int32Array(capacity * alphabet).fill(-1);
    this.link = new Int32Array(capacity).fill(-1);
    this.len = new Int32Array(capacity);
    this.terminal = new Uint8Array(capacity);
    // The standard online construction: one state per distinct end-position set of the key's substrings.
    let size = 1;
    let last = 0;
    for (let i = 0; i < key.length; i++) {
      const c = this.symbolOf(key.charCodeAt(i));
      const cur = size++;
      this.len[cur] = this.len[last] + 1;
      let p = last;
      while (p !== -1 && this.next[p * alphabet + c] < 0) {
        this.next[p * alphabet + c] = cur;
        p = this.link[p];
      }
      if (p === -1) {
        this.link[cur] = 0;
      } else {
        const q = this.next[p * alphabet + c];
        if (this.len[p] + 1 === this.len[q]) {
          this.link[cur] = q;
        } else {
          const clone = size++;
          this.len[clone] = this.len[p] + 1;
          this.next.copyWithin(clone * alphabet, q * alphabet, q * alphabet + alphabet);
          this.link[clone] = this.link[q];
          while (p !== -1 && this.next[p * alphabet + c] === q) {
            this.next[p * alphabet + c] = clone;
            p = this.link[p];
          }
          this.link[q] = clone;
          this.link[cur] = clone;
        }
      }
      last = cur;
    }
    for (let p = last; p > 0; p = this.link[p]) this.terminal[p] = 1;
  }

  /** The key's index for a character, or -1 when the key does not hold it. */
  symbolOf(code: number): number {
    return code < 128 ? this.ascii[code] : (this.other.get(code) ?? -1);
  }
}

// Character codes the decoder looks at.
const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const AMPERSAND = 0x26;
const HASH = 0x23;
const SEMICOLON = 0x3b;

/** HTML's named references for the printable ASCII characters a key may hold. */
const ENTITIES: ReadonlyMap<string, number> = new Map([
  ['excl', 0x21], ['quot', 0x22], ['QUOT', 0x22], ['num', 0x23], ['dollar', 0x24], ['percnt', 0x25], ['amp', 0x26], ['AMP', 0x26],
  ['apos', 0x27], ['lpar', 0x28], ['rpar', 0x29], ['ast', 0x2a], ['midast', 0x2a], ['plus', 0x2b], ['comma', 0x2c], ['period', 0x2e],
  ['sol', 0x2f], ['colon', 0x3a], ['semi', 0x3b], ['lt', 0x3c], ['LT', 0x3c], ['equals', 0x3d], ['gt', 0x3e], ['GT', 0x3e],
  ['quest', 0x3f], ['commat', 0x40], ['lsqb', 0x5b], ['lbrack', 0x5b], ['bsol', 0x5c], ['rsqb', 0x5d], ['rbrack', 0x5d], ['Hat', 0x5e],
  ['lowbar', 0x5f], ['UnderBar', 0x5f], ['grave', 0x60], ['DiacriticalGrave', 0x60], ['lcub', 0x7b], ['lbrace', 0x7b], ['verbar', 0x7c],
  ['vert', 0x7c], ['VerticalLine', 0x7c], ['rcub', 0x7d], ['rbrace', 0x7d],
]);

/** Why a read of an encoded form stopped: it matched, it cannot match, or the text ended before it could tell. */
const NO = -1;
const MORE = -2;

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** `%`, then (when `layered`) up to {@link MAX_LAYERS} `25`s, then two hex digits at `at`: the offset after them and the byte in `out`, or NO (or MORE: the text ends too soon to tell, unless `final`). */
function readPercent(text: string, at: number, final: boolean, layered: boolean, out: { code: number }): number {
  let p = at + 1;
  for (let layers = 0; ; layers++) {
    if (p + 1 >= text.length) return final ? NO : MORE;
    const high = hexValue(text.charCodeAt(p));
    const low = hexValue(text.charCodeAt(p + 1));
    if (high < 0 || low < 0) return NO;
    if (layered && high === 2 && low === 5 && layers < MAX_LAYERS) {
      // `%25` is a layer when an ASCII character's two hex digits follow (`%2541`), else the character `%` itself.
      if (p + 3 >= text.length && !final) return MORE;
      const next = p + 3 < text.length ? hexValue(text.charCodeAt(p + 2)) : -1;
      if (next >= 0 && next < 8 && hexValue(text.charCodeAt(p + 3)) >= 0) {
        p += 2;
        continue;
      }
    }
    out.code = high * 16 + low;
    return p + 2;
  }
}

function isLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

/** `&` (with up to {@link MAX_LAYERS} `amp;` after it) and a character reference at `at`: as {@link readPercent}. */
function readReference(text: string, at: number, final: boolean, out: { code: number }): number {
  let p = at + 1;
  let layers = 0;
  for (; layers < MAX_LAYERS && text.startsWith('amp;', p); layers++) p += 4;
  const reference = readReferenceBody(text, p, final, out);
  if (reference === NO && layers > 0) {
    // `&amp;` and no reference after it: the character `&`, one layer deep.
    out.code = AMPERSAND;
    return at + 5;
  }
  return reference;
}

/** A character reference's body (`#43;`, `#x2B;`, `plus;`) at `p`, after its `&`. */
function readReferenceBody(text: string, p: number, final: boolean, out: { code: number }): number {
  if (p >= text.length) return final ? NO : MORE;
  if (text.charCodeAt(p) === HASH) {
    p++;
    if (p >= text.length) return final ? NO : MORE;
    const hex = (text.charCodeAt(p) | 0x20) === 0x78;
    if (hex) p++;
    let value = 0;
    let digits = 0;
    while (p < text.length && digits < MAX_REF_DIGITS) {
      const d = hex ? hexValue(text.charCodeAt(p)) : text.charCodeAt(p) - 0x30;
      if (d < 0 || d > (hex ? 15 : 9)) break;
      value = value * (hex ? 16 : 10) + d;
      digits++;
      p++;
    }
    // The text may go on with more digits or the `;`.
    if (p >= text.length && !final) return MORE;
    if (digits === 0) return NO;
    if (p < text.length && text.charCodeAt(p) === SEMICOLON) p++;
    out.code = value;
    return p;
  }
  const nameStart = p;
  while (p < text.length && p - nameStart <= MAX_ENTITY_NAME && isLetter(text.charCodeAt(p))) p++;
  if (p >= text.length) return final || p - nameStart > MAX_ENTITY_NAME ? NO : MORE;
  if (text.charCodeAt(p) !== SEMICOLON) return NO;
  const code = ENTITIES.get(text.slice(nameStart, p));
  if (code === undefined) return NO;
  out.code = code;
  return p + 1;
}

/**
 * Reads one character of text at `at` in whichever encoding it is written, into `unit` (its code
 * and the offset after it). Escaping layers before it (backslashes, `%5C`) belong to it. Returns
 * false when the text ends before the character can be told (unless `final`: then it is read as
 * it stands).
 */
function decodeUnit(text: string, at: number, final: boolean, reading: Reading, unit: { code: number; end: number }): boolean {
  const percentLayers = reading === 'decoded';
  const percentEscapes = reading !== 'percentAsIs';
  // Backslashes beyond the deepest escaping can belong to no key character: one unit, read once.
  let run = 0;
  while (at + run < text.length && text.charCodeAt(at + run) === BACKSLASH) run++;
  if (run > MAX_LAYERS) {
    unit.code = BACKSLASH;
    unit.end = at + run - MAX_LAYERS;
    return true;
  }
  let p = at;
  let layers = 0;
  const percent = { code: 0 };
  // Escaping layers: backslashes and URL-encoded backslashes.
  for (;;) {
    if (p >= text.length) {
      if (!final) return false;
      break;
    }
    const code = text.charCodeAt(p);
    let after = -1;
    if (code === BACKSLASH) {
      after = p + 1;
    } else if (code === PERCENT && percentEscapes) {
      const read = readPercent(text, p, final, percentLayers, percent);
      if (read === MORE) return false;
      if (read > 0 && percent.code === BACKSLASH) after = read;
    }
    if (after < 0) break;
    if (++layers > MAX_LAYERS) {
      // Deeper than any service escapes: the first character is itself, and reading goes on after it.
      unit.code = text.charCodeAt(at);
      unit.end = at + 1;
      return true;
    }
    p = after;
  }
  if (p >= text.length) {
    // The text ended in escaping layers (only when final): they escape nothing, and are backslashes.
    unit.code = BACKSLASH;
    unit.end = p;
    return true;
  }
  const code = text.charCodeAt(p);
  if (layers > 0 && (code === 0x75 || code === 0x78)) {
    // `\uXXXX` or `\xXX`.
    const digits = code === 0x75 ? 4 : 2;
    let value = 0;
    let q = p + 1;
    for (; q < p + 1 + digits; q++) {
      if (q >= text.length) {
        if (!final) return false;
        break;
      }
      const d = hexValue(text.charCodeAt(q));
      if (d < 0) break;
      value = value * 16 + d;
    }
    if (q === p + 1 + digits) {
      unit.code = value;
      unit.end = q;
      return true;
    }
  } else if ((code === PERCENT && percentEscapes) || code === AMPERSAND) {
    const read = code === PERCENT ? readPercent(text, p, final, percentLayers, percent) : readReference(text, p, final, percent);
    if (read === MORE) return false;
    if (read > 0 && (code === AMPERSAND || percent.code < 0x80)) {
      unit.code = percent.code;
      unit.end = read;
      return true;
    }
  }
  unit.code = code;
  unit.end = p + 1;
  return true;
}

const cache = new Map<string, CompiledKey>();

function compile(key: string): CompiledKey {
  let compiled = cache.get(key);
  if (compiled !== undefined) {
    // Most recently used last: the oldest goes first when the cache is full.
    cache.delete(key);
  } else {
    compiled = new CompiledKey(key);
    if (cache.size >= CACHE_SIZE) {
      const oldest = cache.keys().next();
      if (oldest.done !== true) cache.delete(oldest.value);
    }
  }
  cache.set(key, compiled);
  return compiled;
}

// The last lists compiled, by the array they came in (callers pass the same one for every string of a record).
const lists = new WeakMap<readonly string[], { readonly copy: readonly string[]; readonly keys: readonly CompiledKey[] }>();

/** The distinct secrets that are long enough, compiled. */
function compileAll(secrets: readonly string[]): readonly CompiledKey[] {
  if (secrets.length === 0) {
    return [];
  }
  const known = lists.get(secrets);
  if (known !== undefined && known.copy.length === secrets.length && known.copy.every((secret, i) => secret === secrets[i])) {
    return known.keys;
  }
  const distinct = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  const keys = distinct.map(compile);
  lists.set(secrets, { copy: [...secrets], keys });
  return keys;
}
