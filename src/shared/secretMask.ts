/**
 * The one owner of masking API keys in text: whole texts ({@link maskSecrets}), texts that may end
 * inside a key ({@link maskCutText}) and streams cut into arbitrary chunks ({@link SecretStreamMasker}).
 * A key is found in every form a service may echo it in: raw, JSON/JS-escaped (`\/`, `\\/`, `\"`,
 * `\u002F`, `\x2F`, with any run of backslashes), URL-encoded (`%2F`, `%252F`), mixed per character.
 * Pure: no vscode, no DOM, no Node.
 */

const MASK = '••••';
/** Keys shorter than this are never masked: it would garble ordinary text and reveal little. */
const MIN_SECRET_LENGTH = 4;
/** A stream that ends inside a key has the key's start masked once this many characters of it came. */
export const CUT_KEY_MIN_CHARS = 6;
/** How many compiled keys are kept (a session handles a few). */
const CACHE_SIZE = 64;

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
const BEARER = /\b(Bearer)(\s+|%20|\+)([^\s"'<>,;\\&]+)/gi;

/**
 * Masks every occurrence of each secret (length >= 4) in any of its encoded forms with
 * {@link maskKey}, longest secret first, then every `Bearer <token>` that is not masked yet.
 */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const key of compileAll(secrets)) {
    out = maskWhole(out, key);
  }
  return out.replace(BEARER, (whole, word: string, space: string, token: string) => (isMaskedToken(token) ? whole : `${word}${space}${maskKey(token)}`));
}

/**
 * {@link maskSecrets} for a text that may have been cut inside a key (an excerpt read up to a
 * limit): a trailing start of a key of at least {@link CUT_KEY_MIN_CHARS} characters is masked too.
 */
export function maskCutText(text: string, secrets: readonly string[]): string {
  const masker = new SecretStreamMasker(secrets);
  return maskSecrets(masker.push(text) + masker.end(), secrets);
}

/**
 * Masks the known secrets in a stream cut into arbitrary chunks. {@link push} releases at once
 * everything that cannot become (an encoded form of) a key, masked, and holds back only the
 * shortest tail that still could; {@link end} releases that tail, masking a trailing partial key
 * of at least {@link CUT_KEY_MIN_CHARS} characters (a stream cut inside a key).
 */
export class SecretStreamMasker {
  private readonly keys: readonly CompiledKey[];
  private held = '';

  constructor(secrets: readonly string[]) {
    this.keys = compileAll(secrets);
  }

  /** The next chunk in; what can be shown now out (masked; may be empty). */
  push(chunk: string): string {
    if (this.keys.length === 0) {
      return chunk;
    }
    let text = this.held === '' ? chunk : this.held + chunk;
    if (text === '') {
      return '';
    }
    for (const key of this.keys) {
      text = maskWhole(text, key);
    }
    let hold = text.length;
    for (const key of this.keys) {
      hold = Math.min(hold, key.scan(text, Math.max(0, text.length - key.window), 0));
    }
    this.held = text.slice(hold);
    return hold === text.length ? text : text.slice(0, hold);
  }

  /** The end of the stream: the held tail, a trailing partial key in it masked. */
  end(): string {
    const text = this.held;
    this.held = '';
    if (text === '') {
      return '';
    }
    let cut = text.length;
    let mask = '';
    for (const key of this.keys) {
      const at = key.scan(text, 0, CUT_KEY_MIN_CHARS);
      if (at < cut) {
        cut = at;
        mask = key.mask;
      }
    }
    return cut === text.length ? text : text.slice(0, cut) + mask;
  }
}

function maskWhole(text: string, key: CompiledKey): string {
  if (text.length < key.key.length) {
    return text;
  }
  // A function, not the mask itself: the key's last characters may hold `$&` or `$1`.
  return text.replace(key.whole, key.replacer);
}

