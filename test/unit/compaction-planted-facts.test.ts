import assert from 'node:assert/strict';
import { isCleared } from '../../src/context/compaction';
import { danglingCalls, textOf } from '../fixtures/agent/harness';
import { PINS, producedResults, runPlantedSession, type PlantedRun } from '../fixtures/compaction/planted-session';

describe('compaction over a 200-turn scripted session: nothing planted is forgotten', function () {
  this.timeout(120_000);
  let run: PlantedRun;
  before(async () => {
    run = await runPlantedSession(200, { window: 32_000, answerBytes: 1500 });
  });
  after(async () => run?.close());

  it('compacts repeatedly through the real loop, with summaries, and never overflows', () => {
    assert.deepEqual(run.errors, []);
    assert.ok(run.reports.length >= 3, `${run.reports.length} compactions`);
    assert.ok(
      run.reports.some((r) => r.strategies.includes('summary')),
      'the summarizer was used',
    );
    assert.ok(
      run.h.server.requests.every((r) => r.outcome !== 'overflow'),
      'no request over the window',
    );
    assert.deepEqual(danglingCalls(run.h.view), []);
  });

  it('gets the context to at most 30 % of the effective window after each threshold compaction', () => {
    const eff = run.h.limits.effectiveWindow;
    for (const r of run.reports.filter((x) => x.trigger === 'threshold')) {
      assert.ok(r.afterTokens <= 0.3 * eff, `after ${r.afterTokens} > ${0.3 * eff}`);
    }
  });

  it('sends every planted instruction and pin in the request after each compaction, the last one included', () => {
    assert.ok(run.plantedBefore[run.plantedBefore.length - 1].length >= 15, 'most instructions were planted before the last compaction');
    run.requestAfter.forEach((index, k) => {
      const body = JSON.stringify(run.h.server.requests[index].body);
      for (const text of run.plantedBefore[k]) assert.ok(body.includes(JSON.stringify(text).slice(1, -1)), `compaction ${k}: ${text}`);
      for (const pin of PINS) assert.ok(body.includes(pin), `compaction ${k}: ${pin}`);
    });
    const last = JSON.stringify(run.h.server.requests[run.h.server.requests.length - 1].body);
    for (const pin of PINS) assert.ok(last.includes(pin));
    for (let i = 3; i < 200; i += 10) assert.ok(last.includes(`PLANTED-${i}:`), `PLANTED-${i} in the final request`);
  });

  it('keeps every tool output that left the context retrievable by ref id', async () => {
    const produced = producedResults(run.h);
    assert.ok(produced.length >= 60, `${produced.length} results`);
    const inView = new Set(
      run.h.view.filter((m) => m.role === 'toolResult' && !isCleared(m)).map((m) => m.role === 'toolResult' && m.toolCallId),
    );
    let removed = 0;
    for (const m of produced) {
      if (m.refId) {
        // Offloaded at admission: the stub's ref id reads the full output.
        assert.ok(await run.h.results.page(m.refId, { offset: 0, limit: 10 }), `${m.toolCallId} offloaded`);
        continue;
      }
      if (inView.has(m.toolCallId)) continue;
      removed++;
      const refs = run.chainResults.flatMap((r) => r.clearedRefIds);
      assert.ok(
        refs.some((id) => run.h.results.get(id) === textOf(m)),
        `${m.toolCallId}'s output is stored under a ref id`,
      );
    }
    assert.ok(removed > 20, `${removed} inline outputs were removed from the context`);
  });
});
