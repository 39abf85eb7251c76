import assert from 'node:assert/strict';
import { DEFAULT_SUMMARY_MAX_TOKENS, inputLimitWithin, summaryBudget } from '../../src/context/compaction';

describe('compaction: a summary request reserves its own output inside the window (summary budget)', () => {
  it('fits input + max_tokens + the 2 % buffer in the window, and never exceeds the effective window', () => {
    for (const window of [4096, 8000, 32_000, 200_000]) {
      const effectiveWindow = window - Math.floor(window / 4) - Math.ceil(window * 0.02);
      const b = summaryBudget({ contextWindow: window, effectiveWindow });
      assert.ok(b.inputLimit + b.maxOutputTokens + Math.ceil(window * 0.02) <= window, `${window}: ${JSON.stringify(b)}`);
      assert.ok(b.inputLimit <= effectiveWindow);
      assert.ok(b.inputLimit > 0);
    }
  });

  it('keeps the configured output at usual windows and caps it at a quarter of a small one', () => {
    assert.equal(summaryBudget({ contextWindow: 200_000 }).maxOutputTokens, DEFAULT_SUMMARY_MAX_TOKENS);
    assert.equal(summaryBudget({ contextWindow: 8000 }).maxOutputTokens, 2000);
    assert.equal(summaryBudget({ contextWindow: 4096 }).maxOutputTokens, 1024);
    assert.equal(summaryBudget({ contextWindow: 4096, summaryMaxTokens: 500 }).maxOutputTokens, 500);
  });

  it('at 8k the input limit is what is left after the summary output (the request that was refused before)', () => {
    const b = summaryBudget({ contextWindow: 8000, effectiveWindow: 6816 });
    assert.equal(b.inputLimit, inputLimitWithin(8000, 2000));
    assert.equal(b.inputLimit, 8000 - 2000 - 160);
  });

  it('uses a separate summarizer window as given, and the effective window when the window is unknown', () => {
    assert.deepEqual(summaryBudget({ summarizerWindow: 1500, contextWindow: 8000 }), { maxOutputTokens: 2000, inputLimit: 1500 });
    assert.deepEqual(summaryBudget({ effectiveWindow: 20_000 }), { maxOutputTokens: 2000, inputLimit: 20_000 });
    assert.equal(summaryBudget({}).inputLimit, Infinity);
  });
});
