import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startService, type ReferenceService } from '../../../service/server';
import { CURL_KEY_VARIABLE, shellQuote, toCurl, type CurlRequest } from '../../../src/client/curl';
import { QUERY_ACCEPT } from '../../../src/client/queryClient';

const CANARY = 'aq_CANARY-never-in-a-command-0123456789';

/** Bodies that break naive quoting: quotes, expansions, escapes, line breaks, multibyte text. */
const HOSTILE_JSON: Array<[string, string]> = [
  ['quotes', JSON.stringify({ query: `it's "quoted" and ''' and '\\'' and "'"` })],
  ['command substitution', JSON.stringify({ query: '$(touch /tmp/aq-pwned) `touch /tmp/aq-pwned2` ${HOME} $HOME $((1+1)) !! !$' })],
  ['backslashes', JSON.stringify({ query: 'C:\\path\\to\\file \\n \\\\ \\" \\\' ends with \\' })],
  ['raw line breaks between tokens', '{\n  "query": "a",\r\n\t"question": "b"\n}\n'],
  ['escaped control characters', JSON.stringify({ query: 'tab\there\u0001\u001b[31mred\u007f bell\u0007 nl\n cr\r' })],
  ['non-ASCII and emoji', JSON.stringify({ query: 'Grüße — 日本語 한국어 👍🏽 🧑‍💻 𝄞 \u2028\u2029 ﬁ', languageId: 'typescript' })],
  ['starts and ends with a quote', `{"query":"'"} `],
  ['glob and redirect characters', JSON.stringify({ query: '* ? [a-z] {a,b} ~ > /tmp/x < /etc/passwd | cat & ; # %s %n' })],
];

