import assert from 'node:assert/strict';
import { createContextGate } from '../../src/agent/context-gate';
import { SessionGate, sizeWarning } from '../../src/agent/session-gate';
import { EstimateState } from '../../src/context/confirmed-base';
import { resolveModelLimits } from '../../src/context/models';
import { DEFAULT_THRESHOLDS } from '../../src/context/settings';
import { selectWindow } from '../../src/context/turns';
import type { Message } from '../../src/providers/types';
import { assistant, user } from '../fixtures/context/factories';
import { prose } from '../fixtures/agent/fill';

const settings = (window: number) => ({ models: { m: { contextWindow: window } }, providers: {}, bufferFraction: 0.02 });

describe('meter: a model switch is measured at once against the new window', () => {
  const view: Message[] = [];
  for (let i = 0; i < 20; i++) view.push(user(`q${i}: ${prose(2000, i)}`), assistant(`a${i}: ${prose(2000, i + 50)}`));

  it('after 200k → 8k the meter reports the 8k window at once, also after Clear, and offers to compact', () => {
    const estimates = new EstimateState();
    const gates = new SessionGate((limits) => createContextGate({ limits, estimates }));
    const big = resolveModelLimits('m', 'anthropic', settings(200_000));
    const before = gates.for(big).measure(view);
    assert.equal(before.contextWindow, 200_000);
    assert.equal(sizeWarning(before, DEFAULT_THRESHOLDS), undefined, 'fits the big window');

    const small = resolveModelLimits('m', 'anthropic', settings(8_000));
    const after = gates.for(small).measure(view);
    assert.equal(after.contextWindow, 8_000);
    assert.equal(after.budget!.window, 8_000);
    assert.ok(after.ratio > 1);
    assert.equal(after.status, 'block');
    assert.match(sizeWarning(after, DEFAULT_THRESHOLDS) ?? '', /must be compacted before the next request/);

    const cleared = gates.for(small).measure([]);
    assert.equal(cleared.contextWindow, 8_000, 'Clear keeps the new window');
    assert.equal(cleared.used, 0);
  });

  it("keeps the same gate while the limits stay the same, and a new model never shows the old model's confirmed figure", () => {
    const estimates = new EstimateState();
    let built = 0;
    const gates = new SessionGate((limits) => (built++, createContextGate({ limits, estimates })));
    const a = resolveModelLimits('m', 'anthropic', settings(100_000));
    gates.for(a);
    gates.for(resolveModelLimits('m', 'anthropic', settings(100_000)));
    assert.equal(built, 1);
    estimates.base = { model: 'other-model', messages: view, system: [], tools: [], reported: 1234 };
    assert.equal(gates.for(a).measure(view).budget!.confirmed, false);
  });

  it('offers to compact at the compact threshold, and says nothing below it', () => {
    const at = (ratio: number) => ({ used: ratio * 1000, effectiveWindow: 1000, contextWindow: 1300, ratio, status: 'ok' as const });
    assert.equal(sizeWarning(at(0.9), DEFAULT_THRESHOLDS), undefined);
    assert.match(sizeWarning(at(0.96), DEFAULT_THRESHOLDS) ?? '', /96 %.*Compact it now\?/);
  });

  it('the rolling window drops what fell out of it from the live view, at a safe cut', () => {
    const now = 10_000_000;
    const timed: Message[] = [
      user('old', now - 3_600_000),
      assistant('old answer', [], now - 3_599_000),
      user('new', now - 60_000),
      assistant('new answer', [], now - 59_000),
    ];
    const s = selectWindow(timed, { windowMs: 30 * 60_000, now });
    assert.equal(s.startIndex, 2);
    assert.deepEqual(
      s.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
  });
});
