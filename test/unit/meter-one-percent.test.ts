import assert from 'node:assert/strict';
import type { ContextUsage } from '../../src/agent/events';
import { heldUsage } from '../../src/agent/meter-floor';
import { sizeWarning } from '../../src/agent/session-gate';
import { ContextBudget } from '../../src/context/budget';
import { awarenessNote, project } from '../../src/context/guard';
import { resolveModelLimits } from '../../src/context/models';
import { DEFAULT_THRESHOLDS } from '../../src/context/settings';
import { meterDetails, meterFromUsage, statusBarText } from '../../src/panel/meter-view';

/** The usage the gate would publish for a budget (its own figures, status ok). */
function usageOf(budget: ReturnType<ContextBudget['toViewModel']>): ContextUsage {
  return {
    used: budget.used,
    effectiveWindow: budget.effectiveWindow,
    contextWindow: budget.window,
    ratio: budget.percent,
    status: 'ok',
    budget,
  };
}

/** The whole percents written in a text ("97 %" → 97). */
const percents = (text: string): number[] => [...text.matchAll(/(\d+) %/g)].map((m) => Number(m[1]));

/**
 * One state of the context, every place that puts it as a percent: the bar (aria-valuenow and its
 * label), Details, the status bar, the note the model receives and the notification. A meter of the
 * whole window said 65 % while the model was told 89 % and the bar's marker said "Compacts at 69 %"
 * where Details said 95 %.
 */
describe('meter: one denominator for every percent', () => {
  const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic'); // 200k window, 132k effective
  for (const share of [0.5, 0.83, 0.97, 1.03]) {
    it(`at ${share} of the effective window every view says the same percent`, () => {
      const used = Math.round(share * limits.effectiveWindow);
      const budget = new ContextBudget(limits, { system: 2_000, messages: used - 2_000 }).toViewModel();
      const usage = usageOf(budget);
      const expected = Math.round((used / limits.effectiveWindow) * 100);
      const meter = meterFromUsage(usage);
      assert.equal(meter.percent, expected, 'the bar (aria-valuenow)');
      assert.deepEqual(percents(meter.usedLabel), [expected], meter.usedLabel);
      const details = meterDetails(budget).find((r) => r.label === 'Used');
      assert.ok(details, 'Details says what is used');
      assert.deepEqual(percents(details.value), [expected], details.value);
      const bar = statusBarText(usage);
      assert.equal(bar.percent, `${expected} %`, 'the status bar');
      assert.equal(bar.wholePercent, expected);
      const note = awarenessNote(project({ committed: used, pending: 0, newTokens: 0, schema: 0 }, limits));
      if (share >= DEFAULT_THRESHOLDS.note) assert.deepEqual(percents(note ?? ''), [expected], `the note: ${note}`);
      const warning = sizeWarning(usage, DEFAULT_THRESHOLDS);
      if (share >= DEFAULT_THRESHOLDS.compact) assert.deepEqual(percents(warning ?? ''), [expected], `the notification: ${warning}`);
    });
  }

  it("the bar's compact marker is the threshold Details names, and the denominator is named", () => {
    const budget = new ContextBudget(limits, { messages: 40_000 }).toViewModel();
    const usage = usageOf(budget);
    const meter = meterFromUsage(usage);
    const thresholds = meterDetails(budget).find((r) => r.label === 'Thresholds')!.value;
    const compact = /compact (\d+) %/.exec(thresholds);
    assert.ok(compact, thresholds);
    assert.equal(Math.round(meter.markers.compact * 100), Number(compact[1]), `marker ${meter.markers.compact} vs ${thresholds}`);
    assert.equal(Number(compact[1]), DEFAULT_THRESHOLDS.compact * 100);
    assert.match(thresholds, /of the 132k this model can take/);
    assert.equal(meter.shareLabel, '30 % of the 132k this model can take');
    assert.match(statusBarText(usage).tooltip, /30 % of the 132k this model can take/);
  });

  it('a figure held during a turn (the meter floor) keeps the one denominator', () => {
    const budget = new ContextBudget(limits, { system: 2_000, messages: 60_000 }).toViewModel();
    const usage = usageOf(budget);
    const held = heldUsage(usage, 99_000);
    assert.equal(held.ratio, 99_000 / 132_000);
    assert.equal(held.budget!.percent, held.ratio, 'the breakdown and the total say the same share');
    const sum = held.budget!.components.reduce((s, c) => s + c.fraction, 0);
    assert.ok(Math.abs(sum - held.ratio) < 1e-9, `components ${sum} vs ${held.ratio}`);
    assert.equal(meterFromUsage(held).percent, 75);
    assert.equal(statusBarText(held).percent, '75 %');
  });
});
