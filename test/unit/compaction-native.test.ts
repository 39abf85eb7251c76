import assert from 'node:assert/strict';
import { createCompactionChain, type ChainResult } from '../../src/agent/compaction';
import { CACHED_SUMMARY_MARK, parseHistoryMessage } from '../../src/context/compaction';
import { MIN_COMPACTION_TRIGGER } from '../../src/providers/anthropic-compaction';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { createHarness, MODEL, type Harness } from '../fixtures/agent/harness';
import { filler } from '../fixtures/compaction/factories';

/**
 * The provider's own compaction as the summary step of the chain (against the fake's `compact_20260112`):
 * Headroom's history message, ledger and instructions around it, its real cost, and the fallback to
 * Headroom's summary when the provider refuses.
 */

const WINDOW = 90_000;
const LEDGER = '## Work ledger\n- edited src/server.ts (port 8080)';

async function sessionOn(declares: boolean): Promise<{ h: Harness; server: FakeProvider; reports: ChainResult[] }> {
  const server = await startFakeProvider({
    lineup: [{ id: MODEL, window: WINDOW, maxOutput: 8192, thinking: 'none', contextManagement: declares ? ['compact_20260112'] : [] }],
  });
  const reports: ChainResult[] = [];
  const box: { h?: Harness } = {};
  const chain = createCompactionChain({
    results: createMemoryResultPort(),
    get summarizer() {
      return box.h!.provider;
    },
    // The session's decision (`nativeCompactionFor`) said yes: the model's capabilities are the fake's to honour.
    nativeCompaction: () => ({ minTokens: MIN_COMPACTION_TRIGGER }),
    ledger: () => LEDGER,
    onReport: (r) => void reports.push(r),
  });
  const h = await createHarness({ window: WINDOW, server, gate: { compact: (input, signal) => chain.hook(input, signal) } });
  box.h = h;
  h.config.request = { cacheTail: true };
  return { h, server, reports };
}

async function untilCompacted(h: Harness, reports: ChainResult[], count: number): Promise<void> {
  for (let i = 0; i < 60 && reports.filter((r) => r.summary !== undefined).length < count; i++) {
    h.server.script.push((req) =>
      JSON.stringify((req.body.messages as unknown[]).at(-1)).includes('Headroom: context compaction')
        ? { text: '## Goal\nHeadroom wrote this summary.' }
        : { text: `answer ${i}` },
    );
    const instruction = i === 0 ? 'Always keep the port at 8080. ' : '';
    await h.turn(`${instruction}step ${i}: ${filler(20_000, `step ${i}`)}`);
  }
}

describe('native compaction: the provider writes the summary, Headroom keeps the rest', () => {
  const open: Array<{ h: Harness; server: FakeProvider }> = [];
  afterEach(async () => {
    for (const { h, server } of open.splice(0)) {
      await h.close();
      await server.close();
    }
  });

  it("compacts natively over the agent's own prefix and carries the ledger and the user's instructions next", async () => {
    const s = await sessionOn(true);
    open.push(s);
    await untilCompacted(s.h, s.reports, 1);
    const report = s.reports.find((r) => r.summary !== undefined);
    assert.ok(report, 'a compaction with a summary ran');
    assert.ok(report.strategies.includes('native_summary'), `strategies ${report.strategies.join(', ')}`);
    assert.match(report.summary ?? '', /Summary written as instructed/, "the provider's summary");

    const at = s.server.requests.findIndex((r) => r.body.context_management !== undefined);
    const native = s.server.requests[at];
    const previous = s.server.requests[at - 1];
    assert.match(String(native.headers['anthropic-beta']), /compact-2026-01-12/);
    assert.deepEqual(native.body.system, previous.body.system, "the agent's system");
    assert.deepEqual(native.tools, previous.tools, "the agent's tools");
    const asked = (r: (typeof s.server.requests)[number]) =>
      JSON.stringify((r.body.messages as unknown[]).at(-1)).includes(CACHED_SUMMARY_MARK);
    assert.ok(!s.server.requests.some(asked), 'no summary request of Headroom');
    assert.ok(!s.server.requests.some((r) => JSON.stringify(r.body.messages).includes('<transcript>')), 'nor one of its own');
    assert.ok(native.compaction, 'the server compacted');
    assert.deepEqual(report.cost, native.compaction, 'the cost is the compaction iteration of usage.iterations');
    assert.ok(native.compaction.cacheRead > 0, "the compaction read the agent's cache");

    const next = s.server.requests[at + 1];
    const first = JSON.stringify((next.body.messages as unknown[])[0]);
    assert.match(first, /Summary written as instructed/, "the next request starts with Headroom's history message");
    assert.match(first, /edited src\/server\.ts/, 'with the work ledger');
    assert.match(first, /Always keep the port at 8080/, "with the user's instructions");
    const history = parseHistoryMessage(report.messages[0]);
    assert.ok(history?.summary?.includes('Summary written as instructed'));
  });

  it("falls back to Headroom's own summary when the provider refuses the compaction", async () => {
    const s = await sessionOn(false);
    open.push(s);
    await untilCompacted(s.h, s.reports, 1);
    const report = s.reports.find((r) => r.summary !== undefined);
    assert.ok(report, 'a compaction with a summary ran');
    assert.ok(!report.strategies.includes('native_summary'));
    assert.equal(report.summary, '## Goal\nHeadroom wrote this summary.');
    const refused = s.server.requests.find((r) => r.body.context_management !== undefined);
    assert.equal(refused?.status, 400, 'the native request was sent and refused');
    assert.ok(
      report.notes.some((n) => /provider's own compaction failed/.test(n)),
      report.notes.join(' | '),
    );
  });
});
