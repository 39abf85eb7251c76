import assert from 'node:assert/strict';
import { DEFAULT_CONTEXT_WINDOW, familyFor, findModel, resolveModelLimits } from '../../src/context/models';
import { parseContextSettings } from '../../src/context/settings';

describe('context models: limits resolution', () => {
  it('knows current Anthropic and OpenAI models, dated snapshots included', () => {
    assert.equal(findModel('claude-sonnet-4-5-20250929')?.contextWindow, 200_000);
    assert.equal(findModel('claude-opus-4-1-20250805')?.maxOutput, 32_000);
    assert.equal(findModel('claude-haiku-4-5')?.family, 'claude');
    assert.equal(findModel('gpt-4.1-mini')?.contextWindow, 1_047_576);
    assert.equal(findModel('gpt-4o-2024-08-06')?.contextWindow, 128_000);
    assert.equal(findModel('o4-mini')?.contextWindow, 200_000);
    assert.equal(findModel('o3-mini-2025-01-31')?.contextWindow, 200_000);
    assert.equal(findModel('gpt-5-mini')?.contextWindow, 400_000);
    assert.equal(findModel('gpt-5-chat-latest')?.contextWindow, 128_000);
    assert.equal(findModel('gpt-4-turbo')?.family, 'cl100k');
    assert.equal(findModel('openai/gpt-4o')?.match, 'gpt-4o');
    assert.equal(findModel('gpt-4o')?.cache, 'automatic');
    assert.equal(findModel('claude-sonnet-4')?.cache, 'explicit');
    assert.equal(findModel('llama3.1:8b'), undefined);
  });

  it('resolves window per-model setting → provider setting → table → 128k default', () => {
    const { settings } = parseContextSettings({
      models: { 'gpt-4o': { contextWindow: 64_000 } },
      providers: { openai: { contextWindow: 100_000 }, 'openai-compatible': { contextWindow: 32_768 } },
    });
    assert.deepEqual(
      [resolveModelLimits('gpt-4o', 'openai', settings).contextWindow, resolveModelLimits('gpt-4o', 'openai', settings).source],
      [64_000, 'model-setting'],
    );
    assert.deepEqual(
      [resolveModelLimits('gpt-4.1', 'openai', settings).contextWindow, resolveModelLimits('gpt-4.1', 'openai', settings).source],
      [100_000, 'provider-setting'],
    );
    assert.deepEqual(
      [
        resolveModelLimits('claude-sonnet-4-5', 'anthropic', settings).contextWindow,
        resolveModelLimits('claude-sonnet-4-5', 'anthropic', settings).source,
      ],
      [200_000, 'table'],
    );
    assert.equal(resolveModelLimits('qwen2.5-coder', 'openai-compatible', settings).contextWindow, 32_768);
  });

  it('gives unknown models the defaults and says so', () => {
    const l = resolveModelLimits('mystery-model', 'openai-compatible');
    assert.equal(l.contextWindow, DEFAULT_CONTEXT_WINDOW);
    assert.equal(l.source, 'default');
    assert.equal(l.known, false);
    assert.equal(l.maxOutput, Math.floor(DEFAULT_CONTEXT_WINDOW / 4));
    assert.equal(l.buffer, Math.ceil(DEFAULT_CONTEXT_WINDOW * 0.02));
    assert.equal(l.family, 'o200k');
    assert.equal(familyFor('claude-next', 'openai-compatible'), 'claude');
  });

  it('subtracts output and a 2 % buffer: effective = window − maxOutput − buffer', () => {
    const l = resolveModelLimits('claude-sonnet-4-5', 'anthropic');
    assert.equal(l.maxOutput, 64_000);
    assert.equal(l.buffer, 4_000);
    assert.equal(l.effectiveWindow, 200_000 - 64_000 - 4_000);
    const custom = resolveModelLimits(
      'claude-sonnet-4-5',
      'anthropic',
      parseContextSettings({ models: { 'claude-sonnet-4-5': { maxOutput: 8_000, bufferTokens: 1_000 } } }).settings,
    );
    assert.equal(custom.effectiveWindow, 191_000);
  });

  it('clamps a maxOutput or buffer that would leave no room, with a warning', () => {
    const l = resolveModelLimits(
      'x',
      'openai-compatible',
      parseContextSettings({ models: { x: { contextWindow: 8_000, maxOutput: 16_000 } } }).settings,
    );
    assert.equal(l.maxOutput, 4_000);
    assert.ok(l.effectiveWindow > 0);
    assert.match(l.warnings.join(), /maxOutput/);
  });
});