function run(shell: string, command: string, env: Record<string, string>): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', command], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_PROXY: '*', no_proxy: '*', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** What `sh` makes of a word: the arguments it passes on, one per line of the output. */
async function shellWords(shell: string, words: string): Promise<Buffer> {
  const result = await run(shell, `printf '%s\\0' ${words}`, {});
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

describe('curl', () => {
  describe('toCurl', () => {
    const request: CurlRequest = {
      method: 'POST',
      url: 'https://service.example.com/api/applications/my-app/query',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${CANARY}`, Accept: 'text/plain' },
      body: '{"query":"hi"}',
    };

    it('builds a readable multi-line command with the key as a variable', () => {
      assert.equal(
        toCurl(request),
        [
          "curl -N -X POST --url 'https://service.example.com/api/applications/my-app/query' \\",
          "  -H 'Content-Type: application/json' \\",
          '  -H "Authorization: Bearer $APPLICATION_QUERY_KEY" \\',
          "  -H 'Accept: text/plain' \\",
          `  --data-binary '{"query":"hi"}'`,
        ].join('\n'),
      );
      assert.equal(CURL_KEY_VARIABLE, 'APPLICATION_QUERY_KEY');
    });

    it('never copies the Authorization value, masked or not, whatever its case', () => {
      for (const value of [`Bearer ${CANARY}`, 'Bearer ••••6789', CANARY, '']) {
        const command = toCurl({ ...request, headers: [['authorization', value]] });
        assert.ok(!command.includes(CANARY));
        assert.ok(!command.includes('••••'));
        assert.match(command, /-H "Authorization: Bearer \$APPLICATION_QUERY_KEY"/);
      }
    });

    it('leaves out headers curl writes itself, and the body of a GET', () => {
      const command = toCurl({ method: 'get', url: 'https://x.example/api/me', headers: { Host: 'x', 'Content-Length': '3', Accept: 'application/json' } });
      assert.equal(command, "curl -N -X GET --url 'https://x.example/api/me' \\\n  -H 'Accept: application/json'");
    });

    it('turns off URL globbing when the URL has brackets or braces', () => {
      assert.match(toCurl({ ...request, url: 'http://[::1]:8787/api/applications/a/query' }), /^curl -N -X POST --globoff --url 'http:\/\/\[::1\]:8787\//);
      assert.doesNotMatch(toCurl(request), /globoff/);
    });

    it('sends a body starting with "@" as data, never as a file name', () => {
      assert.match(toCurl({ ...request, body: '@/etc/passwd' }), /--data-raw '@\/etc\/passwd'$/);
    });

    it('refuses a NUL character, which no shell argument can carry', () => {
      assert.throws(() => toCurl({ ...request, body: 'a\u0000b' }), RangeError);
      assert.throws(() => shellQuote('\u0000'), RangeError);
    });

    it('quotes every word so the shell gives back the exact text', async () => {
      const texts = ['', "'", "''", "a'b", '"$(id)"', '`id`', '\\', 'line\nbreak\r\n', '\t\u0001\u001b\u007f', '日本語 👍🏽', '!!', '*'];
      for (const shell of ['sh', 'bash'].filter((s) => existsSync(`/usr/bin/${s}`) || existsSync(`/bin/${s}`))) {
        const out = await shellWords(shell, texts.map(shellQuote).join(' '));
        assert.deepEqual(out.toString('utf8').split('\u0000').slice(0, -1), texts, shell);
      }
    });
  });

  describe('the command, run against the reference service', function () {
    this.timeout(60_000);
    let service: ReferenceService;
    let key: string;
    const shells = ['sh', 'bash'].filter((s) => existsSync(`/usr/bin/${s}`) || existsSync(`/bin/${s}`));

    before(async function () {
      if (!existsSync('/usr/bin/curl')) {
        this.skip();
      }
      service = await startService({ quiet: true, paceMs: 0, seed: 'curl-seed' });
      key = service.keyFor('echo');
    });
    after(async () => {
      await service?.close();
    });

    const queryRequest = (body: string): CurlRequest => ({
      method: 'POST',
      url: `${service.url}/api/applications/echo/query`,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ••••${key.slice(-4)}`, Accept: QUERY_ACCEPT },
      body,
    });

    for (const [name, body] of HOSTILE_JSON) {
      it(`echo streams back exactly the body (${name})`, async () => {
        const command = toCurl(queryRequest(body));
        assert.ok(!command.includes(key));
        for (const shell of shells) {
          const result = await run(shell, command, { [CURL_KEY_VARIABLE]: key });
          assert.equal(result.code, 0, `${shell}: ${result.stderr}`);
          assert.ok(result.stdout.equals(Buffer.from(body, 'utf8')), `${shell}: got ${JSON.stringify(result.stdout.toString('utf8'))}`);
          const received = service.requests.at(-1);
          assert.equal(received?.headers['authorization'], `Bearer ${key}`);
          assert.equal(received?.headers['content-type'], 'application/json');
          assert.equal(received?.headers['accept'], QUERY_ACCEPT);
        }
      });
    }

    it('sends raw control characters and line breaks byte-exact, even where the service rejects the JSON', async () => {
      const body = `{"query":"raw \u0001\u0002\u001f\u007f\ttab\nnewline\r\ncrlf ' " $(x) \`y\` \\"}`;
      for (const shell of shells) {
        const result = await run(shell, toCurl(queryRequest(body)), { [CURL_KEY_VARIABLE]: key });
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout.toString('utf8'), /not valid JSON/);
        assert.equal(service.requests.at(-1)?.body, body);
      }
    });

    it('a body starting with "@" reaches the service as text', async () => {
      const result = await run('sh', toCurl(queryRequest('@/etc/hostname')), { [CURL_KEY_VARIABLE]: key });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(service.requests.at(-1)?.body, '@/etc/hostname');
    });

    it('reproduces an authenticated GET', async () => {
      const command = toCurl({ method: 'GET', url: `${service.url}/api/applications/echo`, headers: { Authorization: 'Bearer ••••', Accept: 'application/json' } });
      const result = await run('sh', command, { [CURL_KEY_VARIABLE]: key });
      assert.equal(result.code, 0, result.stderr);
      assert.equal((JSON.parse(result.stdout.toString('utf8')) as { id: string }).id, 'echo');
    });

    it('without the variable the service refuses it: nothing else stands in for the key', async () => {
      const result = await run('sh', toCurl(queryRequest('{"query":"x"}')), {});
      assert.equal(result.code, 0, result.stderr);
      assert.equal(service.requests.at(-1)?.status, 401);
    });

    it('works with an IPv6 loopback URL', async function () {
      let v6: ReferenceService;
      try {
        v6 = await startService({ quiet: true, paceMs: 0, seed: 'curl-seed', host: '::1' });
      } catch {
        this.skip();
      }
      try {
        const body = JSON.stringify({ query: 'über [::1] {a,b}' });
        const command = toCurl({ ...queryRequest(body), url: `${v6.url}/api/applications/echo/query` });
        const result = await run('sh', command, { [CURL_KEY_VARIABLE]: v6.keyFor('echo') });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout.toString('utf8'), body);
      } finally {
        await v6.close();
      }
    });
  });
});
