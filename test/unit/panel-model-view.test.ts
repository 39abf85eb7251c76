import assert from 'node:assert/strict';
import { resolveModelLimits } from '../../src/context/models';
import { withThinking } from '../../src/context/thinking';
import { modelInfoView } from '../../src/panel/model-view';
import { formatUsdRate } from '../../src/protocol/format';
import { ConfigView } from '../../src/protocol/view-models';

describe('panel model view: what the header model picker button shows', () => {
  it('shows the window budgeted to, the price per million tokens and the thinking level in use', () => {
    const limits = withThinking(resolveModelLimits('claude-haiku-4-5', 'anthropic'), 'medium');
    const info = modelInfoView(limits, 'medium');
    assert.deepEqual(info, { window: '200k', price: '$1 / $5 per M tokens', thinking: 'medium', images: true });
    assert.ok(
      ConfigView.safeParse({ provider: 'anthropic', providers: [], model: 'claude-haiku-4-5', hasApiKey: true, modelInfo: info }).success,
    );
    const opus = modelInfoView(withThinking(resolveModelLimits('claude-opus-5-5', 'anthropic'), 'high'), 'high');
    assert.deepEqual(opus, { window: '1M', price: '$4 / $20 per M tokens', thinking: 'high', images: true });
  });

  it('says when the window is only assumed, and when the model is deprecated or retired', () => {
    const unknown = modelInfoView(withThinking(resolveModelLimits('claude-someday-9', 'anthropic'), 'off'), 'off');
    assert.deepEqual([unknown.window, unknown.windowAssumed], ['128k', true]);
    assert.equal(
      modelInfoView(withThinking(resolveModelLimits('claude-sonnet-4-5', 'anthropic'), 'off'), 'off').lifecycle,
      'deprecated, retires 2026-11-30',
    );
    assert.equal(modelInfoView(withThinking(resolveModelLimits('claude-3-opus', 'anthropic'), 'off'), 'off').lifecycle, 'retired');
    const described = resolveModelLimits('claude-someday-9', 'anthropic', undefined, undefined, {
      id: 'claude-someday-9',
      contextWindow: 32_000,
      maxOutput: 8_000,
      lifecycle: 'active',
    });
    assert.deepEqual(modelInfoView(withThinking(described, 'off'), 'off'), { window: '32k', images: true });
  });

  it('shows a server-reported window and no price for a local model; no thinking where none is reserved', () => {
    const local = withThinking(
      resolveModelLimits('llama3.1:8b', 'openai-compatible', undefined, { contextWindow: 8_192, kind: 'ollama' }),
      'high',
    );
    // A server's model: whether it takes images is unknown (absent), so the panel lets them through.
    assert.deepEqual(modelInfoView(local, 'high'), { window: '8.2k' });
    const gpt = withThinking(resolveModelLimits('gpt-4.1', 'openai'), 'high');
    assert.deepEqual(modelInfoView(gpt, 'high'), { window: '1.05M', price: '$2 / $8 per M tokens', images: true });
    assert.equal(modelInfoView(withThinking(resolveModelLimits('o3-mini', 'openai'), 'off'), 'off').images, false);
  });

  it('formats prices in dollars without trailing zeros', () => {
    assert.deepEqual([3, 1.25, 0.5, 0.125, 10].map(formatUsdRate), ['$3', '$1.25', '$0.5', '$0.13', '$10']);
  });
});
