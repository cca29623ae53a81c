import * as assert from 'node:assert/strict';
import { isLoopbackHost, validateBaseUrl, type BaseUrlCheck } from '../../../src/shared/baseUrl';

function accepted(raw: string): Extract<BaseUrlCheck, { ok: true }> {
  const check = validateBaseUrl(raw);
  assert.ok(check.ok, `expected ${raw} to be accepted, got: ${check.ok ? '' : check.message}`);
  return check;
}

function refused(raw: string | undefined, pattern: RegExp): void {
  const check = validateBaseUrl(raw);
  assert.ok(!check.ok, `expected ${String(raw)} to be refused`);
  assert.match(check.message, pattern);
}

describe('validateBaseUrl', () => {
  it('accepts https and normalizes away trailing slashes', () => {
    const check = accepted('https://service.example.com/');
    assert.equal(check.normalized, 'https://service.example.com');
    assert.equal(check.origin, 'https://service.example.com');
    assert.equal(accepted('  https://service.example.com  ').normalized, 'https://service.example.com');
  });

  it('keeps a path prefix', () => {
    const check = accepted('https://gateway.example.com/llm/service//');
    assert.equal(check.normalized, 'https://gateway.example.com/llm/service');
    assert.equal(check.origin, 'https://gateway.example.com');
  });

  it('keeps a port and drops a default one', () => {
    assert.equal(accepted('https://example.com:8443').normalized, 'https://example.com:8443');
    assert.equal(accepted('https://example.com:443/').normalized, 'https://example.com');
  });

  it('accepts http on loopback hosts', () => {
    assert.equal(accepted('http://localhost:3000').origin, 'http://localhost:3000');
    assert.equal(accepted('http://LOCALHOST:3000/').normalized, 'http://localhost:3000');
    assert.equal(accepted('http://127.0.0.1:8080').normalized, 'http://127.0.0.1:8080');
    assert.equal(accepted('http://127.12.0.254/x').normalized, 'http://127.12.0.254/x');
    assert.equal(accepted('http://[::1]:9000/').normalized, 'http://[::1]:9000');
  });

  it('refuses http on any other host', () => {
    for (const raw of ['http://service.example.com', 'http://10.0.0.5:8080', 'http://128.0.0.1', 'http://localhost.example.com', 'http://[::2]/', 'http://0.0.0.0:80']) {
      refused(raw, /must use https: .*only localhost, 127\.0\.0\.0\/8 and \[::1\] may use http:/);
    }
  });

  it('asks for a value when empty', () => {
    refused(undefined, /^Set applicationQuery\.baseUrl in your user settings/);
    refused('', /^Set applicationQuery\.baseUrl in your user settings/);
    refused('   ', /^Set applicationQuery\.baseUrl in your user settings/);
  });

  it('refuses what is not a URL, suggesting https:// for a bare host', () => {
    refused('service.example.com', /not a valid URL.*Did you mean https:\/\/service\.example\.com\?/);
    refused('not a url at all', /not a valid URL/);
  });

  it('refuses other schemes', () => {
    refused('ftp://example.com', /must start with https:\/\/ \(it starts with ftp:\)/);
    refused('file:///etc/passwd', /must start with https:\/\//);
    refused('javascript:alert(1)', /must start with https:\/\//);
  });

  it('refuses credentials in the URL', () => {
    refused('https://user:secret@example.com', /must not contain a user name or password/);
    refused('https://user@example.com', /must not contain a user name or password/);
  });

  it('refuses a query or a fragment, even an empty one', () => {
    refused('https://example.com/?key=1', /must not contain a query/);
    refused('https://example.com/#top', /must not contain a query/);
    refused('https://example.com/?', /must not contain a query/);
  });
});

describe('isLoopbackHost', () => {
  it('knows localhost, 127.0.0.0/8 and [::1]', () => {
    for (const host of ['localhost', 'LocalHost', '127.0.0.1', '127.255.255.255', '127.0.0.0', '[::1]', '::1']) {
      assert.equal(isLoopbackHost(host), true, host);
    }
  });

  it('refuses everything else', () => {
    for (const host of ['', 'example.com', 'localhost.example.com', 'mylocalhost', '128.0.0.1', '127.0.0.256', '127.0.0', '10.0.0.1', '[::2]', '0.0.0.0', '[::]']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });
});
