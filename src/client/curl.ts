/**
 * "Copy as cURL": a POSIX shell or PowerShell command that sends a recorded request again, byte for
 * byte, with the API key read from the environment instead of written into the command.
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

/** Which shell a copied command is for. */
export type CurlShell = 'posix' | 'powershell';

/** The header lines of a request, in order, as `[name, value]`, without the transport headers. */
function headerEntries(request: CurlRequest): Array<readonly [string, string]> {
  const entries: ReadonlyArray<readonly [string, string]> = Array.isArray(request.headers)
    ? (request.headers as ReadonlyArray<readonly [string, string]>)
    : Object.entries(request.headers as Readonly<Record<string, string>>);
  const out: Array<readonly [string, string]> = [];
  for (const [name, value] of entries) {
    if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
      continue;
    }
    // A line break would split the header in two on the wire; a NUL cannot be passed at all.
    // eslint-disable-next-line no-control-regex
    if (/[\r\n\u0000]/.test(name) || /[\r\n\u0000]/.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new RangeError(`The header "${name.replace(/[^\x20-\x7e]/g, '?')}" cannot be sent as recorded.`);
    }
    out.push([name, value]);
  }
  return out;
}

/**
 * A POSIX shell command (sh, bash, zsh) that reproduces the request:
 * `curl -N -X POST --url 'URL' -H '…' -H "Authorization: Bearer $APPLICATION_QUERY_KEY" --data-binary '…'`,
 * one option per line with ` \` continuations. The URL goes through `--url`, so one starting with
 * `-` is never read as an option. Everything is single-quoted (a `'` becomes `'\''`), so nothing in
 * the URL, headers or body is expanded by the shell; only the key variable is, inside double quotes.
 * Control characters are written as `"$(printf '\ooo')"`, never raw, so pasting the command into a
 * terminal cannot turn them into keystrokes. `-N` shows the answer as it streams. The key never
 * appears in the result. Throws a `RangeError` for a NUL character in the body, or a header that
 * HTTP cannot carry (a line break in it, a bad name).
 */
export function toCurl(request: CurlRequest): string {
  const method = request.method.toUpperCase();
  const first = ['curl', '-N', '-X', /^[A-Z]+$/.test(method) ? method : shellQuote(method)];
  if (GLOB_CHARACTERS.test(request.url)) {
    first.push('--globoff');
  }
  first.push('--url', shellQuote(request.url));
  const lines = [first.join(' ')];
  for (const [name, value] of headerEntries(request)) {
    lines.push(name.toLowerCase() === 'authorization' ? `-H "Authorization: Bearer $${CURL_KEY_VARIABLE}"` : `-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (request.body !== undefined) {
    // --data-binary would read a file for a body starting with "@"; --data-raw never does.
    lines.push(`${request.body.startsWith('@') ? '--data-raw' : '--data-binary'} ${shellQuote(request.body)}`);
  }
  return lines.join(' \\\n  ');
}

/** C0 controls but the line feed, DEL, and the C1 controls: keystrokes, not text, when pasted. */
// eslint-disable-next-line no-control-regex
const PASTE_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]+/g;

/**
 * One POSIX shell word that stands for `text` exactly: single-quoted, each `'` written `'\''`, and
 * each control character (but the line feed) as `"$(printf '\ooo')"` with its UTF-8 bytes in octal.
 * Throws a `RangeError` for a NUL character, which no shell argument can carry.
 */
export function shellQuote(text: string): string {
  if (text.includes('\u0000')) {
    throw new RangeError('A NUL character cannot be passed in a shell command.');
  }
  const quoted = `'${text.replace(/'/g, `'\\''`)}'`;
  return quoted.replace(PASTE_CONTROLS, (controls) => {
    const octal = [...Buffer.from(controls, 'utf8')].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
    return `'"$(printf '${octal}')"'`;
  });
}

