import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CURL_KEY_VARIABLE, curlShellFor, powerShellQuote, toCurl, toPowerShellCurl, type CurlRequest } from '../../../src/client/curl';
import { startServer, type TestServer } from '../../support/loopback';
import { seededRandom } from '../../support/random';

const KEY = 'aq_hostile-KEY-0123456789';

const SHELL_TRAPS = ["'", '"', '$(touch pwned)', '`touch pwned`', '${HOME}', '$HOME', ';', '|', '&', '&&', '\\', '!!', '*', '~', '#', '%s', '<', '>', "'\\''", '‘’'];
const UNICODE = ['é', '日本', '😀', '🧑‍💻', '\u2028', 'ﬁ', '𝄞'];
const CONTROLS = ['\n', '\r', '\r\n', '\t', '\u0001', '\u001b[31m', '\u007f', '\u0015', '\u0003', '\u0085'];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

function hostile(next: () => number, pool: readonly string[], pieces: number): string {
  let text = '';
  for (let i = 0; i < pieces; i++) {
    text += next() < 0.3 ? String.fromCharCode(0x21 + Math.floor(next() * 94)) : pick(next, pool);
  }
  return text;
}

/** What a hostile URL path or query may hold (no `#`, `?`, `%` or `/`, which would change its parts). */
const URL_TRAPS = ["'", '"', '$(x)', '`x`', ';', '|', '&', '!', '*', '(', ')', '$', '~', ',', '@', '=', '+', ' ', '<', '>', '\\'];

function run(command: string, env: Record<string, string>, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, NO_PROXY: '*', no_proxy: '*', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Reads one PowerShell single-quoted string starting at `start` as PowerShell's tokenizer does. */
function readPowerShellString(source: string, start: number): { value: string; end: number } {
  const quotes = "'\u2018\u2019\u201a\u201b";
  assert.ok(quotes.includes(source[start]), `a quote at ${start}`);
  let value = '';
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i];
    if (quotes.includes(c)) {
      if (i + 1 < source.length && quotes.includes(source[i + 1])) {
        value += source[i + 1];
        i++;
        continue;
      }
      return { value, end: i + 1 };
    }
    value += c;
  }
  throw new Error('unterminated PowerShell string');
}

/** The text a PowerShell string expression of ours stands for: a quoted string or a Base64 decode. */
function powerShellValue(expression: string): string {
  const base64 = /^\(\[Text\.Encoding\]::UTF8\.GetString\(\[Convert\]::FromBase64String\('([A-Za-z0-9+/=]*)'\)\)\)$/.exec(expression);
  if (base64 !== null) {
    return Buffer.from(base64[1], 'base64').toString('utf8');
  }
  const { value, end } = readPowerShellString(expression, 0);
  assert.equal(end, expression.length, `nothing after the string in ${expression}`);
  return value;
}

