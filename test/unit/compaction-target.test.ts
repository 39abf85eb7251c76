import assert from 'node:assert/strict';
import { createContextGate } from '../../src/agent/context-gate';
import {
  compactionReport,
  compactionTarget,
  DEFAULT_COMPACT_TARGET_SHARE,
  preparedSummaryTarget,
  type CompactionTrigger,
} from '../../src/context/compaction';
import { resolveModelLimits } from '../../src/context/models';
import { DEFAULT_THRESHOLDS } from '../../src/context/settings';
import type { Message } from '../../src/providers/types';
import { session } from '../fixtures/compaction/factories';

const base = { effectiveWindow: 100_000, fixedTokens: 10_000, conversationTokens: 80_000, thresholds: DEFAULT_THRESHOLDS };

describe('compaction target: one definition for the gate, manual compaction and the background summary', () => {
  it('aims for 30 % of the effective window minus what is always sent, or of the room below the compact threshold if more', () => {
    assert.equal(DEFAULT_COMPACT_TARGET_SHARE, 0.3);
    // max(0.3 × 100k − 10k, 0.3 × (0.95 × 100k − 10k)) = max(20k, 25.5k)
    assert.equal(compactionTarget({ ...base, trigger: 'threshold' }), 25_500);
  });

  it('in a small window never aims below 30 % of the room under the compact threshold (no target of 0)', () => {
    // 8k: system prompt and tools take 3,000 tokens, more than 30 % of the window.
    const small = { effectiveWindow: 6_800, fixedTokens: 3_000, conversationTokens: 4_000, thresholds: DEFAULT_THRESHOLDS };
    const target = compactionTarget({ ...small, trigger: 'threshold' });
    assert.equal(target, Math.floor(0.3 * (0.95 * 6_800 - 3_000)));
    assert.ok(target > 0);
  });

  it('every trigger but the threshold frees at least half of the conversation', () => {
    for (const trigger of ['overflow', 'tool', 'manual'] as CompactionTrigger[]) {
      assert.equal(compactionTarget({ ...base, trigger }), 25_500, `${trigger}: the share still bounds it`);
      // A person who presses Compact at 15 % still gets a compaction.
      assert.equal(compactionTarget({ ...base, conversationTokens: 5_000, trigger }), 2_500, trigger);
    }
    assert.equal(compactionTarget({ ...base, conversationTokens: 5_000, trigger: 'threshold' }), 25_500);
  });

  it('honours another share, and never goes negative', () => {
    assert.equal(compactionTarget({ ...base, share: 0.5, trigger: 'threshold' }), 42_500);
    assert.equal(compactionTarget({ ...base, fixedTokens: 500_000, trigger: 'threshold' }), 0);
  });

  it('a prepared summary leaves room for the growth until the compact threshold', () => {
    // 0.3 × 100k − 10k − (0.95 − 0.85) × 100k
    assert.equal(preparedSummaryTarget({ effectiveWindow: 100_000, fixedTokens: 10_000, thresholds: DEFAULT_THRESHOLDS }), 10_000);
    assert.equal(preparedSummaryTarget({ effectiveWindow: 10_000, fixedTokens: 9_000, thresholds: DEFAULT_THRESHOLDS }), 0);
  });

  it("the gate's target for manual compaction is the same rule over the gate's own components", () => {
    const limits = resolveModelLimits('m', 'anthropic', {
      models: { m: { contextWindow: 40_000, maxOutput: 4_000 } },
      providers: {},
      bufferFraction: 0.02,
    });
    const gate = createContextGate({ limits });
    const view: Message[] = session(10, 3000);
    const conversation = view.reduce((s, m) => s + gate.tokensOf(m), 0);
    const expected = compactionTarget({
      effectiveWindow: limits.effectiveWindow,
      fixedTokens: 0,
      conversationTokens: conversation,
      trigger: 'manual',
      thresholds: DEFAULT_THRESHOLDS,
    });
    assert.equal(gate.compactionTarget(view, 'manual'), expected);
    assert.ok(expected <= conversation / 2);
  });
});

describe('compaction report: assembled once', () => {
  const measured = {
    trigger: 'manual' as const,
    beforeTokens: 900,
    afterTokens: 300,
    beforeMessages: 40,
    afterMessages: 9,
    durationMs: 12,
  };
  const cost = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 };

  it('carries the measurements, the strategies, and the summary with its cost', () => {
    assert.deepEqual(compactionReport({ strategies: ['clear_tool_results', 'summary'], summary: 'S', cost }, measured), {
      ...measured,
      strategies: ['clear_tool_results', 'summary'],
      summary: 'S',
      cost,
    });
  });

  it('has no cost when no model summary was made (the chat says "no model call")', () => {
    const r = compactionReport({ strategies: ['drop_oldest_turns'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }, measured);
    assert.equal('cost' in r, false);
    assert.equal('summary' in r, false);
  });
});
