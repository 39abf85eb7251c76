import * as assert from 'node:assert/strict';
import { formatBytes, formatDuration, formatPercent, formatTokens } from '../../src/protocol/format';

describe('protocol: numbers as the panel shows them', () => {
  for (const [n, s] of [
    [0, '0'],
    [850, '850'],
    [8_300, '8.3k'],
    [10_000, '10k'],
    [83_200, '83.2k'],
    [117_000, '117k'],
    [117_400, '117k'],
    [200_000, '200k'],
    [999_999, '1M'],
    [1_050_000, '1.05M'],
    [-4_000, '−4k'],
    [Number.NaN, '?'],
  ] as const) {
    it(`tokens: ${n} → ${s}`, () => assert.equal(formatTokens(n), s));
  }

  it('percent: whole percent, "<1 %" for a sliver, 0 for nothing or nonsense', () => {
    assert.equal(formatPercent(0.416), '42 %');
    assert.equal(formatPercent(0.004), '<1 %');
    assert.equal(formatPercent(0), '0 %');
    assert.equal(formatPercent(Number.POSITIVE_INFINITY), '0 %');
    assert.equal(formatPercent(1.2), '120 %');
  });

  it('bytes and durations', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(1536), '1.5 KB');
    assert.equal(formatBytes(1_234_567), '1.2 MB');
    assert.equal(formatDuration(420), '420 ms');
    assert.equal(formatDuration(1_250), '1.3 s');
    assert.equal(formatDuration(125_000), '2 min 5 s');
  });
});
