import assert from 'node:assert/strict';
import { resolveModelLimits } from '../../src/context/models';
import { parseContextSettings } from '../../src/context/settings';
import { THINKING_BUDGETS, thinkingBudgetFor, withThinking } from '../../src/context/thinking';
import { reasoningEffort } from '../../src/providers/openai-convert';

describe('context thinking budget: counted in the output reservation', () => {
  // An answer room set below the model's output limit, so the reservation has room to grow.
  const { settings } = parseContextSettings({ models: { 'claude-sonnet-4-5': { maxOutput: 8_000 } } });
  const base = resolveModelLimits('claude-sonnet-4-5', 'anthropic', settings);

  it('a larger thinking budget lowers the usable input', () => {
    const off = withThinking(base, 'off');
    const low = withThinking(base, 'low');
    const high = withThinking(base, 'high');
    assert.equal(off.effectiveWindow, base.effectiveWindow);
    assert.equal(off.thinkingBudget, 0);
    assert.equal(low.maxOutput, 8_000 + THINKING_BUDGETS.low);
    assert.equal(high.maxOutput, 8_000 + THINKING_BUDGETS.high);
    assert.ok(low.effectiveWindow < off.effectiveWindow);
    assert.ok(high.effectiveWindow < low.effectiveWindow);
    assert.equal(off.effectiveWindow - high.effectiveWindow, THINKING_BUDGETS.high);
    // window = reservation + buffer + usable input, always.
    for (const l of [off, low, high]) assert.equal(l.contextWindow, l.maxOutput + l.buffer + l.effectiveWindow);
  });

  it('never reserves more than the model can emit: a reservation at the limit already holds the budget', () => {
    const full = resolveModelLimits('claude-sonnet-4-5', 'anthropic'); // maxOutput 64k = the table's limit
    const high = withThinking(full, 'high');
    assert.equal(high.maxOutput, 64_000);
    assert.equal(high.effectiveWindow, full.effectiveWindow);
    assert.equal(high.thinkingBudget, THINKING_BUDGETS.high);
  });

  it('caps the reservation at half of a small window (unknown reasoning model on a local server)', () => {
    const small = resolveModelLimits('gpt-5-mini', 'openai-compatible', undefined, { contextWindow: 16_384, kind: 'ollama' });
    const high = withThinking(small, 'high');
    assert.equal(high.maxOutput, 8_192);
    assert.ok(high.effectiveWindow >= 1);
    assert.equal(high.contextWindow, high.maxOutput + high.buffer + high.effectiveWindow);
  });

  it('sends no budget to a model that does not reason, nor through VS Code language models', () => {
    assert.equal(thinkingBudgetFor('openai', 'gpt-4.1', 'high'), 0);
    assert.equal(thinkingBudgetFor('vscode-lm', 'gpt-5', 'high'), 0);
    assert.equal(thinkingBudgetFor('openai', 'gpt-5', 'medium'), THINKING_BUDGETS.medium);
    const l = resolveModelLimits('gpt-4.1', 'openai');
    assert.deepEqual(withThinking(l, 'high'), { ...l, thinkingBudget: 0 });
  });

  it('each level maps back to its own OpenAI reasoning effort', () => {
    assert.deepEqual([THINKING_BUDGETS.low, THINKING_BUDGETS.medium, THINKING_BUDGETS.high].map(reasoningEffort), [
      'low',
      'medium',
      'high',
    ]);
  });
});
