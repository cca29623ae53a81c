import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startService, type ReferenceService } from '../../../../service/server';
import { diagnose, formatDiagnosis, type Diagnosis, type DiagnosisStep, type StepId } from '../../../../src/client/diagnose';
import { closedPort, startServer } from '../../../support/loopback';

const CANARY = 'aq_CANARY-diagnose-never-shown-8K2P';
const NO_ENV = {};

function step(diagnosis: Diagnosis, id: StepId): DiagnosisStep {
  const found = diagnosis.steps.find((s) => s.id === id);
  assert.ok(found, `no step ${id}`);
  return found;
}

function assertNoKey(diagnosis: Diagnosis, key: string): void {
  assert.ok(!JSON.stringify(diagnosis).includes(key), 'the key is in the result');
  assert.ok(!formatDiagnosis(diagnosis).includes(key), 'the key is in the report');
}

describe('diagnose', function () {
  this.timeout(30_000);

  describe('against the reference service', () => {
    let service: ReferenceService;
    before(async () => {
      service = await startService({ quiet: true, paceMs: 0, seed: 'diagnose-seed' });
    });
    after(async () => {
      await service?.close();
    });

    it('passes every step and reports it, the key nowhere', async () => {
      const key = service.keyFor('echo');
      const diagnosis = await diagnose({
        baseUrl: service.url,
        applicationId: 'echo',
        apiKey: key,
        settings: [
          { name: 'applicationQuery.baseUrl', value: service.url, source: 'user settings' },
          { name: 'applicationQuery.output', value: 'panel', source: 'default', note: 'a workspace value is ignored' },
        ],
        proxy: { proxySupport: 'override', fetchAdditionalSupport: true, systemCertificates: true, env: NO_ENV },
      });
      assert.equal(diagnosis.ok, true, JSON.stringify(diagnosis.steps, null, 2));
      assert.deepEqual(diagnosis.steps.map((s) => [s.id, s.status]), [
        ['url', 'ok'],
        ['proxy', 'ok'],
        ['dns', 'ok'],
        ['tcp', 'ok'],
        ['tls', 'skipped'],
        ['firstByte', 'ok'],
        ['key', 'ok'],
      ]);
      assert.equal(diagnosis.origin, service.url);
      assert.deepEqual(diagnosis.addresses, [{ address: '127.0.0.1', family: 4 }]);
      assert.match(step(diagnosis, 'firstByte').summary, /^HTTP 401 \(GET http:\/\/127\.0\.0\.1:\d+\/api\/applications\/echo without the key/);
      assert.equal(diagnosis.keyStatus, 200);
      assert.match(step(diagnosis, 'key').summary, /HTTP 200: the key works for echo \("Echo"\)/);
      for (const s of diagnosis.steps.filter((s) => s.status === 'ok' && !['url', 'proxy', 'dns'].includes(s.id))) {
        assert.equal(typeof s.ms, 'number', s.id);
      }
      assertNoKey(diagnosis, key);
      const report = formatDiagnosis(diagnosis);
      assert.match(report, /^# Application Query: connection diagnosis/);
      assert.match(report, /\*\*Every check passed\.\*\*/);
      assert.match(report, /\| ✅ \| Key check \| HTTP 200/);
      assert.match(report, /\| `applicationQuery.output` \| `"panel"` \| default \(a workspace value is ignored\) \|/);
      assert.match(report, /`http.proxySupport`: override/);
      assert.match(report, /never part of this report/);
    });

    it('resolves localhost and connects to whichever address answers', async () => {
      const port = new URL(service.url).port;
      const diagnosis = await diagnose({ baseUrl: `http://localhost:${port}`, proxy: { env: NO_ENV } });
      assert.equal(step(diagnosis, 'dns').status, 'ok');
      assert.ok((diagnosis.addresses ?? []).length >= 1);
      assert.equal(step(diagnosis, 'tcp').status, 'ok');
      assert.match(step(diagnosis, 'tcp').summary, new RegExp(`Connected to 127\\.0\\.0\\.1:${port}`));
      assert.equal(step(diagnosis, 'key').status, 'skipped');
      assert.match(step(diagnosis, 'key').summary, /No application is selected/);
    });

    it('a wrong key: the status and its meaning, never the key', async () => {
      const diagnosis = await diagnose({ baseUrl: service.url, applicationId: 'echo', apiKey: CANARY, proxy: { env: NO_ENV } });
      assert.equal(diagnosis.ok, false);
      assert.equal(diagnosis.keyStatus, 401);
      const key = step(diagnosis, 'key');
      assert.equal(key.status, 'failed');
      assert.match(key.summary, /^HTTP 401: The API key is missing or not valid/);
      assert.match(key.advice ?? '', /Set API Key/);
      assertNoKey(diagnosis, CANARY);
      assert.match(formatDiagnosis(diagnosis), /\*\*1 check failed\*\*: Key check\./);
    });

    it('the key of another application: 403 and its meaning', async () => {
      const diagnosis = await diagnose({ baseUrl: service.url, applicationId: 'demo-assistant', apiKey: service.keyFor('echo'), proxy: { env: NO_ENV } });
      assert.equal(diagnosis.keyStatus, 403);
      assert.match(step(diagnosis, 'key').summary, /not allowed to use this application/);
    });

    it('no key stored: the check is skipped with what to do', async () => {
      const diagnosis = await diagnose({ baseUrl: service.url, applicationId: 'echo', proxy: { env: NO_ENV } });
      assert.equal(diagnosis.ok, true);
      assert.equal(step(diagnosis, 'key').status, 'skipped');
      assert.match(step(diagnosis, 'key').summary, /No API key is stored for echo on http:\/\/127\.0\.0\.1:\d+/);
    });
  });

  it('a service that echoes the Authorization header back in its error: the key stays out', async () => {
    const server = await startServer((req, res) => {
      const sent = String(req.headers.authorization);
      res.writeHead(401, { 'Content-Type': 'application/json', 'X-Echo': sent });
      res.end(JSON.stringify({ error: `invalid key: ${sent}`, key: sent.replace(/^Bearer /, '') }));
    });
    try {
      const diagnosis = await diagnose({ baseUrl: server.url, applicationId: 'app', apiKey: CANARY, proxy: { env: NO_ENV } });
      assert.equal(diagnosis.keyStatus, 401);
      assert.ok(server.requests.some((r) => r.headers.authorization === `Bearer ${CANARY}`), 'the key check sent the key');
      assert.ok(server.requests.some((r) => r.headers.authorization === undefined), 'the first-byte check sent no key');
      assertNoKey(diagnosis, CANARY);
    } finally {
      await server.close();
    }
  });

  it('a stopped service: "connection refused at 127.0.0.1:PORT: is the service running?", no exception', async () => {
    const port = await closedPort();
    const diagnosis = await diagnose({ baseUrl: `http://127.0.0.1:${port}`, applicationId: 'echo', apiKey: CANARY, proxy: { env: NO_ENV } });
    assert.equal(diagnosis.ok, false);
    const tcp = step(diagnosis, 'tcp');
    assert.equal(tcp.status, 'failed');
    assert.equal(tcp.summary, `connection refused at 127.0.0.1:${port}: is the service running?`);
    assert.match(tcp.advice ?? '', /npm run service/);
    assert.deepEqual(['tls', 'firstByte', 'key'].map((id) => step(diagnosis, id as StepId).status), ['skipped', 'skipped', 'skipped']);
    const report = formatDiagnosis(diagnosis);
    assert.ok(report.includes(`connection refused at 127.0.0.1:${port}: is the service running?`));
    assert.match(report, /## What to do/);
    assertNoKey(diagnosis, CANARY);
  });

  it('a service that accepts connections but never answers: each step ends at its timeout', async () => {
    const sockets = new Set<Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const started = Date.now();
      const diagnosis = await diagnose({ baseUrl: `http://127.0.0.1:${port}`, applicationId: 'echo', apiKey: CANARY, timeoutMs: 300, proxy: { env: NO_ENV } });
      assert.ok(Date.now() - started < 5000);
      assert.equal(step(diagnosis, 'tcp').status, 'ok');
      assert.equal(step(diagnosis, 'firstByte').status, 'failed');
      assert.match(step(diagnosis, 'firstByte').summary, /ETIMEDOUT/);
      assert.equal(step(diagnosis, 'key').status, 'failed');
      assert.match(step(diagnosis, 'key').summary, /did not start answering|timed out|within/i);
      assertNoKey(diagnosis, CANARY);
    } finally {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('an unusable base URL: one failed step, the others skipped', async () => {
    for (const baseUrl of ['', 'http://service.example.com', 'not a url']) {
      const diagnosis = await diagnose({ baseUrl, proxy: { env: NO_ENV } });
      assert.equal(step(diagnosis, 'url').status, 'failed', baseUrl);
      assert.ok(diagnosis.steps.slice(1).every((s) => s.status === 'skipped'), baseUrl);
      assert.equal(diagnosis.steps.length, 7);
    }
  });

  it('a name that does not resolve: a DNS failure with advice', async () => {
    const diagnosis = await diagnose({ baseUrl: 'https://no-such-host.invalid', proxy: { env: NO_ENV }, timeoutMs: 3000 });
    assert.equal(step(diagnosis, 'dns').status, 'failed');
    assert.match(step(diagnosis, 'dns').summary, /Could not resolve no-such-host\.invalid/);
    assert.equal(step(diagnosis, 'tcp').status, 'skipped');
    assert.deepEqual(diagnosis.steps.map((s) => s.id), ['url', 'proxy', 'dns', 'tcp', 'tls', 'firstByte', 'key']);
  });

  it('reports the proxy in effect with its password masked, and NO_PROXY exemptions', async () => {
    const port = await closedPort();
    const env = { HTTP_PROXY: 'http://me:hunter2-secret@proxy.example:3128', NO_PROXY: 'example.org' };
    const diagnosis = await diagnose({ baseUrl: `http://127.0.0.1:${port}`, proxy: { env, proxySupport: 'override', fetchAdditionalSupport: false } });
    assert.equal(diagnosis.proxy.proxy, 'http://me:••••@proxy.example:3128');
    assert.equal(diagnosis.proxy.from, 'HTTP_PROXY');
    // Through a proxy, a refused direct connection is a warning, not the verdict.
    assert.equal(step(diagnosis, 'tcp').status, 'warning');
    assert.match(step(diagnosis, 'proxy').advice ?? '', /connect directly/);
    assert.match(step(diagnosis, 'proxy').details.join(' '), /fetchAdditionalSupport is off/);
    const report = formatDiagnosis(diagnosis);
    assert.ok(!report.includes('hunter2') && !JSON.stringify(diagnosis).includes('hunter2'));

    const bypassed = await diagnose({ baseUrl: `http://127.0.0.1:${port}`, proxy: { env: { ...env, NO_PROXY: 'localhost,127.0.0.1' }, httpProxy: 'http://proxy.example:8080' } });
    assert.equal(bypassed.proxy.proxy, 'http://proxy.example:8080');
    assert.equal(bypassed.proxy.from, 'http.proxy');
    assert.equal(bypassed.proxy.bypassedBy, '127.0.0.1');
    assert.equal(step(bypassed, 'tcp').status, 'failed');
  });

  describe('TLS', () => {
    let dir: string;
    let server: https.Server | undefined;
    let port = 0;

    before(function () {
      if (!existsSync('/usr/bin/openssl')) {
        this.skip();
      }
      dir = mkdtempSync(path.join(tmpdir(), 'aq-diagnose-'));
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
        '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
        '-subj', '/CN=aq-self-signed/O=Application Query Tests',
        '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ], { stdio: 'ignore' });
    });

    before(async function () {
      if (dir === undefined) {
        this.skip();
      }
      server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ name: 'TLS app', echo: req.headers.authorization }));
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    after(async () => {
      if (server !== undefined) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server?.close(() => resolve()));
      }
      if (dir !== undefined) {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a self-signed certificate: the exact error code, the certificate, and what to do', async () => {
      const diagnosis = await diagnose({
        baseUrl: `https://127.0.0.1:${port}`,
        applicationId: 'app',
        apiKey: CANARY,
        proxy: { env: { NODE_EXTRA_CA_CERTS: '/etc/ssl/corp.pem' }, systemCertificates: false },
      });
      const tls = step(diagnosis, 'tls');
      assert.equal(tls.status, 'failed');
      assert.equal(diagnosis.tls?.trusted, false);
      assert.equal(diagnosis.tls?.errorCode, 'DEPTH_ZERO_SELF_SIGNED_CERT');
      assert.match(tls.summary, /DEPTH_ZERO_SELF_SIGNED_CERT/);
      assert.match(diagnosis.tls?.protocol ?? '', /^TLSv1\.[23]$/);
      assert.equal(diagnosis.tls?.subject, 'CN=aq-self-signed, O=Application Query Tests');
      assert.equal(diagnosis.tls?.issuer, 'CN=aq-self-signed, O=Application Query Tests');
      assert.ok(Date.parse(diagnosis.tls?.validTo ?? '') > Date.now());
      assert.match(tls.advice ?? '', /NODE_EXTRA_CA_CERTS/);
      assert.match(tls.advice ?? '', /\/etc\/ssl\/corp\.pem/);
      assert.match(tls.advice ?? '', /http\.systemCertificates is off/);
      assert.equal(step(diagnosis, 'firstByte').status, 'skipped');
      // The key check goes through fetch, which refuses the certificate too: the key is never sent.
      assert.equal(step(diagnosis, 'key').status, 'failed');
      assert.match(step(diagnosis, 'key').summary, /certificate/i);
      assertNoKey(diagnosis, CANARY);
      assert.match(formatDiagnosis(diagnosis), /\| ❌ \| TLS \| The certificate is not trusted: DEPTH_ZERO_SELF_SIGNED_CERT\./);
    });

    it('plain http on an https URL: the handshake fails and the report says the port does not speak TLS', async () => {
      const plain = await startServer((_req, res) => {
        res.end('plain');
      });
      try {
        const diagnosis = await diagnose({ baseUrl: `https://127.0.0.1:${plain.port}`, proxy: { env: NO_ENV } });
        const tls = step(diagnosis, 'tls');
        assert.equal(tls.status, 'failed');
        assert.match(tls.advice ?? '', /does not speak TLS/);
      } finally {
        await plain.close();
      }
    });
  });

  describe('environments', () => {
    /** The report's lines between the title and the checks. */
    const head = (report: string): string[] => report.split('\n').slice(0, report.split('\n').indexOf('## Checks'));

    it('the first section names the environment diagnosed, and the diagnosis carries it', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(401).end();
      });
      try {
        const diagnosis = await diagnose({ baseUrl: server.url, environment: 'staging', applicationId: 'echo', proxy: { env: NO_ENV } });
        assert.equal(diagnosis.environment, 'staging');
        assert.equal(step(diagnosis, 'url').status, 'ok');
        const report = formatDiagnosis(diagnosis);
        assert.deepEqual(head(report).slice(0, 3), ['# Application Query: connection diagnosis', '', 'Environment: staging']);
        assert.ok(server.requests.length > 0, 'the environment\'s service was checked');
      } finally {
        await server.close();
      }
    });

    it('without an environment the report says none: applicationQuery.baseUrl', async () => {
      const port = await closedPort();
      const diagnosis = await diagnose({ baseUrl: `http://127.0.0.1:${port}`, proxy: { env: NO_ENV } });
      assert.equal('environment' in diagnosis, false);
      assert.equal(head(formatDiagnosis(diagnosis))[2], 'Environment: none (applicationQuery.baseUrl)');
    });

    it("an environment's unusable base URL names the environment's setting", async () => {
      const diagnosis = await diagnose({ baseUrl: 'http://staging.example.com', environment: 'staging', proxy: { env: NO_ENV } });
      const url = step(diagnosis, 'url');
      assert.equal(url.status, 'failed');
      assert.match(url.summary, /^applicationQuery\.environments\["staging"\]\.baseUrl must use https:/);
      assert.equal(url.advice, 'Set applicationQuery.environments["staging"].baseUrl in your user settings.');
      assert.ok(diagnosis.steps.slice(1).every((s) => s.status === 'skipped'));
      const plainBase = await diagnose({ baseUrl: '', proxy: { env: NO_ENV } });
      assert.equal(step(plainBase, 'url').advice, 'Set applicationQuery.baseUrl in your user settings.');
    });

    it('an environment that is not configured: the URL step fails with why, and nothing is checked or sent', async () => {
      const server = await startServer((_req, res) => {
        res.end('no');
      });
      try {
        const problem = 'The environment "prod" (applicationQuery.environment) is not in applicationQuery.environments.';
        // Even given a reachable URL, a service problem means nothing is contacted.
        const diagnosis = await diagnose({ baseUrl: server.url, environment: 'prod', serviceProblem: problem, applicationId: 'echo', apiKey: CANARY, proxy: { env: NO_ENV } });
        assert.equal(diagnosis.ok, false);
        assert.equal(step(diagnosis, 'url').summary, problem);
        assert.match(step(diagnosis, 'url').advice ?? '', /Select Environment/);
        assert.ok(diagnosis.steps.slice(1).every((s) => s.status === 'skipped'));
        assert.equal(server.requests.length, 0);
        const report = formatDiagnosis(diagnosis);
        assert.equal(head(report)[2], 'Environment: prod');
        assertNoKey(diagnosis, CANARY);
      } finally {
        await server.close();
      }
    });

    it('a hostile environment name stays inline code on its one line of the report', async () => {
      const hostile = 'x`](command:evil)\n# Injected\n| a | b |';
      const diagnosis = await diagnose({ baseUrl: '', environment: hostile, proxy: { env: NO_ENV } });
      const report = formatDiagnosis(diagnosis);
      assert.ok(!report.split('\n').includes('# Injected'), 'no heading of its own');
      assert.equal(head(report)[2], 'Environment: `` x`](command:evil) # Injected | a | b | ``');
      for (const name of ['dev', 'eu-west.2', 'Staging 2', 'prod_eu']) {
        assert.equal(head(formatDiagnosis({ ...diagnosis, environment: name }))[2], `Environment: ${name}`);
      }
    });
  });
});
