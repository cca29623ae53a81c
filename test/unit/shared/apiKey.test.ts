import * as assert from 'node:assert/strict';
import { validateApiKey } from '../../../src/shared/apiKey';
import { maskSecrets } from '../../../src/shared/secretMask';

describe('apiKey', () => {
  describe('validateApiKey', () => {
    it('accepts printable ASCII keys', () => {
      for (const key of ['sk-abc123', 'a', 'KEY_with.symbols~!@#$%^&*()+=/']) {
        assert.equal(validateApiKey(key), undefined, key);
      }
    });

    it('refuses an empty key', () => {
      assert.match(validateApiKey('') ?? '', /empty/);
    });

    it('refuses whitespace anywhere', () => {
      for (const key of [' sk-1', 'sk-1 ', 'sk 1', 'sk-1\n', 'sk-1\r\n', '\tsk', 'sk\u00a0x']) {
        assert.match(validateApiKey(key) ?? '', /spaces or line breaks/, JSON.stringify(key));
      }
    });

    it('refuses control characters', () => {
      for (const key of ['sk\u0000x', 'sk\u0007x', 'sk\u007fx']) {
        assert.match(validateApiKey(key) ?? '', /control characters/, JSON.stringify(key));
      }
    });

    it('refuses characters a header cannot carry', () => {
      for (const key of ['sk-é', 'sk-😀', 'sk-\u200b']) {
        assert.match(validateApiKey(key) ?? '', /printable ASCII/, JSON.stringify(key));
      }
    });

    it('never repeats the key in its message', () => {
      const key = 'sk-secret-value ';
      assert.ok(!(validateApiKey(key) ?? '').includes('sk-secret'));
    });
  });

  describe('maskSecrets with short keys', () => {
    it('masks every occurrence of each secret', () => {
      assert.equal(maskSecrets('a sk-1234 b sk-1234 c other', ['sk-1234', 'other']), 'a •••• b •••• c ••••');
    });

    it('masks the URL-encoded form too', () => {
      assert.equal(maskSecrets('url?k=a%2Fb%3Dc', ['a/b=c']), 'url?k=••••');
    });

    it('masks a longer secret whole when it contains a shorter one', () => {
      assert.equal(maskSecrets('xx abcd-efgh yy', ['abcd', 'abcd-efgh']), 'xx •••• yy');
    });

    it('leaves secrets shorter than 4 characters and text without secrets alone', () => {
      assert.equal(maskSecrets('abc abc', ['abc', '']), 'abc abc');
      assert.equal(maskSecrets('nothing here', ['sk-1234']), 'nothing here');
    });
  });
});