describe('Copy as cURL with hostile recorded values', function () {
  this.timeout(60_000);

  describe('POSIX: run by a real /bin/sh against a loopback server', () => {
    let server: TestServer;
    let dir: string;

    before(async function () {
      if (!existsSync('/bin/sh') || !['/usr/bin/curl', '/bin/curl'].some((file) => existsSync(file))) {
        this.skip();
      }
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
      });
      dir = mkdtempSync(path.join(os.tmpdir(), 'aq-curl-'));
    });
    after(async () => {
      await server?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    for (let seed = 1; seed <= 40; seed++) {
      it(`sends exactly the recorded method, URL, headers and body (seed ${seed})`, async () => {
        const next = seededRandom(seed);
        const segment = hostile(next, [...URL_TRAPS, ...UNICODE], 6);
        const query = hostile(next, [...URL_TRAPS, ...UNICODE], 6);
        // The URL as fetch records it: WHATWG-serialized, so quotes, backticks and unicode are percent-encoded, `$();&'!` are not.
        const recorded = new URL(`${server.url}/api/applications/${segment}/query?q=${query}`).href;
        const pathAndQuery = recorded.slice(server.url.length);
        const headers: Array<[string, string]> = [['Content-Type', 'application/json']];
        headers.push(['Authorization', 'Bearer ••••6789']);
        const headerCount = 1 + Math.floor(next() * 3);
        for (let i = 0; i < headerCount; i++) {
          // HTTP trims a value's outer whitespace and carries no control character but tab inside it.
          headers.push([`X-Trap-${i}`, `v${hostile(next, [...SHELL_TRAPS, ...UNICODE, '\t', ' '], 8)}v`]);
        }
        const body = hostile(next, [...SHELL_TRAPS, ...UNICODE, ...CONTROLS], 30);
        const method = pick(next, ['POST', 'PUT', 'PATCH', 'DELETE']);
        const request: CurlRequest = { method, url: recorded, headers, body };
        const command = toCurl(request);
        assert.ok(!command.includes(KEY));
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(command, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no raw control character but the line feed');
        const before = server.requests.length;
        const result = await run(command, { [CURL_KEY_VARIABLE]: KEY }, dir);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(server.requests.length, before + 1, 'exactly one request');
        const got = server.requests[before];
        assert.equal(got.method, method);
        assert.deepEqual(Buffer.from(got.url, 'latin1'), Buffer.from(pathAndQuery, 'utf8'));
        assert.equal(got.body, body);
        assert.equal(got.headers['authorization'], `Bearer ${KEY}`);
        for (const [name, value] of headers.slice(2)) {
          const index = got.rawHeaders.findIndex((raw, i) => i % 2 === 0 && raw.toLowerCase() === name.toLowerCase());
          assert.ok(index >= 0, `${name} arrived`);
          assert.equal(Buffer.from(got.rawHeaders[index + 1], 'latin1').toString('utf8'), value, name);
        }
        assert.deepEqual(readdirSync(dir), [], 'nothing ran in the shell');
      });
    }

    it('a URL starting with "-" is a URL, never an option', async () => {
      for (const url of ['-o./written', '--output=./written', '-K/etc/passwd', `-v ${server.url}/`]) {
        const before = server.requests.length;
        const command = toCurl({ method: 'POST', url, headers: { 'Content-Type': 'application/json' }, body: '{}' });
        assert.match(command, /--url '-/);
        const result = await run(command, {}, dir);
        assert.notEqual(result.code, 0, `${url}: curl refuses it as a URL`);
        assert.equal(server.requests.length, before);
        assert.deepEqual(readdirSync(dir), [], `${url}: nothing written`);
      }
    });

    it('refuses a header HTTP cannot carry instead of splitting it', () => {
      assert.throws(() => toCurl({ method: 'POST', url: 'http://x', headers: { 'X-A': 'a\r\nX-Injected: 1' } }), RangeError);
      assert.throws(() => toCurl({ method: 'POST', url: 'http://x', headers: { 'X A': 'a' } }), RangeError);
      assert.throws(() => toPowerShellCurl({ method: 'POST', url: 'http://x', headers: { 'X-A': 'a\nb' } }), RangeError);
    });
  });

  describe('PowerShell: checked by its parsing rules (no PowerShell on this machine)', () => {
    it('powerShellQuote round-trips every hostile text through a single-quoted string', () => {
      for (let seed = 1; seed <= 200; seed++) {
        const next = seededRandom(seed);
        const text = hostile(next, [...SHELL_TRAPS, ...UNICODE, ...CONTROLS, '\u2018', '\u2019', '\u201a', '\u201b', "''", '$env:X', '@', '`n'], 20);
        const quoted = powerShellQuote(text);
        const { value, end } = readPowerShellString(quoted, 0);
        assert.equal(end, quoted.length, `seed ${seed}: the string ends where it should`);
        assert.equal(value, text, `seed ${seed}`);
      }
    });

    it('the command: curl.exe, --url, the key from $env, every value a literal that reads back exactly', () => {
      for (let seed = 1; seed <= 100; seed++) {
        const next = seededRandom(seed);
        const url = `-http://h/${hostile(next, [...URL_TRAPS, ...UNICODE, ' ', '\u2019'], 6)}`;
        const header = `v${hostile(next, [...SHELL_TRAPS, ...UNICODE, '\t'], 8)}v`;
        const body = hostile(next, [...SHELL_TRAPS, ...UNICODE, ...CONTROLS, '\u2019', '$env:X'], 30);
        const command = toPowerShellCurl({ method: 'POST', url, headers: [['Authorization', `Bearer ${KEY}`], ['X-Trap', header]], body });
        assert.ok(!command.includes(KEY));
        assert.match(command, /^curl\.exe -N -X 'POST' (--globoff )?--url '/m);
        assert.ok(command.includes(`-H "Authorization: Bearer $env:${CURL_KEY_VARIABLE}"`));
        const urlLiteral = /--url ('.*?)(?: `)?$/m.exec(command)?.[1] ?? '';
        assert.equal(readPowerShellString(urlLiteral, 0).value, url.replace(/["\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`));
        const bodyLine = /^\$body = (.*)$/m.exec(command)?.[1] ?? '';
        assert.equal(powerShellValue(bodyLine), body, `seed ${seed}: body`);
        const headerValue = header.includes('"') || header.endsWith('\\') ? /^\[IO\.File\]::WriteAllText\(\$headersFile\.FullName, (.*)\)$/m.exec(command)?.[1] : /^ {2}-H ([('].*?)(?: `)?$/m.exec(command)?.[1];
        assert.equal(powerShellValue(headerValue ?? ''), `X-Trap: ${header}`, `seed ${seed}: header`);
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(command, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no raw control character');
      }
    });

    it('picks the form for the shell: PowerShell for pwsh/powershell and on Windows, else POSIX', () => {
      assert.equal(curlShellFor('/usr/bin/pwsh', 'linux'), 'powershell');
      assert.equal(curlShellFor('C:\\Program Files\\PowerShell\\7\\pwsh.exe', 'win32'), 'powershell');
      assert.equal(curlShellFor('C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', 'win32'), 'powershell');
      assert.equal(curlShellFor('C:\\WINDOWS\\System32\\cmd.exe', 'win32'), 'powershell');
      assert.equal(curlShellFor('', 'win32'), 'powershell');
      assert.equal(curlShellFor('/bin/zsh', 'darwin'), 'posix');
      assert.equal(curlShellFor('/bin/bash', 'linux'), 'posix');
      assert.equal(curlShellFor(undefined, 'linux'), 'posix');
    });
  });
});
