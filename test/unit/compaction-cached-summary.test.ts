import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import { CACHED_SUMMARY_MARK } from '../../src/context/compaction';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { createHarness, type Harness } from '../fixtures/agent/harness';
import { filler } from '../fixtures/compaction/factories';

describe("cache-preserving summaries: the summary request reuses the agent's exact prefix", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("sends system, tools, the agent's tool choice and thinking and the conversation as last sent plus one instruction, mostly served from the cache", async () => {
    const chain = createCompactionChain({
      results: createMemoryResultPort(),
      get summarizer() {
        return h!.provider;
      },
    });
    h = await createHarness({ window: 40_000, gate: { compact: (input, signal) => chain.hook(input, signal) } });
    h.config.request = { cacheTail: true, thinking: { mode: 'budget', budgetTokens: 2_048 } };
    let summaryAt = -1;
    for (let i = 0; i < 30 && summaryAt < 0; i++) {
      h.server.script.push((req) => {
        const last = JSON.stringify((req.body.messages as unknown[]).at(-1));
        return last.includes('Headroom: context compaction') ? { text: '## Goal\nThe summary.' } : { text: `answer ${i}` };
      });
      await h.turn(`step ${i}: ${filler(9000, `step ${i}`)}`);
      summaryAt = h.server.requests.findIndex((r) =>
        JSON.stringify((r.body.messages as unknown[]).at(-1)).includes(CACHED_SUMMARY_MARK.slice(1, 30)),
      );
    }
    assert.ok(summaryAt > 0, 'a compaction asked for a cached summary');
    assert.ok(
      !h.server.requests.slice(0, summaryAt).some((r) => JSON.stringify(r.body.messages).includes('<transcript>')),
      'the first summary was the cached one',
    );
    const summary = h.server.requests[summaryAt];
    const previous = h.server.requests[summaryAt - 1];
    assert.deepEqual(summary.tools, previous.tools, 'same tools');
    assert.deepEqual(summary.body.system, previous.body.system, 'same system');
    // Anthropic's cache-invalidation table: a tool_choice or thinking change would invalidate the message cache.
    assert.deepEqual(summary.body.tool_choice, previous.body.tool_choice, "the agent's tool choice");
    assert.deepEqual(summary.body.thinking, previous.body.thinking, "the agent's thinking");
    assert.deepEqual(summary.body.thinking, { type: 'enabled', budget_tokens: 2_048 });
    assert.match(
      JSON.stringify((summary.body.messages as unknown[]).at(-1)),
      /answer in text only/,
      'the "answer in text" instruction is in the message',
    );
    const u = summary.usage!;
    const share = u.cacheRead / (u.input + u.cacheRead + u.cacheWrite);
    assert.ok(share >= 0.8, `cache-read share of the summary request ${share.toFixed(2)}`);
    const report = h.events.find((e) => e.type === 'compaction' && e.report.summary !== undefined);
    assert.ok(report && report.type === 'compaction', 'a compaction with a summary was reported');
    assert.equal(report.report.summary, '## Goal\nThe summary.');
    assert.ok(report.report.cost && report.report.cost.cacheRead === u.cacheRead, "the report carries the summary's cost");
  });

  it('the summary prepared in the background is a cache-preserving request too, and the compaction applies it', async () => {
    const chain = createCompactionChain({
      results: createMemoryResultPort(),
      get summarizer() {
        return h!.provider;
      },
    });
    h = await createHarness({
      window: 40_000,
      gate: { compact: (input, signal) => chain.hook(input, signal), prepare: (input) => chain.prepare(input) },
    });
    h.config.request = { cacheTail: true };
    let applied = false;
    for (let i = 0; i < 30 && !applied; i++) {
      h.server.script.push((req) => {
        const last = JSON.stringify((req.body.messages as unknown[]).at(-1));
        return last.includes('Headroom: context compaction') ? { text: '## Goal\nPrepared.' } : { text: `answer ${i}` };
      });
      await h.turn(`step ${i}: ${filler(9000, `step ${i}`)}`);
      applied = h.events.some((e) => e.type === 'compaction' && e.report.summary === '## Goal\nPrepared.');
    }
    assert.ok(applied, 'a compaction applied the prepared summary');
    const summaries = h.server.requests.filter((r) => JSON.stringify(r.body.messages).includes('Headroom: context compaction'));
    assert.ok(summaries.length >= 1, 'a summary request was sent');
    assert.ok(
      !h.server.requests.some((r) => JSON.stringify(r.body.messages).includes('<transcript>')),
      'no summary request of its own (a quoted transcript)',
    );
    const u = summaries[0].usage!;
    const share = u.cacheRead / (u.input + u.cacheRead + u.cacheWrite);
    assert.ok(share >= 0.8, `cache-read share of the prepared summary request ${share.toFixed(2)}`);
  });
});
