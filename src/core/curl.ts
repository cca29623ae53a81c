/**
 * "Copy as cURL": a POSIX shell command that sends a recorded request again, byte for byte, with
 * the API key read from the environment instead of written into the command.
 */

/** The environment variable the command reads the API key from. */
export const CURL_KEY_VARIABLE = 'APPLICATION_QUERY_KEY';

/** A request to reproduce: what History recorded as sent. */
export interface CurlRequest {
  readonly method: string;
  readonly url: string;
  /**
   * The headers as sent, in order. Whatever the `Authorization` value holds (masked or not), the
   * command sends `Bearer $APPLICATION_QUERY_KEY` in its place; the value itself is never copied.
   */
  readonly headers: Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>;
  /** The body text, sent exactly (`--data-binary`); absent for a request without a body. */
  readonly body?: string;
}

/** Headers curl writes itself from the connection and the body; copying them could contradict it. */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive']);

/** Characters curl reads as URL globbing ranges and sets (`[1-3]`, `{a,b}`), e.g. in `http://[::1]`. */
const GLOB_CHARACTERS = /[[\]{}]/;

/**
 * A POSIX shell command (sh, bash, zsh) that reproduces the request:
 * `curl -N -X POST 'URL' -H '…' -H "Authorization: Bearer $APPLICATION_QUERY_KEY" --data-binary '…'`,
 * one option per line with ` \` continuations. Everything is single-quoted (a `'` becomes `'\''`),
 * so nothing in the URL, headers or body is expanded by the shell; only the key variable is, inside
 * double quotes. `-N` shows the answer as it streams. The key never appears in the result.
 * Throws a `RangeError` if the body or a header holds a NUL character, which no shell argument can carry.
 */
export function toCurl(request: CurlRequest): string {
  const method = request.method.toUpperCase();
  const first = ['curl', '-N', '-X', /^[A-Z]+$/.test(method) ? method : shellQuote(method)];
  if (GLOB_CHARACTERS.test(request.url)) {
    first.push('--globoff');
  }
  first.push(shellQuote(request.url));
  const lines = [first.join(' ')];
  const entries: ReadonlyArray<readonly [string, string]> = Array.isArray(request.headers)
    ? (request.headers as ReadonlyArray<readonly [string, string]>)
    : Object.entries(request.headers as Readonly<Record<string, string>>);
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (TRANSPORT_HEADERS.has(lower)) {
      continue;
    }
    if (lower === 'authorization') {
      lines.push(`-H "Authorization: Bearer $${CURL_KEY_VARIABLE}"`);
      continue;
    }
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (request.body !== undefined) {
    // --data-binary would read a file for a body starting with "@"; --data-raw never does.
    lines.push(`${request.body.startsWith('@') ? '--data-raw' : '--data-binary'} ${shellQuote(request.body)}`);
  }
  return lines.join(' \\\n  ');
}

/**
 * One POSIX shell word that stands for `text` exactly: single-quoted, each `'` written `'\''`.
 * Throws a `RangeError` for a NUL character, which no shell argument can carry.
 */
export function shellQuote(text: string): string {
  if (text.includes('\u0000')) {
    throw new RangeError('A NUL character cannot be passed in a shell command.');
  }
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
