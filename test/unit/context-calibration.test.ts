import assert from 'node:assert/strict';
import { Calibration, MAX_FACTOR, MIN_FACTOR } from '../../src/context/calibration';
import { seeded } from '../fixtures/context/factories';

const usage = (input: number, cacheRead = 0, cacheWrite = 0) => ({ input, output: 100, cacheRead, cacheWrite });

describe('context calibration', () => {
  it('converges on a synthetic 15 % bias within 5 requests, with noise', () => {
    const cal = new Calibration();
    const rnd = seeded(5);
    for (let i = 0; i < 5; i++) {
      const estimate = 20_000 + Math.floor(rnd() * 100_000);
      const reported = Math.round(estimate * 1.15 * (1 + (rnd() - 0.5) * 0.02)); // ±1 % noise
      cal.observe(
        'claude-sonnet-4-5',
        estimate,
        usage(Math.round(reported * 0.2), Math.round(reported * 0.7), reported - Math.round(reported * 0.2) - Math.round(reported * 0.7)),
      );
    }
    assert.ok(Math.abs(cal.factor('claude-sonnet-4-5') - 1.15) < 0.02, String(cal.factor('claude-sonnet-4-5')));
    assert.equal(cal.apply('claude-sonnet-4-5', 1000), Math.ceil(1000 * cal.factor('claude-sonnet-4-5')));
    assert.match(cal.label('claude-sonnet-4-5'), /^estimated ±\d+ %$/);
    assert.equal(cal.label('claude-sonnet-4-5', true), 'confirmed');
  });

  it('counts cache reads and writes as input', () => {
    const cal = new Calibration();
    cal.observe('m', 10_000, usage(1_000, 8_000, 2_000));
    assert.equal(cal.factor('m'), 1.1);
  });

  it('is per model and starts at 1 with a default error band', () => {
    const cal = new Calibration();
    cal.observe('a', 10_000, usage(12_000));
    assert.equal(cal.factor('b'), 1);
    assert.equal(cal.label('b'), 'estimated ±10 %');
  });

  it('never yields NaN, zero or negative factors whatever it is fed (randomized)', () => {
    const cal = new Calibration();
    const rnd = seeded(9);
    const garbage = [0, -1, Number.NaN, Infinity, -Infinity, 1e-9, 1e12, 5];
    for (let i = 0; i < 2000; i++) {
      const pick = () => (rnd() < 0.3 ? garbage[Math.floor(rnd() * garbage.length)] : Math.floor(rnd() * 200_000));
      cal.observe('m', pick(), { input: pick(), output: 0, cacheRead: pick(), cacheWrite: pick(), estimated: rnd() < 0.05 });
      const f = cal.factor('m');
      assert.ok(Number.isFinite(f) && f >= MIN_FACTOR && f <= MAX_FACTOR, String(f));
      assert.ok(Number.isFinite(cal.errorBand('m')) && cal.errorBand('m') > 0);
      assert.ok(cal.apply('m', 1000) > 0);
    }
  });

  it('ignores provider-estimated usage and tiny requests', () => {
    const cal = new Calibration();
    cal.observe('m', 10_000, { ...usage(15_000), estimated: true });
    cal.observe('m', 10, usage(15));
    assert.equal(cal.state('m').samples, 0);
  });

  it('round-trips through JSON and drops invalid persisted entries', () => {
    const cal = new Calibration();
    cal.observe('m', 10_000, usage(13_000));
    cal.observe('m', 10_000, usage(13_400));
    const restored = new Calibration(JSON.parse(JSON.stringify(cal.toJSON())) as unknown[]);
    assert.deepEqual(restored.state('m'), cal.state('m'));
    const junk = new Calibration([{ model: 'x', factor: -3 }, { model: 'y', factor: 50, samples: 'many' }, null, 'z']);
    assert.equal(junk.factor('x'), 1);
    assert.equal(junk.factor('y'), MAX_FACTOR);
    assert.equal(junk.state('y').samples, 0);
  });
});
