import * as assert from 'node:assert/strict';
import { QUERY_FILE_MAX_BYTES, queryFileTooLargeMessage, tooLargeQueryFile } from '../../../../src/shared/queryFile';

describe('query files: the size limit', () => {
  it('a file over the limit has no queries and one error on its first line that says the limit and what to do', () => {
    assert.equal(QUERY_FILE_MAX_BYTES, 256 * 1024);
    const parsed = tooLargeQueryFile(10 * 1024 * 1024);
    assert.deepEqual(parsed.queries, []);
    assert.deepEqual(parsed.problems.map((p) => [p.code, p.severity, p.span.line, p.queryIndex]), [['tooLarge', 'error', 0, -1]]);
    assert.equal(parsed.problems[0].message, 'This query file is 10.0 MiB; query files over 256 KiB are not read, so its queries are not listed or run. Split it into smaller *.aq.md files.');
    assert.match(queryFileTooLargeMessage(QUERY_FILE_MAX_BYTES + 1), /^This query file is 257 KiB; query files over 256 KiB/);
  });
});
