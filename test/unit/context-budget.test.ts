import assert from 'node:assert/strict';
import { ContextBudget, scaleComponents } from '../../src/context/budget';
import { resolveModelLimits } from '../../src/context/models';

const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic'); // 200k window, 64k out, 4k buffer

describe('context budget: components and view model', () => {
  it('sums the components and measures them against the effective window', () => {
    const b = new ContextBudget(limits, {
      system: 3000,
      rules: 1000,
      tools: 6000,
      deferredTools: 200,
      summary: 800,
      messages: 50_000,
      toolResults: 21_000,
    });
    assert.equal(b.effectiveWindow, 132_000);
    assert.equal(b.used, 82_000);
    assert.equal(b.remaining, 50_000);
    // Of the effective window, what the thresholds are shares of (never of the whole 200k).
    assert.equal(b.percent, 82_000 / 132_000);
  });

  it('treats missing, negative and non-finite components as zero', () => {
    const b = new ContextBudget(limits, { system: -5, messages: Number.NaN, toolResults: Infinity, rules: 10 });
    assert.equal(b.used, 10);
  });

  it('updates immutably with `with`', () => {
    const a = new ContextBudget(limits, { messages: 100 });
    const b = a.with({ messages: 200 }, { confirmed: true });
    assert.equal(a.used, 100);
    assert.equal(b.used, 200);
    assert.equal(b.toViewModel().confirmed, true);
  });

  it('produces a plain JSON view model with markers, reservation and accuracy', () => {
    const b = new ContextBudget(
      limits,
      { messages: 66_000 },
      { errorBand: 0.07, cacheReadShare: 0.9, deferredCount: 3, deferredSavedTokens: 12_345 },
    );
    const vm = b.toViewModel();
    assert.deepEqual(JSON.parse(JSON.stringify(vm)), vm);
    // The markers are the thresholds themselves: the bar is the effective window.
    assert.equal(vm.markers.compact, 0.95);
    assert.equal(vm.markers.block, 0.98);
    assert.equal(vm.percent, 66_000 / 132_000);
    assert.equal(vm.components.find((c) => c.name === 'messages')?.fraction, 0.5);
    assert.deepEqual(vm.reserved, { output: 64_000, buffer: 4_000 });
    assert.equal(vm.accuracy, 'estimated ±7 %');
    assert.equal(vm.confirmed, false);
    assert.equal(vm.cacheReadShare, 0.9);
    assert.deepEqual(vm.deferred, { count: 3, savedTokens: 12_345 });
    assert.equal(vm.components.find((c) => c.name === 'messages')?.tokens, 66_000);
    assert.equal(vm.components.length, 7);
    assert.equal(vm.limitSource, 'table');
    assert.equal(new ContextBudget(limits, {}, { confirmed: true }).toViewModel().accuracy, 'confirmed');
  });

  it('scales estimated components by a calibration factor, ignoring bad factors', () => {
    assert.deepEqual(scaleComponents({ messages: 1000, system: 10 }, 1.15), { messages: 1150, system: 12 });
    assert.deepEqual(scaleComponents({ messages: 1000 }, Number.NaN), { messages: 1000 });
    assert.deepEqual(scaleComponents({ messages: 1000 }, -2), { messages: 1000 });
  });
});
