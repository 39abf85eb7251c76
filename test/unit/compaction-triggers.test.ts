import assert from 'node:assert/strict';
import { createCompactionChain, type ChainResult, type CompactionChain } from '../../src/agent/compaction';
import { isHistoryMessage, parseHistoryMessage } from '../../src/context/compaction';
import { createHarness, danglingCalls, textOf, type Harness } from '../fixtures/agent/harness';
import { fillTo } from '../fixtures/agent/fill';
import { fakeSummarizer } from '../fixtures/compaction/factories';
import type { FakeProvider } from '../fixtures/fake-provider/index';
import type { Provider } from '../../src/providers/provider';

describe('compaction chain in the loop: every trigger', () => {
  let h: Harness;
  let chain: CompactionChain;
  let reports: ChainResult[];
  let summarizer: { server: FakeProvider; provider: Provider };
  before(async () => (summarizer = await fakeSummarizer()));
  after(async () => summarizer.server.close());
  afterEach(async () => h?.close());

  async function setUp(): Promise<void> {
    summarizer.server.script.length = 0;
    summarizer.server.requests.length = 0;
    reports = [];
    const c = createCompactionChain({
      summarizer: summarizer.provider,
      summarizerModel: 'fake-model',
      results: { put: (e) => h.results.put(e) },
      pins: () => ['PIN: keep the public API stable'],
      onReport: (r) => reports.push(r),
    });
    chain = c;
    h = await createHarness({ window: 32_000, gate: { compact: c.hook } });
    h.server.script.push({ text: 'ready' });
    await h.turn('hello');
  }

  it('does not compact below the compact threshold, and compacts at it with a summary', async () => {
    await setUp();
    await fillTo(h, 0.9);
    h.server.script.push({ text: 'below' });
    await h.turn('still fine');
    assert.ok(!h.events.some((e) => e.type === 'compaction'), 'nothing at 90 %');
    assert.equal(summarizer.server.requests.length, 0);

    await fillTo(h, 0.97);
    summarizer.server.script.push({ text: 'SUMMARY: the user is filling the context.' });
    h.server.script.push({ text: 'after' });
    await h.turn('now over');
    const e = h.events.find((x) => x.type === 'compaction');
    assert.ok(e && e.type === 'compaction');
    assert.equal(e.report.trigger, 'threshold');
    assert.ok(e.report.strategies.includes('summary'));
    assert.equal(e.report.summary, 'SUMMARY: the user is filling the context.');
    assert.ok(e.report.cost && e.report.cost.output > 0);
    assert.ok(e.report.afterTokens <= 0.3 * h.limits.effectiveWindow);
    const sent = h.server.requests[h.server.requests.length - 1].body.messages as Array<{ role: string; content: unknown }>;
    assert.equal(sent[0].role, 'user');
    assert.match(JSON.stringify(sent[0].content), /This is a summary of earlier work; it is not a new instruction/);
    assert.match(JSON.stringify(sent[0].content), /PIN: keep the public API stable/);
    assert.ok(isHistoryMessage(h.view[0]));
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('on a provider overflow: one compaction, one retry', async () => {
    await setUp();
    await fillTo(h, 0.5);
    summarizer.server.script.push({ text: 'overflow summary' });
    h.server.script.push({ fault: 'overflow' }, { text: 'after the retry' });
    const r = await h.turn('last');
    assert.equal(r.reason, 'done');
    const compactions = h.events.filter((e) => e.type === 'compaction');
    assert.equal(compactions.length, 1);
    assert.ok(compactions[0].type === 'compaction' && compactions[0].report.trigger === 'overflow');
    assert.equal(h.server.requests.length, 3, 'warm-up, the refused request, one retry');
    assert.equal(textOf(h.view[h.view.length - 1]), 'after the retry');
  });

  it("passes the model's compact_context focus to the summarizer", async () => {
    await setUp();
    await fillTo(h, 0.5);
    summarizer.server.script.push({ text: 'focused summary' });
    h.server.script.push(
      { toolCalls: [{ id: 'k1', name: 'compact_context', arguments: { focus: 'the migration plan' } }] },
      { text: 'room again' },
    );
    await h.turn('compact please');
    const e = h.events.find((x) => x.type === 'compaction');
    assert.ok(e && e.type === 'compaction' && e.report.trigger === 'tool');
    assert.match(JSON.stringify(summarizer.server.requests[0].body), /Focus: .*the migration plan/);
    assert.equal(parseHistoryMessage(h.view[0])?.summary, 'focused summary');
  });

  it('runs manually (/compact focus) with the session view, even while automatic compaction is paused', async () => {
    await setUp();
    await fillTo(h, 0.7);
    const tiny = { messages: [h.view[0]], tokensOf: () => 100_000, targetTokens: 10, trigger: 'threshold' as const };
    for (let i = 0; i < 3; i++) await chain.run(tiny, new AbortController().signal);
    assert.ok(chain.paused, 'three failed automatic passes pause it');
    summarizer.server.script.push({ text: 'manual summary' });
    const result = await chain.run(
      {
        messages: h.view,
        tokensOf: (m) => h.gate.ledger.count(m, h.limits.family).tokens,
        targetTokens: Math.floor(0.3 * h.limits.effectiveWindow),
        trigger: 'manual',
        focus: 'tests',
        effectiveWindow: h.limits.effectiveWindow,
      },
      new AbortController().signal,
    );
    assert.ok(result && result.trigger === 'manual' && result.reachedTarget);
    assert.equal(chain.paused, undefined, 'a successful manual pass resumes automatic compaction');
    assert.equal(reports.length, 1);
    assert.match(JSON.stringify(summarizer.server.requests[0].body), /Focus: .*tests/);
  });
});
