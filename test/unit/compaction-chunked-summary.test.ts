import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import { planChunks, summarizeInChunks } from '../../src/agent/compaction/chunked-summary';
import type { CompactInput } from '../../src/agent/compact-hook';
import { buildMergeRequest, buildSummaryRequest, parseHistoryMessage } from '../../src/context/compaction';
import type { Message, ProviderRequest } from '../../src/providers/types';
import type { Provider } from '../../src/providers/provider';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import type { FakeProvider } from '../fixtures/fake-provider/index';
import { fakeSummarizer, filler, session, tokensOf, total } from '../fixtures/compaction/factories';

const WINDOW = 20_000;
const SMALL = 'small-summarizer';
const signal = () => new AbortController().signal;
const reqTokens = (req: ProviderRequest) => req.messages.reduce((s, m) => s + tokensOf(m), 0) + 100;

describe("compaction cannot deadlock: a history larger than the summarizer's window is summarized in chunks and merged", () => {
  let server: FakeProvider;
  let provider: Provider;
  before(async () => ({ server, provider } = await fakeSummarizer()));
  after(async () => server.close());
  beforeEach(() => {
    server.script.length = 0;
    server.requests.length = 0;
  });

  it('plans chunks that each fit, in order, covering every message once', async () => {
    const view = session(20, 300, (i) => `turn ${i}: ${filler(800, `t${i}`)}`);
    const deps = {
      limit: 2000,
      requestTokens: reqTokens,
      chunkRequest: (m: readonly Message[]) => buildSummaryRequest(m, { model: 'x', toolChars: 100, assistantChars: 400 }),
    };
    const chunks = (await planChunks(view, deps))!;
    assert.ok(chunks.length > 2);
    assert.deepEqual(chunks.flat(), view);
    for (const c of chunks) assert.ok(reqTokens(deps.chunkRequest(c)) <= 2000);
    assert.equal(await planChunks(view, { ...deps, limit: 100 }), undefined, 'one message alone too big: no plan');
  });

  it('merges level by level until one summary is left, and gives up when a merge fails', async () => {
    const asked: string[] = [];
    const deps = {
      limit: 900,
      requestTokens: reqTokens,
      chunkRequest: (m: readonly Message[]) => buildSummaryRequest(m, { model: 'x', toolChars: 100, assistantChars: 400 }),
      mergeRequest: (parts: readonly string[]) => buildMergeRequest(parts, { model: 'x' }),
      ask: (req: ProviderRequest) => {
        const text = JSON.stringify(req.messages);
        asked.push(text.includes('consecutive parts') ? 'merge' : 'chunk');
        return Promise.resolve({
          text: `S${asked.length} ${filler(600, 'summary')}`,
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        });
      },
    };
    const view = session(16, 300, (i) => `turn ${i}: ${filler(700, `t${i}`)}`);
    const r = await summarizeInChunks(view, 'an earlier summary', deps);
    assert.ok(r);
    assert.ok(asked.filter((x) => x === 'merge').length >= 2, `hierarchical: ${asked.join(',')}`);
    assert.equal(r.requests, asked.length);
    assert.equal(r.cost.input, asked.length);
    let n = 0;
    const failing = { ...deps, ask: async (req: ProviderRequest) => (++n > 3 ? undefined : deps.ask(req)) };
    assert.equal(await summarizeInChunks(view, undefined, failing), undefined);
  });

  it('compacts sessions at 100–120 % of the window under the target every time with a small summarizer, without dropping turns', async () => {
    server.setWindow(SMALL, 4000);
    for (const fill of [1.0, 1.05, 1.1, 1.15, 1.2]) {
      server.script.length = 0;
      server.requests.length = 0;
      for (let i = 0; i < 200; i++) server.script.push(() => ({ text: `## Goal\nPart ${i} summary: kept instructions and paths.` }));
      // The summarizer's input limit leaves room for its output: the fake, like the real APIs, refuses input + max_tokens over the window.
      const chain = createCompactionChain({
        summarizer: provider,
        summarizerModel: SMALL,
        results: createMemoryResultPort(),
        summarizerWindow: 1500,
      });
      const view: Message[] = [];
      for (let i = 0; total(view) < fill * WINDOW; i++) view.push(...session(1, 600, () => `step ${i}: ${filler(900, `s${i}`)}`));
      const input: CompactInput = {
        messages: view,
        tokensOf,
        targetTokens: Math.floor(0.3 * WINDOW),
        trigger: 'threshold',
        effectiveWindow: WINDOW,
      };
      const out = await chain.run(input, signal());
      assert.ok(out, `fill ${fill}`);
      assert.ok(out.reachedTarget && out.afterTokens <= input.targetTokens, `fill ${fill}: ${out.afterTokens} > ${input.targetTokens}`);
      assert.ok(out.strategies.includes('summary'), `fill ${fill}: ${out.strategies.join('+')} ${out.notes.join('; ')}`);
      assert.ok(!out.strategies.includes('drop_oldest_turns'), `fill ${fill}: fell back to dropping`);
      assert.ok(server.requests.length > 1, 'in several requests');
      assert.ok(
        server.requests.every((r) => r.outcome === 'reply'),
        'no request overflowed the summarizer',
      );
      assert.match(parseHistoryMessage(out.messages[0])?.summary ?? '', /Part \d+ summary/);
    }
  });
});
