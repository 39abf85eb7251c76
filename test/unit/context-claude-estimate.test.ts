import assert from 'node:assert/strict';
import { CONTENT_CLASSES } from '../../src/context/text-composition';
import { claudeUndercountByClass } from '../fixtures/context/claude-undercount';

/**
 * The largest under-count of the public Claude tokenizer an uncalibrated Claude estimate may have on
 * any slice of any class (bench: `count_claude_worst_undercount`). The factors are set with ~2 %
 * headroom, so on the checked-in corpus the measured under-count is ≤ 0.
 */
const MAX_CLAUDE_UNDERCOUNT = 0.03;

describe('context: uncalibrated Claude estimates stay at or above the public Claude tokenizer', function () {
  this.timeout(120_000);

  it('on every 4 KiB slice of every content class of the real-text corpus, from the exact o200k count and from the safe estimate', async () => {
    const stats = await claudeUndercountByClass();
    for (const [cls, st] of stats) {
      const detail = `${cls} (${st.slices} slices, worst ${st.worstFile}, legacy/o200k up to ${st.worstRatio.toFixed(3)})`;
      assert.ok(st.worstUndercountExact <= MAX_CLAUDE_UNDERCOUNT, `${detail}: exact-count estimate under by ${st.worstUndercountExact}`);
      assert.ok(st.worstUndercountSafe <= MAX_CLAUDE_UNDERCOUNT, `${detail}: safe estimate under by ${st.worstUndercountSafe}`);
    }
    // The corpus must exercise every class, or a class's factor is a guess again.
    assert.deepEqual([...stats.keys()].sort(), [...CONTENT_CLASSES].sort());
    // And it must be one on which the old single factor (o200k × 1.15) failed, or the test proves nothing.
    const worstRatio = Math.max(...[...stats.values()].map((s) => s.worstRatio));
    assert.ok(worstRatio > 1.15 / (1 - MAX_CLAUDE_UNDERCOUNT), `the corpus breaks o200k × 1.15 (worst ratio ${worstRatio})`);
  });
});