/** The characters PowerShell reads as a single quote (it accepts the typographic ones too). */
const POWERSHELL_QUOTES = /['\u2018\u2019\u201a\u201b]/g;

/**
 * One PowerShell single-quoted string that stands for `text` exactly: every quote character
 * PowerShell recognizes (`'` and `‘ ’ ‚ ‛`) is doubled. Nothing in it is expanded.
 */
export function powerShellQuote(text: string): string {
  return `'${text.replace(POWERSHELL_QUOTES, (quote) => quote + quote)}'`;
}

/**
 * A PowerShell expression for `text`: a single-quoted string, or, when it holds control characters
 * or line breaks, Unicode's included (a paste into a console may change them or run them as keys),
 * its UTF-8 bytes in Base64.
 */
function powerShellText(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) {
    return powerShellQuote(text);
  }
  return `([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('${Buffer.from(text, 'utf8').toString('base64')}')))`;
}

/**
 * A PowerShell command (Windows PowerShell 5.1 and PowerShell 7) that reproduces the request with
 * `curl.exe` (not PowerShell's `curl` alias). Every value is a single-quoted string, the key comes
 * from `$env:APPLICATION_QUERY_KEY`, and the body is written byte-exact (UTF-8, no BOM) to a
 * temporary file that curl sends with `--data-binary '@file'`: piping it would re-encode it and add
 * a line break, and Windows PowerShell drops the `"` of JSON in native arguments. For the same
 * reason a header holding `"` goes through a header file (`-H '@file'`), and a `"` or space in the
 * URL is percent-encoded. Throws a `RangeError` for a header that HTTP cannot carry.
 */
export function toPowerShellCurl(request: CurlRequest): string {
  const method = request.method.toUpperCase();
  const url = request.url.replace(/["\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  const before: string[] = [];
  const after: string[] = [];
  const first = ['curl.exe', '-N', '-X', powerShellQuote(method)];
  if (GLOB_CHARACTERS.test(url)) {
    first.push('--globoff');
  }
  first.push('--url', powerShellQuote(url));
  const lines = [first.join(' ')];
  const fileHeaders: string[] = [];
  for (const [name, value] of headerEntries(request)) {
    if (name.toLowerCase() === 'authorization') {
      lines.push(`-H "Authorization: Bearer $env:${CURL_KEY_VARIABLE}"`);
    } else if (value.includes('"') || /[\\]$/.test(value)) {
      fileHeaders.push(`${name}: ${value}`);
    } else {
      lines.push(`-H ${powerShellText(`${name}: ${value}`)}`);
    }
  }
  if (fileHeaders.length > 0) {
    before.push(`$headersFile = New-TemporaryFile`, `[IO.File]::WriteAllText($headersFile.FullName, ${powerShellText(fileHeaders.join('\n'))})`);
    lines.push(`-H "@$($headersFile.FullName)"`);
    after.push('Remove-Item $headersFile');
  }
  if (request.body !== undefined) {
    before.push(`$body = ${powerShellText(request.body)}`, '$bodyFile = New-TemporaryFile', '[IO.File]::WriteAllText($bodyFile.FullName, $body)');
    lines.push(`--data-binary "@$($bodyFile.FullName)"`);
    after.push('Remove-Item $bodyFile');
  }
  return [...before, lines.join(' `\n  '), ...after].join('\n');
}

/** The command for `shell`: {@link toCurl} for POSIX shells, {@link toPowerShellCurl} for PowerShell. */
export function curlCommand(request: CurlRequest, shell: CurlShell): string {
  return shell === 'powershell' ? toPowerShellCurl(request) : toCurl(request);
}

/** Which form of the command suits a terminal: PowerShell for pwsh/powershell, or on Windows; POSIX otherwise. */
export function curlShellFor(shellPath: string | undefined, platform: string): CurlShell {
  const name = (shellPath ?? '').split(/[\\/]/).pop()?.toLowerCase() ?? '';
  if (/^(pwsh|powershell)(\.exe)?$/.test(name)) {
    return 'powershell';
  }
  // On Windows, cmd.exe has no safe quoting for this; bash or sh there (Git Bash, WSL) takes the POSIX form.
  return platform === 'win32' && !/^(bash|sh|zsh|fish|dash|ksh|wsl)(\.exe)?$/.test(name) ? 'powershell' : 'posix';
}