// Sub-states of the matcher inside one key character's encoded form.
const START = 0; // nothing of this character yet
const AFTER_SLASH = 1; // a backslash (`\` or `%5C`, `%255C`…) just ended: a `\u`/`\x` escape may follow
const PERCENT = 2; // `%`, `%25`, `%2525`…
const PERCENT_2 = 3; // `%…2`: `%25` continues, or the character's own first hex digit was 2
const PERCENT_5 = 4; // `%…5`: `%5C` continues
const PERCENT_HEX = 5; // `%…` and the character's first hex digit
const U1 = 6; // `\u`
const U2 = 7;
const U3 = 8;
const U4 = 9; // `\u` and three hex digits
const X1 = 10; // `\x`
const X2 = 11; // `\x` and one hex digit
const SUBSTATES = 12;

/** One key, compiled: the RegExp for its whole forms and a small matcher for their starts. */
class CompiledKey {
  readonly mask: string;
  readonly replacer: () => string;
  /** Every whole encoded occurrence (global). */
  readonly whole: RegExp;
  /** How far back from a chunk's end a key's encoded start is looked for (generous: ~16 characters per key character). */
  readonly window: number;
  private readonly codes: Uint16Array;
  /** Each key character's 4 lower-case hex digits, as character codes. */
  private readonly hex: Uint16Array;
  private readonly stateCount: number;
  private readonly slot: Int32Array;
  private readonly mark: Uint32Array;
  private generation = 0;
  // The matcher's two state sets (state, earliest start), swapped at each character.
  private readonly statesA: Int32Array;
  private readonly startsA: Int32Array;
  private readonly statesB: Int32Array;
  private readonly startsB: Int32Array;
  private nextCount = 0;

  constructor(readonly key: string) {
    this.mask = maskKey(key);
    this.replacer = () => this.mask;
    this.whole = new RegExp(Array.from({ length: key.length }, (_, i) => charPattern(key.charCodeAt(i))).join(''), 'g');
    this.window = key.length * 16 + 64;
    this.codes = new Uint16Array(key.length);
    this.hex = new Uint16Array(key.length * 4);
    for (let i = 0; i < key.length; i++) {
      this.codes[i] = key.charCodeAt(i);
      const digits = this.codes[i].toString(16).padStart(4, '0');
      for (let d = 0; d < 4; d++) this.hex[i * 4 + d] = digits.charCodeAt(d);
    }
    this.stateCount = key.length * SUBSTATES;
    this.slot = new Int32Array(this.stateCount);
    this.mark = new Uint32Array(this.stateCount);
    // At most every state once, plus the start injected at each position.
    this.statesA = new Int32Array(this.stateCount + 1);
    this.startsA = new Int32Array(this.stateCount + 1);
    this.statesB = new Int32Array(this.stateCount + 1);
    this.startsB = new Int32Array(this.stateCount + 1);
  }

