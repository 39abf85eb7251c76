import assert from 'node:assert/strict';
import { DEFAULT_THRESHOLDS, defaultContextSettings, parseContextSettings } from '../../src/context/settings';

describe('context settings: validation', () => {
  it('returns the defaults for missing settings', () => {
    assert.deepEqual(parseContextSettings(undefined), { settings: defaultContextSettings(), errors: [] });
    assert.deepEqual(parseContextSettings({}).settings.thresholds, DEFAULT_THRESHOLDS);
  });

  it('accepts valid thresholds and other values', () => {
    const { settings, errors } = parseContextSettings({
      thresholds: { note: 0.7, compact: 0.9 },
      offloadThresholdBytes: 8192,
      debug: true,
      rollingWindowMs: 3_600_000,
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(settings.thresholds, { note: 0.7, background: 0.85, compact: 0.9, block: 0.98 });
    assert.equal(settings.offloadThresholdBytes, 8192);
    assert.equal(settings.debug, true);
    assert.equal(settings.rollingWindowMs, 3_600_000);
  });

  it('rejects an out-of-range threshold with a clear message and keeps its default', () => {
    const { settings, errors } = parseContextSettings({ thresholds: { compact: 1.5, note: 0.75 } });
    assert.equal(settings.thresholds.compact, 0.95);
    assert.equal(settings.thresholds.note, 0.75);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /headroom\.thresholds\.compact/);
    assert.match(errors[0], /\(0, 1\]/);
    assert.match(errors[0], /got 1\.5/);
    assert.match(errors[0], /using 0\.95/);
  });

  it('rejects non-numbers and misordered thresholds, keeping all defaults when the order is broken', () => {
    assert.match(parseContextSettings({ thresholds: { block: 'high' } }).errors[0], /thresholds\.block.*got "high"/);
    const { settings, errors } = parseContextSettings({ thresholds: { compact: 0.99, block: 0.9 } });
    assert.deepEqual(settings.thresholds, DEFAULT_THRESHOLDS);
    assert.match(errors[0], /ordered note ≤ background ≤ compact ≤ block/);
    assert.match(parseContextSettings({ thresholds: 0.9 }).errors[0], /headroom\.thresholds: must be an object/);
    assert.match(parseContextSettings({ thresholds: { note: Number.NaN } }).errors[0], /thresholds\.note/);
  });

  it('rejects other bad values field by field', () => {
    const { settings, errors } = parseContextSettings({
      offloadThresholdBytes: -1,
      bufferFraction: 0.02,
      debug: 'yes',
      models: { 'gpt-4o': { contextWindow: 0 } },
    });
    assert.equal(settings.offloadThresholdBytes, 4096);
    assert.equal(settings.debug, false);
    assert.deepEqual(settings.models, {});
    assert.equal(errors.length, 3);
    assert.ok(errors.some((e) => /^headroom\.offloadThresholdBytes: .*got -1.*using 4096/.test(e)));
    assert.ok(errors.some((e) => /^headroom\.models: gpt-4o\.contextWindow/.test(e)));
  });

  it('never throws on garbage', () => {
    for (const raw of [null, 42, 'x', [], { thresholds: null }, { models: [] }, { thresholds: { note: {} } }]) {
      const r = parseContextSettings(raw);
      assert.ok(r.settings.thresholds.block > 0);
    }
    assert.equal(parseContextSettings(42).errors.length, 1);
  });
});
