import assert from 'node:assert/strict';
import { createCompactionChain, type ChainResult } from '../../src/agent/compaction';
import { BackgroundSummary } from '../../src/agent/compaction/background-summary';
import type { CompactInput } from '../../src/agent/compact-hook';
import { parseHistoryMessage } from '../../src/context/compaction';
import type { Message } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { createHarness } from '../fixtures/agent/harness';
import { fillTo } from '../fixtures/agent/fill';
import { a, fakeSummarizer, filler, session, tokensOf, u } from '../fixtures/compaction/factories';
import type { FakeProvider } from '../fixtures/fake-provider/index';
import type { Provider } from '../../src/providers/provider';

const WINDOW = 20_000;
const input = (messages: Message[], over: Partial<CompactInput> = {}): CompactInput => ({
  messages,
  tokensOf,
  targetTokens: 3000,
  trigger: 'threshold',
  effectiveWindow: WINDOW,
  ...over,
});
const signal = () => new AbortController().signal;

describe('compaction: a summary prepared in the background', () => {
  let summarizer: { server: FakeProvider; provider: Provider };
  before(async () => (summarizer = await fakeSummarizer()));
  after(async () => summarizer.server.close());
  beforeEach(() => {
    summarizer.server.script.length = 0;
    summarizer.server.requests.length = 0;
  });

  it('is prepared from the background threshold and applied at the compact threshold without a new request', async () => {
    const reports: ChainResult[] = [];
    // The chain stores results through the harness, which is made next (it needs the chain's hooks).
    const chain = createCompactionChain({
      summarizer: summarizer.provider,
      summarizerModel: 'fake-model',
      results: { put: (e) => h.results.put(e) },
      onReport: (r) => reports.push(r),
    });
    // OpenAI: the fake counts with our own encoding, so calibration stays near 1 and the fill below adds few turns.
    const h = await createHarness({ protocol: 'openai', window: 32_000, gate: { compact: chain.hook, prepare: chain.prepare } });
    try {
      h.server.script.push({ text: 'ready' });
      await h.turn('hello');
      await fillTo(h, 0.88);
      // Preparing yields to the host before its request goes out: wait for the request itself, not for time.
      let arrived: () => void = () => undefined;
      const requested = new Promise<void>((resolve) => (arrived = resolve));
      summarizer.server.script.push(() => {
        arrived();
        return { text: 'PREPARED SUMMARY' };
      });
      h.server.script.push({ text: 'ok' });
      await h.turn('at 88 %');
      assert.ok(!h.events.some((e) => e.type === 'compaction'), 'no compaction yet');
      await requested;
      assert.equal(summarizer.server.requests.length, 1, 'the summary is being prepared');
      assert.ok(chain.preparing);

      await fillTo(h, 0.955); // just over the compact threshold: few turns added since the summary was prepared
      h.server.script.push({ text: 'after' });
      await h.turn('over the threshold');
      const e = h.events.find((x) => x.type === 'compaction');
      assert.ok(e && e.type === 'compaction');
      // After the 88 % turn the meter rests on the provider's figure, which is below our byte estimates of
      // the fill: reaching 97 % again adds turns the first prepared summary does not cover, so one more
      // summary is prepared; the compaction still uses a prepared summary and makes no request of its own.
      assert.ok(reports[0].notes.includes('Used the summary prepared in the background.'));
      assert.ok(summarizer.server.requests.length <= 2, 'at most one request beyond the prepared summary');
      assert.ok(e.report.afterTokens <= 0.3 * h.limits.effectiveWindow);
      assert.ok(parseHistoryMessage(h.view[0])?.summary, 'the view starts with the summary');
    } finally {
      await h.close();
    }
  });

  it('is discarded when the history changed under it, and a fresh summary is made', async () => {
    const reports: ChainResult[] = [];
    const chain = createCompactionChain({
      summarizer: summarizer.provider,
      summarizerModel: 'm',
      results: createMemoryResultPort(),
      onReport: (r) => reports.push(r),
    });
    // Whichever request reaches the server first (the stale one may be aborted before it is sent).
    const answer = (req: { body: unknown }) => ({ text: JSON.stringify(req.body).includes('w 0 w0') ? 'FRESH' : 'STALE' });
    summarizer.server.script.push(answer, answer);
    const view = session(20, 1500, (i) => `v ${i} ${filler(300, `v${i}`)}`);
    chain.prepare(input(view));
    assert.ok(chain.preparing);
    const other = session(20, 1500, (i) => `w ${i} ${filler(300, `w${i}`)}`); // e.g. after an undo or a session switch
    const out = await chain.run(input(other), signal());
    assert.ok(out);
    assert.equal(out.summary, 'FRESH');
    assert.ok(out.notes.some((n) => /discarded: the history changed/.test(n)));
    assert.equal(chain.preparing, false);
  });

  it('is kept when it is not enough and the summary on top of it fails (the paid summary is not lost)', async () => {
    const chain = createCompactionChain({ summarizer: summarizer.provider, summarizerModel: 'm', results: createMemoryResultPort() });
    summarizer.server.script.push({ text: 'PREPARED' }, { fault: 'http', status: 500, body: { error: { message: 'down' } } });
    const view = session(20, 1500, (i) => `v ${i} ${filler(300, `v${i}`)}`);
    chain.prepare(input(view, { targetTokens: 9000 })); // summarizes only the oldest turns
    const out = await chain.run(input(view, { targetTokens: 1500 }), signal());
    assert.ok(out);
    assert.equal(summarizer.server.requests.length, 2, 'the prepared summary and one more, which failed');
    assert.ok(out.notes.includes('Used the summary prepared in the background.'));
    assert.ok(out.notes.some((n) => n.startsWith('The summary failed')));
    assert.equal(out.summary, 'PREPARED');
    assert.ok(out.strategies.includes('summary'), out.strategies.join('+'));
    assert.equal(parseHistoryMessage(out.messages[0])?.summary, 'PREPARED', 'carried on by the turns dropped after it');
  });

  it('still applies after new turns were appended and old results cleared', async () => {
    const bg = new BackgroundSummary();
    const view = session(6, 1500);
    let calls = 0;
    bg.prepare(view, { start: 0, cut: 12 }, () => {
      calls++;
      return Promise.resolve({ summary: 'S', cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, refs: [] });
    });
    bg.prepare(view, { start: 0, cut: 12 }, () => {
      calls++;
      return Promise.resolve(undefined);
    });
    assert.equal(calls, 1, 'one preparation for the same turns');
    const later: Message[] = view.map((m) =>
      m.role === 'toolResult' ? { ...m, content: [{ type: 'text', text: 'cleared' }], refId: 'res_1' } : m,
    );
    later.push(u('new turn'), a(filler(100, 'x')));
    const got = await bg.take(later);
    assert.ok(got && got !== 'stale');
    assert.equal(got.summary, 'S');
    assert.equal(got.cut, 12);
    assert.equal(await bg.take(later), undefined, 'used once');
  });
});
