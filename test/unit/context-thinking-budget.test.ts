import assert from 'node:assert/strict';
import { resolveModelLimits } from '../../src/context/models';
import { parseContextSettings } from '../../src/context/settings';
import { requestThinking, THINKING_BUDGETS, thinkingLevels, thinkingOffers, withThinking } from '../../src/context/thinking';
import { reasoningEffort } from '../../src/providers/openai-convert';

describe('context thinking: as each model takes it, and its place in the output reservation', () => {
  // An answer room set below the model's output limit, so the reservation has room to grow.
  const { settings } = parseContextSettings({ models: { 'claude-haiku-4-5': { maxOutput: 8_000 } } });
  const base = resolveModelLimits('claude-haiku-4-5', 'anthropic', settings);

  it('a budget model: a larger budget lowers the usable input', () => {
    const off = withThinking(base, 'off');
    const low = withThinking(base, 'low');
    const high = withThinking(base, 'high');
    assert.equal(off.effectiveWindow, base.effectiveWindow);
    assert.equal(off.thinkingBudget, 0);
    assert.equal(off.thinking, undefined);
    assert.equal(low.maxOutput, 8_000 + THINKING_BUDGETS.low);
    assert.equal(high.maxOutput, 8_000 + THINKING_BUDGETS.high);
    assert.deepEqual(high.thinking, { mode: 'budget', budgetTokens: THINKING_BUDGETS.high });
    assert.ok(low.effectiveWindow < off.effectiveWindow);
    assert.ok(high.effectiveWindow < low.effectiveWindow);
    assert.equal(off.effectiveWindow - high.effectiveWindow, THINKING_BUDGETS.high);
    // window = reservation + buffer + usable input, always.
    for (const l of [off, low, high]) assert.equal(l.contextWindow, l.maxOutput + l.buffer + l.effectiveWindow);
  });

  it('never reserves more than the model can emit: a reservation at the limit already holds the budget', () => {
    const full = resolveModelLimits('claude-haiku-4-5', 'anthropic'); // maxOutput 64k = the table's limit
    const high = withThinking(full, 'high');
    assert.equal(high.maxOutput, 64_000);
    assert.equal(high.effectiveWindow, full.effectiveWindow);
    assert.equal(high.thinkingBudget, THINKING_BUDGETS.high);
  });

  it('an adaptive model: adaptive thinking with the effort, inside max_tokens (the reservation does not grow)', () => {
    const opus = resolveModelLimits('claude-opus-5-5', 'anthropic');
    const high = withThinking(opus, 'high');
    assert.deepEqual(high.thinking, { mode: 'adaptive', effort: 'high' });
    assert.deepEqual([high.maxOutput, high.effectiveWindow, high.thinkingBudget], [opus.maxOutput, opus.effectiveWindow, 0]);
    assert.deepEqual(withThinking(opus, 'max').thinking, { mode: 'adaptive', effort: 'max' });
    // Opus 5.5 thinks always: off sends nothing (its default), never a `disabled` it would refuse.
    assert.equal(withThinking(opus, 'off').thinking, undefined);
    // Opus 5 may be turned off, Opus 4.6 declares no xhigh: max is its max.
    assert.deepEqual(withThinking(resolveModelLimits('claude-opus-5', 'anthropic'), 'off').thinking, { mode: 'disabled' });
    assert.deepEqual(withThinking(resolveModelLimits('claude-opus-4-6', 'anthropic'), 'max').thinking, { mode: 'adaptive', effort: 'max' });
  });

  it('offers the levels each model declares', () => {
    const levels = (model: string, provider: 'anthropic' | 'openai' = 'anthropic') =>
      thinkingLevels(resolveModelLimits(model, provider).capabilities);
    assert.deepEqual(levels('claude-opus-5-5'), ['low', 'medium', 'high', 'max']);
    assert.deepEqual(levels('claude-opus-5'), ['off', 'low', 'medium', 'high', 'max']);
    assert.deepEqual(levels('claude-haiku-4-5'), ['off', 'low', 'medium', 'high']);
    assert.deepEqual(levels('gpt-5', 'openai'), ['low', 'medium', 'high']);
    assert.deepEqual(levels('gpt-6.1-terra', 'openai'), ['off', 'low', 'medium', 'high', 'max']);
    assert.deepEqual(levels('gpt-4.1', 'openai'), []);
  });

  it('offers each level with what it sends: an adaptive model that may turn thinking off gets efforts, never budgets', () => {
    // Off and three levels, like a budget model's list: only the style tells them apart.
    const petite = thinkingOffers({
      thinking: 'adaptive',
      efforts: ['low', 'medium', 'high'],
      thinkingOff: true,
      sampling: false,
      contextManagement: [],
    });
    assert.deepEqual(petite, [
      { level: 'off', request: { mode: 'disabled' } },
      { level: 'low', request: { mode: 'adaptive', effort: 'low' } },
      { level: 'medium', request: { mode: 'adaptive', effort: 'medium' } },
      { level: 'high', request: { mode: 'adaptive', effort: 'high' } },
    ]);
    assert.deepEqual(thinkingOffers(resolveModelLimits('claude-haiku-4-5', 'anthropic').capabilities), [
      { level: 'off' },
      { level: 'low', request: { mode: 'budget', budgetTokens: THINKING_BUDGETS.low } },
      { level: 'medium', request: { mode: 'budget', budgetTokens: THINKING_BUDGETS.medium } },
      { level: 'high', request: { mode: 'budget', budgetTokens: THINKING_BUDGETS.high } },
    ]);
    assert.deepEqual(thinkingOffers(resolveModelLimits('gpt-4.1', 'openai').capabilities), []);
  });

  it('caps the reservation at half of a small window (unknown reasoning model on a local server)', () => {
    const small = resolveModelLimits('claude-haiku-4-5', 'openai-compatible', undefined, { contextWindow: 16_384, kind: 'ollama' });
    const high = withThinking(small, 'high');
    assert.equal(high.maxOutput, 8_192);
    assert.ok(high.effectiveWindow >= 1);
    assert.equal(high.contextWindow, high.maxOutput + high.buffer + high.effectiveWindow);
  });

  it('sends nothing to a model that does not reason, nor through VS Code language models', () => {
    assert.equal(requestThinking(resolveModelLimits('gpt-4.1', 'openai').capabilities, 'high'), undefined);
    assert.equal(requestThinking(resolveModelLimits('gpt-5', 'vscode-lm').capabilities, 'high'), undefined);
    assert.deepEqual(requestThinking(resolveModelLimits('gpt-5', 'openai').capabilities, 'medium'), { mode: 'effort', effort: 'medium' });
    const l = resolveModelLimits('gpt-4.1', 'openai');
    assert.deepEqual(withThinking(l, 'high'), { ...l, thinkingBudget: 0 });
  });

  it('each budget level maps back to its own OpenAI reasoning effort', () => {
    assert.deepEqual([THINKING_BUDGETS.low, THINKING_BUDGETS.medium, THINKING_BUDGETS.high].map(reasoningEffort), [
      'low',
      'medium',
      'high',
    ]);
  });
});
