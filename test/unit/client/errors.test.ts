import * as assert from 'node:assert/strict';
import {
  StoppedError,
  describeStatus,
  HttpStatusError,
  InvalidJsonError,
  NetworkError,
  parseRetryAfter,
  QueryError,
  RedirectError,
  StreamFormatError,
  StreamInterruptedError,
  TimeoutError,
  UnexpectedContentError,
} from '../../../src/client/errors';

describe('errors', () => {
  it('gives every class its kind, its name and a QueryError base', () => {
    const cases: Array<[QueryError, string, string]> = [
      [new HttpStatusError(404, 'Not Found', ''), 'http', 'HttpStatusError'],
      [new RedirectError(302, 'https://elsewhere.example/'), 'redirect', 'RedirectError'],
      [new TimeoutError('headers', 60), 'timeout', 'TimeoutError'],
      [new StreamInterruptedError(10, 'reset.'), 'interrupted', 'StreamInterruptedError'],
      [new StoppedError(), 'stopped', 'StoppedError'],
      [new NetworkError('x'), 'network', 'NetworkError'],
      [new UnexpectedContentError('text/html', 'x'), 'unexpectedContent', 'UnexpectedContentError'],
      [new StreamFormatError('x', 3), 'format', 'StreamFormatError'],
      [new InvalidJsonError('x'), 'invalidJson', 'InvalidJsonError'],
      [new QueryError('config', 'x'), 'config', 'QueryError'],
    ];
    for (const [error, kind, name] of cases) {
      assert.ok(error instanceof QueryError);
      assert.ok(error instanceof Error);
      assert.equal(error.kind, kind);
      assert.equal(error.name, name);
    }
  });

  it('HttpStatusError names the status, its meaning, the wait and what the service said', () => {
    const error = new HttpStatusError(429, 'Too Many Requests', 'slow down', 30000);
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterMs, 30000);
    assert.match(error.message, /^HTTP 429 Too Many Requests: Too many requests/);
    assert.match(error.message, /wait 30 seconds/);
    assert.match(error.message, /The service said: slow down/);
    assert.equal(new HttpStatusError(500, '', '').message.startsWith('HTTP 500: '), true);
    assert.equal(new HttpStatusError(500, '', '').retryAfterMs, undefined);
  });

  it('names the redirect target, the interrupted byte count and the timeout phase', () => {
    assert.match(new RedirectError(301, 'https://x.example/login').message, /HTTP 301.*https:\/\/x\.example\/login/);
    assert.match(new StreamInterruptedError(1234, 'the connection was reset.').message, /interrupted after 1234 bytes: the connection was reset\./);
    assert.match(new TimeoutError('headers', 60).message, /within 60 seconds/);
    assert.match(new TimeoutError('idle', 0.5).message, /nothing arrived for 0\.5 seconds/);
  });

  describe('describeStatus', () => {
    it('explains the common statuses in plain language', () => {
      assert.match(describeStatus(400), /^The service rejected the request body/);
      assert.match(describeStatus(401), /^The API key is missing or not valid/);
      assert.match(describeStatus(403), /not allowed/);
      assert.match(describeStatus(404), /check the application id/);
      assert.match(describeStatus(429), /^Too many requests/);
      for (const status of [405, 408, 413, 415, 500, 502, 503, 504]) {
        assert.ok(describeStatus(status).length > 20, String(status));
      }
    });

    it('falls back by class', () => {
      assert.match(describeStatus(418), /client error/);
      assert.match(describeStatus(599), /server error/);
      assert.notEqual(describeStatus(451), describeStatus(503));
    });
  });

  describe('parseRetryAfter', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');

    it('reads seconds', () => {
      assert.equal(parseRetryAfter('120', now), 120000);
      assert.equal(parseRetryAfter(' 0 ', now), 0);
    });

    it('reads an HTTP date relative to now, never below zero', () => {
      assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30000);
      assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now), 0);
    });

    it('caps absurd values at one day', () => {
      assert.equal(parseRetryAfter('99999999', now), 24 * 60 * 60 * 1000);
    });

    it('ignores missing and unreadable values', () => {
      for (const value of [null, undefined, '', 'soon', '-5']) {
        assert.equal(parseRetryAfter(value, now), undefined, String(value));
      }
    });
  });
});
