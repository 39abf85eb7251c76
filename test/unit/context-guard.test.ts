import assert from 'node:assert/strict';
import { admit, awarenessNote, preflight, project, type GuardTrace } from '../../src/context/guard';
import { resolveModelLimits } from '../../src/context/models';
import { parseContextSettings } from '../../src/context/settings';
import { seeded } from '../fixtures/context/factories';

// 100k window, 20k output, 2k buffer → effective 78k.
const limits = resolveModelLimits(
  'm',
  'openai-compatible',
  parseContextSettings({ models: { m: { contextWindow: 100_000, maxOutput: 20_000, bufferTokens: 2_000 } } }).settings,
);
const at = (fraction: number, schema = 0) => ({ committed: Math.round(fraction * 78_000) - schema, pending: 0, newTokens: 0, schema });

describe('context guard: preflight', () => {
  it('always subtracts buffer and output: the limit is the effective window', () => {
    const r = preflight({ committed: 1000, pending: 0, newTokens: 0, schema: 0 }, limits);
    assert.equal(r.projection.limit, 78_000);
    assert.equal(r.projection.limit, limits.contextWindow - limits.maxOutput - limits.buffer);
  });

  it('maps the projection to ok / note / compact / block by the default thresholds', () => {
    assert.equal(preflight(at(0.5), limits).status, 'ok');
    assert.equal(preflight(at(0.81), limits).status, 'note');
    const bg = preflight(at(0.86), limits);
    assert.equal(bg.status, 'note');
    assert.equal(bg.prepareSummary, true);
    assert.equal(preflight(at(0.81), limits).prepareSummary, false);
    assert.equal(preflight(at(0.96), limits).status, 'compact');
    assert.equal(preflight(at(0.985), limits).status, 'block');
    assert.equal(preflight(at(1.3), limits).status, 'block');
  });

  it('uses thresholds from settings', () => {
    const { settings } = parseContextSettings({ thresholds: { note: 0.5, background: 0.6, compact: 0.7, block: 0.8 } });
    assert.equal(preflight(at(0.75), limits, { thresholds: settings.thresholds }).status, 'compact');
  });

  it('forces a final turn when compaction was attempted and the projection is still blocked', () => {
    assert.equal(preflight({ ...at(0.99), compactionAttempted: true }, limits).status, 'final');
    assert.equal(preflight({ ...at(0.96), compactionAttempted: true }, limits).status, 'compact');
  });

  it('says so when only the tool schemas overflow, and blocks like any other projection over the margin', () => {
    const r = preflight({ committed: 40_000, pending: 0, newTokens: 0, schema: 39_000 }, limits); // 79k > 78k, base 40k
    assert.equal(r.schemaOnly, true);
    assert.equal(r.status, 'block');
    assert.match(r.reason, /tool definitions \(39,000 tokens\).*clear old results or defer tools/);
    assert.equal(
      preflight({ committed: 40_000, pending: 0, newTokens: 0, schema: 39_000, compactionAttempted: true }, limits).status,
      'final',
    );
  });

  it('projection is never less than the sum of its parts and bad inputs count as zero (randomized)', () => {
    const rnd = seeded(3);
    for (let i = 0; i < 500; i++) {
      const parts = [0, 1, 2, 3].map(() => (rnd() < 0.1 ? [-5, Number.NaN, Infinity][Math.floor(rnd() * 3)] : Math.floor(rnd() * 60_000)));
      const [committed, pending, newTokens, schema] = parts;
      const p = project({ committed, pending, newTokens, schema }, limits);
      const clean = parts.map((v) => (Number.isFinite(v) && v > 0 ? v : 0));
      assert.ok(p.total >= clean.reduce((a, b) => a + b, 0));
      assert.ok(p.total >= p.committed + p.pending + p.newTokens + p.schema);
      assert.ok(Number.isFinite(p.ratio));
      const status = preflight({ committed, pending, newTokens, schema }, limits).status;
      // Never ok/note when the conversation itself is over the effective window.
      if (p.base > p.limit) assert.ok(status === 'block', `${status} at base ${p.base}`);
      // Never sendable when the projection leaves no room for the output.
      if (p.total > limits.contextWindow - limits.maxOutput) assert.equal(status, 'block');
    }
  });

  it('emits a structured trace for every evaluation and survives a throwing sink', () => {
    const traces: GuardTrace[] = [];
    preflight({ ...at(0.9), components: { messages: 70_200 } }, limits, { onTrace: (t) => traces.push(t), now: () => 42 });
    assert.equal(traces.length, 1);
    assert.equal(traces[0].kind, 'preflight');
    assert.equal(traces[0].status, 'note');
    assert.equal(traces[0].at, 42);
    assert.equal(traces[0].model, 'm');
    assert.equal(traces[0].limit, 78_000);
    assert.deepEqual(traces[0].components, { messages: 70_200 });
    assert.doesNotThrow(() =>
      preflight(at(0.5), limits, {
        onTrace: () => {
          throw new Error('sink');
        },
      }),
    );
  });
});

describe('context guard: admitting tool results', () => {
  const low = project(at(0.5), limits);
  it('inlines small results that fit', () => {
    assert.deepEqual(admit({ bytes: 2000, tokens: 500 }, low).decision, 'inline');
  });
  it('offloads results over the threshold (default 4 KiB, configurable)', () => {
    assert.equal(admit({ bytes: 4097, tokens: 1000 }, low).reason, 'over_offload_threshold');
    assert.equal(admit({ bytes: 4096, tokens: 1000 }, low).decision, 'inline');
    assert.equal(admit({ bytes: 3000, tokens: 700 }, low, { offloadThresholdBytes: 2048 }).decision, 'offload');
  });
  it('offloads a small result that would push the projection to the compact threshold', () => {
    const high = project(at(0.945), limits);
    const r = admit({ bytes: 3000, tokens: 800 }, high);
    assert.equal(r.decision, 'offload');
    assert.equal(r.reason, 'would_reach_compact');
    assert.equal(r.projectedTotal, high.total + 800);
  });
  it('writes the awareness note from the note threshold on', () => {
    assert.equal(awarenessNote(project(at(0.79), limits)), undefined);
    assert.equal(awarenessNote(project(at(0.83), limits)), '[Context: 83 % used. compact_context frees space.]');
  });
  it('traces admissions', () => {
    const traces: GuardTrace[] = [];
    admit({ bytes: 10_000, tokens: 2500 }, low, { onTrace: (t) => traces.push(t) });
    assert.equal(traces[0].kind, 'admit');
    assert.equal(traces[0].status, 'offload');
    assert.deepEqual(traces[0].result, { bytes: 10_000, tokens: 2500 });
  });
});
