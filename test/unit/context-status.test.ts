import assert from 'node:assert/strict';
import { createContextGate } from '../../src/agent/context-gate';
import { statusAt } from '../../src/context/compaction';
import { preflight } from '../../src/context/guard';
import { resolveModelLimits } from '../../src/context/models';
import { DEFAULT_THRESHOLDS } from '../../src/context/settings';
import { meterFromBudget } from '../../src/panel/meter-view';
import { session } from '../fixtures/compaction/factories';

describe('context status: one threshold → status rule for the guard, the gate and the meter', () => {
  it('classifies at and above each threshold', () => {
    const t = DEFAULT_THRESHOLDS;
    assert.equal(statusAt(0, t), 'ok');
    assert.equal(statusAt(t.note - 0.001, t), 'ok');
    assert.equal(statusAt(t.note, t), 'note');
    assert.equal(statusAt(t.compact, t), 'compact');
    assert.equal(statusAt(t.block, t), 'block');
    assert.equal(statusAt(3, t), 'block');
  });

  it('a threshold left out never triggers', () => {
    assert.equal(statusAt(0.99, { compact: 0.95 }), 'compact');
    assert.equal(statusAt(0.99, {}), 'ok');
    assert.equal(statusAt(0.9, { compact: 0.95, block: 0.98 }), 'ok', 'no note threshold: no note');
  });

  it('the guard, the gate and the meter agree at every ratio', () => {
    const limits = resolveModelLimits('m', 'anthropic', {
      models: { m: { contextWindow: 20_000, maxOutput: 2_000 } },
      providers: {},
      bufferFraction: 0.02,
    });
    const gate = createContextGate({ limits });
    const turns = session(80, 900);
    const seen = new Set<string>();
    for (let n = 4; n <= turns.length; n += 4) {
      const usage = gate.measure(turns.slice(0, n));
      const guard = preflight({ committed: usage.used, pending: 0, newTokens: 0, schema: 0 }, limits).status;
      seen.add(usage.status);
      assert.equal(usage.status, statusAt(usage.ratio, DEFAULT_THRESHOLDS), `gate at ${usage.ratio}`);
      assert.equal(guard, usage.status, `guard at ${usage.ratio}`);
      const meter = meterFromBudget(usage.budget!);
      if (usage.status !== 'note') assert.equal(meter.status, usage.status, `meter at ${usage.ratio}`);
      else assert.equal(meter.status, 'ok', 'the meter knows no note threshold');
    }
    assert.deepEqual([...seen].sort(), ['block', 'compact', 'note', 'ok'], 'every status was crossed');
  });
});
