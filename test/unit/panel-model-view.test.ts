import assert from 'node:assert/strict';
import { resolveModelLimits } from '../../src/context/models';
import { withThinking } from '../../src/context/thinking';
import { modelInfoView } from '../../src/panel/model-view';
import { formatUsdRate } from '../../src/protocol/format';
import { ConfigView } from '../../src/protocol/view-models';

describe('panel model view: what the header model picker button shows', () => {
  it('shows the window budgeted to, the price per million tokens and the thinking level in use', () => {
    const limits = withThinking(resolveModelLimits('claude-sonnet-4-5', 'anthropic'), 'medium');
    const info = modelInfoView(limits, 'medium');
    assert.deepEqual(info, { window: '200k', price: '$3 / $15 per M tokens', thinking: 'medium', images: true });
    assert.ok(
      ConfigView.safeParse({ provider: 'anthropic', providers: [], model: 'claude-sonnet-4-5', hasApiKey: true, modelInfo: info }).success,
    );
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
