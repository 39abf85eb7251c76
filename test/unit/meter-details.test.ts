import assert from 'node:assert/strict';
import { ContextBudget } from '../../src/context/budget';
import { resolveModelLimits } from '../../src/context/models';
import { meterFromBudget } from '../../src/panel/meter-view';
import { MeterView } from '../../src/protocol/view-models';

describe('meter: it explains itself (hover, details view, Show Context Breakdown)', () => {
  const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic');
  const components = { system: 1_500, rules: 1_200, tools: 4_000, deferredTools: 20, summary: 900, messages: 30_000, toolResults: 12_000 };

  it('lists each component with tokens and share, the reservation, what is free, the thresholds, the window source and the band', () => {
    const b = new ContextBudget(limits, components, { confirmedTokens: 48_000, estimatedTokens: 1_620, bandTokens: 400 }).toViewModel();
    const m = meterFromBudget(b);
    assert.ok(MeterView.safeParse(m).success, 'valid on the wire');
    const row = (label: string) => m.details!.find((r) => r.label === label)?.value ?? '';
    // Every share is of the 132k this model can take (the effective window), as the bar and the status bar.
    assert.equal(row('Used'), '49.6k tokens, 38 % of the 132k this model can take');
    assert.equal(row('Rules'), '1.2k tokens (1 %)');
    assert.equal(row('Messages'), '30k tokens (23 %)');
    assert.equal(row('Deferred tool stubs'), '20 tokens (<1 %)');
    assert.equal(row('Reserved for output'), '64k + 4k buffer for the answer, outside the 132k');
    assert.equal(row('Free'), '82.4k tokens (62 %)');
    assert.match(
      row('Thresholds'),
      /note 80 % \(106k\) · summary prepared 85 % .* compact 95 % .* block 98 % .* of the 132k this model can take/,
    );
    assert.equal(row('Window'), '200k tokens for claude-sonnet-4-5, 132k of them for the context: window from the model table');
    assert.match(row('Estimate'), /48k tokens as the provider counted the last request, plus 1\.6k estimated since \(±400/);
    assert.equal(m.accuracy, '48k from the server + 1.6k estimated (±400)');
  });

  it('says when the window is only assumed', () => {
    const unknown = resolveModelLimits('my-local-model', 'openai-compatible');
    const m = meterFromBudget(new ContextBudget(unknown, { messages: 100 }, { errorBand: 0.2 }).toViewModel());
    assert.match(
      m.details!.find((r) => r.label === 'Window')!.value,
      /128k tokens for my-local-model, [\d.]+k of them for the context: window unknown — assumed 128k/,
    );
    assert.match(m.details!.find((r) => r.label === 'Estimate')!.value, /^estimated: 100 ±20 tokens \(estimated ±20 %/);
  });
});
