import * as assert from 'node:assert/strict';
import { meterFromBudget, meterFromUsage } from '../../src/panel/meter-view';
import { budget } from './panel-factories';

describe('panel: the meter view model from the context budget', () => {
  const b = budget(
    { system: 3_100, rules: 900, tools: 7_400, deferredTools: 600, summary: 2_400, messages: 41_000, toolResults: 27_800 },
    { errorBand: 0.05, cacheReadShare: 0.87, deferredCount: 4, deferredSavedTokens: 5_200 },
  );

  it('shows "used / effective window (percent)" and each component in bar order', () => {
    const m = meterFromBudget(b);
    assert.equal(m.used, 83_200);
    assert.equal(m.usedLabel, '83.2k / 132k (63 %)');
    assert.equal(m.shareLabel, '63 % of the 132k this model can take');
    assert.equal(m.percent, 63);
    assert.deepEqual(
      m.segments.map((s) => s.key),
      ['system', 'rules', 'tools', 'deferredTools', 'summary', 'messages', 'toolResults'],
    );
    assert.equal(m.segments[5].title, 'Messages: 41k tokens (31 %)');
    assert.equal(m.segments[3].label, 'Deferred tool stubs');
  });

  it('reserves output (with the safety buffer) outside the bar and leaves the rest free; fractions add up to the effective window', () => {
    const m = meterFromBudget(b);
    assert.equal(m.output.tokens, b.maxOutput + b.buffer);
    assert.match(m.output.title, /Reserved for the answer: 64k tokens \+ 4k safety buffer, outside the 132k/);
    assert.equal(m.free.tokens, 200_000 - 83_200 - 68_000);
    const total = m.segments.reduce((s, x) => s + x.fraction, 0) + m.free.fraction;
    assert.ok(Math.abs(total - 1) < 1e-9);
  });

  it("says where the window figure came from: table, settings or the server's own report", () => {
    assert.equal(meterFromBudget(b).windowLabel, 'window from the model table');
    assert.equal(meterFromBudget({ ...b, limitSource: 'server' }).windowLabel, 'window reported by the server');
    assert.equal(meterFromBudget({ ...b, limitSource: 'model-setting' }).windowLabel, 'window from settings (model)');
  });

  it('places the compact and block markers where the engine puts them', () => {
    const m = meterFromBudget(b);
    assert.equal(m.markers.compact, b.markers.compact);
    assert.equal(m.markers.block, b.markers.block);
    assert.ok(m.markers.compact < m.markers.block);
  });

  it('says estimated ±x %, the cache share and the deferred tools', () => {
    const m = meterFromBudget(b);
    assert.equal(m.confirmed, false);
    assert.equal(m.accuracy, 'estimated ±5 %');
    assert.equal(m.cacheLabel, '87 % of the last request read from cache');
    assert.equal(m.deferredLabel, '4 tools deferred (5.2k tokens saved)');
  });

  it('says "from the server" when the provider counted the figure, and hides what is unknown', () => {
    const m = meterFromBudget(budget({ messages: 1_000 }, { confirmed: true }));
    assert.equal(m.accuracy, 'from the server');
    assert.equal(m.cacheLabel, null);
    assert.equal(m.deferredLabel, null);
    assert.equal(m.freed, null);
  });

  it('shows "freed" with the time of the compaction, and the loop breaker reason', () => {
    const m = meterFromBudget(b, {
      lastCompaction: { freedTokens: 117_000, at: 5_000 },
      pausedReason: 'two compactions in a row freed < 10 %',
    });
    assert.deepEqual(m.freed, { label: 'freed 117k', at: 5_000 });
    assert.equal(m.pausedReason, 'two compactions in a row freed < 10 %');
  });

  it('derives the status from the markers when the guard did not say', () => {
    const over = budget({ messages: 0.99 * 132_000 });
    assert.equal(meterFromBudget(over).status, 'block');
    assert.equal(meterFromBudget(over, { status: 'compact' }).status, 'compact');
    assert.equal(meterFromBudget(b).status, 'ok');
  });

  it('without a breakdown still shows the real used figure as one segment', () => {
    const m = meterFromUsage({ used: 50_000, effectiveWindow: 132_000, contextWindow: 200_000, ratio: 50_000 / 132_000, status: 'note' });
    assert.equal(m.usedLabel, '50k / 132k (38 %)');
    assert.deepEqual(
      m.segments.map((s) => s.key),
      ['context'],
    );
    assert.equal(m.output.tokens, 68_000);
    assert.equal(m.status, 'note');
  });

  it('never throws on nonsense numbers', () => {
    const bad = { ...b, window: Number.NaN, components: b.components.map((c) => ({ ...c, tokens: -5 })) };
    const m = meterFromBudget(bad);
    assert.equal(m.used, 0);
    assert.equal(m.percent, 0);
  });
});