  /**
   * The earliest position `p >= from` such that `text.slice(p)` is a proper start of an encoded
   * form of the key holding at least `minChars` whole key characters, or `text.length` when none is.
   * Runs every start at once (one set of states, each with its earliest start).
   */
  scan(text: string, from: number, minChars: number): number {
    let states = this.statesA;
    let starts = this.startsA;
    let count = 0;
    for (let pos = from; pos < text.length; pos++) {
      const ch = text.charCodeAt(pos);
      const lower = ch >= 0x41 && ch <= 0x5a ? ch + 0x20 : ch;
      this.nextGeneration();
      const nextStates = states === this.statesA ? this.statesB : this.statesA;
      const nextStarts = starts === this.startsA ? this.startsB : this.startsA;
      this.nextCount = 0;
      // Every position may start a key (after the others in the list: they started earlier).
      states[count] = START;
      starts[count] = pos;
      count++;
      for (let s = 0; s < count; s++) {
        const state = states[s];
        const start = starts[s];
        const index = (state / SUBSTATES) | 0;
        const sub = state - index * SUBSTATES;
        const code = this.codes[index];
        const base = index * SUBSTATES;
        let to1 = -1;
        let to2 = -1;
        switch (sub) {
          case START:
          case AFTER_SLASH:
            if (ch === code) to1 = base + SUBSTATES;
            if (ch === 0x5c) to2 = base + AFTER_SLASH;
            else if (ch === 0x25) to2 = base + PERCENT;
            else if (sub === AFTER_SLASH && ch === 0x75) to2 = base + U1;
            else if (sub === AFTER_SLASH && ch === 0x78 && code < 0x100) to2 = base + X1;
            break;
          case PERCENT:
            if (ch === 0x32) to1 = base + PERCENT_2;
            else if (ch === 0x35) to1 = base + PERCENT_5;
            if (code < 0x80 && lower === this.hex[index * 4 + 2]) to2 = base + PERCENT_HEX;
            break;
          case PERCENT_2:
            if (ch === 0x35) to1 = base + PERCENT;
            break;
          case PERCENT_5:
            if (lower === 0x63) to1 = base + AFTER_SLASH;
            break;
          case PERCENT_HEX:
          case X2:
          case U4:
            if (lower === this.hex[index * 4 + 3]) to1 = base + SUBSTATES;
            break;
          case U1:
          case U2:
          case U3:
            if (lower === this.hex[index * 4 + sub - U1]) to1 = base + sub + 1;
            break;
          case X1:
            if (lower === this.hex[index * 4 + 2]) to1 = base + X2;
            break;
        }
        // A whole key is masked already: reaching its end here would be a second match, so that path ends.
        if (to1 >= 0 && to1 < this.stateCount) this.add(nextStates, nextStarts, to1, start);
        if (to2 >= 0) this.add(nextStates, nextStarts, to2, start);
      }
      states = nextStates;
      starts = nextStarts;
      count = this.nextCount;
    }
    let earliest = text.length;
    for (let s = 0; s < count; s++) {
      if (states[s] >= minChars * SUBSTATES && starts[s] < earliest) earliest = starts[s];
    }
    return earliest;
  }

  /** Adds a state to the next set, keeping its earliest start. */
  private add(states: Int32Array, starts: Int32Array, state: number, start: number): void {
    if (this.mark[state] !== this.generation) {
      this.mark[state] = this.generation;
      this.slot[state] = this.nextCount;
      states[this.nextCount] = state;
      starts[this.nextCount] = start;
      this.nextCount++;
    } else if (start < starts[this.slot[state]]) {
      starts[this.slot[state]] = start;
    }
  }

  private nextGeneration(): void {
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.mark.fill(0);
      this.generation = 1;
    }
  }
}

/** The RegExp source for one key character in any of its forms, each preceded by any run of backslashes. */
function charPattern(code: number): string {
  const slash = String.raw`(?:\\|%(?:25)*5[cC])`;
  const hex = code.toString(16).padStart(4, '0');
  const forms = [escapeRegExp(String.fromCharCode(code))];
  if (code < 0x80) forms.push(`%(?:25)*${hexPattern(hex.slice(2))}`);
  forms.push(`${slash}(?:u${hexPattern(hex)}${code < 0x100 ? `|x${hexPattern(hex.slice(2))}` : ''})`);
  return `${slash}*(?:${forms.join('|')})`;
}

function hexPattern(digits: string): string {
  let out = '';
  for (const d of digits) out += d >= 'a' ? `[${d}${d.toUpperCase()}]` : d;
  return out;
}

function escapeRegExp(text: string): string {
  const code = text.charCodeAt(0);
  // \uXXXX for everything but letters and digits: never a metacharacter, whatever the character.
  return /[A-Za-z0-9]/.test(text) ? text : `\\u${code.toString(16).padStart(4, '0')}`;
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

/** The distinct secrets that are long enough, compiled, longest first (a key holding another is masked whole). */
function compileAll(secrets: readonly string[]): readonly CompiledKey[] {
  if (secrets.length === 0) {
    return [];
  }
  const known = lists.get(secrets);
  if (known !== undefined && known.copy.length === secrets.length && known.copy.every((secret, i) => secret === secrets[i])) {
    return known.keys;
  }
  const distinct = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  const keys = distinct.sort((a, b) => b.length - a.length).map(compile);
  lists.set(secrets, { copy: [...secrets], keys });
  return keys;
}
