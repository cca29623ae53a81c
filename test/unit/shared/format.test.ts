import * as assert from 'node:assert/strict';
import { formatBytes, formatDuration } from '../../../src/shared/format';

describe('format', () => {
  it('formatBytes', () => {
    const cases: Array<[number, string]> = [
      [0, '0 B'],
      [512, '512 B'],
      [1023, '1023 B'],
      [1024, '1.0 KiB'],
      [1536, '1.5 KiB'],
      [1024 * 1023.99, '1.0 MiB'],
      [3.2 * 1024 * 1024, '3.2 MiB'],
      [150 * 1024 * 1024, '150 MiB'],
      [5 * 1024 ** 3, '5.0 GiB'],
      [-3, '0 B'],
    ];
    for (const [n, expected] of cases) {
      assert.equal(formatBytes(n), expected, String(n));
    }
  });

  it('formatDuration', () => {
    const cases: Array<[number, string]> = [
      [0, '0 ms'],
      [850, '850 ms'],
      [999.6, '1.0 s'],
      [2400, '2.4 s'],
      [59960, '1 min'],
      [65000, '1 min 5 s'],
      [3600 * 1000 + 120 * 1000, '1 h 2 min'],
      [-1, '0 ms'],
    ];
    for (const [ms, expected] of cases) {
      assert.equal(formatDuration(ms), expected, String(ms));
    }
  });
});
