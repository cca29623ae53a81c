import * as assert from 'node:assert/strict';
import { describeNetworkError, plainExcerpt, sanitizeError } from '../../../src/client/failureText';

describe('http helpers', () => {
  describe('plainExcerpt', () => {
    it('reduces HTML to its visible text', () => {
      const html = '<html><head><title>Oops</title><script>alert("x")</script><style>p{}</style></head><body><!-- hidden --><p>Service &lt;down&gt; &#x2014; retry</p></body></html>';
      assert.equal(plainExcerpt(html, 'text/html'), 'Oops Service <down> — retry');
    });

    it('takes the message of a JSON error body', () => {
      assert.equal(plainExcerpt('{"error":{"message":"bad key"}}', 'application/json'), 'bad key');
      assert.equal(plainExcerpt('{"error":"rate limited"}', ''), 'rate limited');
      assert.equal(plainExcerpt('{"detail":"not found"}', ''), 'not found');
      assert.equal(plainExcerpt('{"other":1}', ''), '{"other":1}');
    });

    it('strips control characters, collapses whitespace and caps the length at 500', () => {
      assert.equal(plainExcerpt('a\u0000b\u001b[31m\n\n  c\t', 'text/plain'), 'a b [31m c');
      const long = plainExcerpt('y'.repeat(2000), 'text/plain');
      assert.equal(long.length, 500);
      assert.ok(long.endsWith('…'));
    });
  });

  describe('describeNetworkError', () => {
    const withCode = (code: string, message = code): Error => new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });

    it('names the common causes', () => {
      assert.match(describeNetworkError(withCode('ECONNREFUSED'), 'http://127.0.0.1:9'), /^Could not connect to http:\/\/127\.0\.0\.1:9 \(connection refused\)/);
      assert.match(describeNetworkError(withCode('ENOTFOUND'), 'https://nope.example'), /Could not find the host nope\.example \(DNS lookup failed\)/);
      assert.match(describeNetworkError(withCode('CERT_HAS_EXPIRED', 'certificate has expired'), 'https://s.example'), /certificate is not trusted \(CERT_HAS_EXPIRED: certificate has expired\)/);
      assert.match(describeNetworkError(withCode('UND_ERR_CONNECT_TIMEOUT'), 'https://s.example'), /timed out/);
    });

    it('finds a code inside an AggregateError and falls back to the message', () => {
      const aggregate = new TypeError('fetch failed', { cause: new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all failed') });
      assert.match(describeNetworkError(aggregate, 'http://localhost:1'), /connection refused/);
      assert.equal(describeNetworkError(new TypeError('fetch failed', { cause: new Error('something odd') }), 'https://s.example'), 'The request to https://s.example failed: something odd.');
    });
  });

  it('sanitizeError masks secrets in a message', () => {
    const error = sanitizeError(new Error('key sk-1234567 leaked'), ['sk-1234567']);
    assert.ok(error instanceof Error);
    assert.equal(error.message, 'key •••• leaked');
  });
});
