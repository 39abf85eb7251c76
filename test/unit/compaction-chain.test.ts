import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import type { CompactInput } from '../../src/agent/compact-hook';
import { HISTORY_HEADER, isCleared, isHistoryMessage, parseHistoryMessage } from '../../src/context/compaction';
import type { Message, ToolResultMessage } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import type { FakeProvider } from '../fixtures/fake-provider/index';
import type { Provider } from '../../src/providers/provider';
import { danglingCalls } from '../fixtures/agent/harness';
import { a, fakeSummarizer, filler, session, textOf, tokensOf, total, u } from '../fixtures/compaction/factories';

const WINDOW = 20_000;
const input = (messages: Message[], over: Partial<CompactInput> = {}): CompactInput => ({
  messages,
  tokensOf,
  targetTokens: Math.floor(0.3 * WINDOW),
  trigger: 'threshold',
  effectiveWindow: WINDOW,
  ...over,
});
const signal = () => new AbortController().signal;

describe('compaction chain: clear, summarize, drop — each only if the previous was not enough', () => {
  let server: FakeProvider;
  let provider: Provider;
  before(async () => ({ server, provider } = await fakeSummarizer()));
  after(async () => server.close());
  beforeEach(() => {
    server.script.length = 0;
    server.requests.length = 0;
  });

  it('stops after clearing tool results when that is enough (no model call)', async () => {
    const results = createMemoryResultPort();
    const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'fake-model', results });
    const view = session(8, 8000); // mostly tool output
    const out = await chain.run(input(view), signal());
    assert.ok(out);
    assert.deepEqual(out.strategies, ['clear_tool_results']);
    assert.equal(server.requests.length, 0, 'the summarizer was not asked');
    assert.ok(out.afterTokens <= 0.3 * WINDOW, `after ${out.afterTokens}`);
    assert.equal(out.messages.length, view.length);
    assert.deepEqual(danglingCalls(out.messages), []);
    for (const m of out.messages.filter((x): x is ToolResultMessage => x.role === 'toolResult' && isCleared(x))) {
      const original = view.find((x) => x.role === 'toolResult' && x.toolCallId === m.toolCallId)!;
      assert.equal(results.get(m.refId!), textOf(original), 'a cleared result is retrievable in full by its ref id');
    }
    assert.equal(out.clearedRefIds.length, results.size);
  });

  it('summarizes when clearing is not enough, framed as history, recent turns verbatim', async () => {
    const results = createMemoryResultPort();
    const chain = createCompactionChain({
      summarizer: provider,
      summarizerModel: 'cheap-model',
      results,
      pins: () => ['PIN: the database is Postgres 16'],
    });
    server.script.push({ text: '## Goal\nRefactor everything.\n## Next steps\nTests.' });
    const view = session(30, 300, (i) => `instruction ${i}: ${filler(500, `detail ${i}`)}`);
    const out = await chain.run(input(view, { focus: 'the test plan' }), signal());
    assert.ok(out);
    assert.deepEqual(out.strategies, ['clear_tool_results', 'summary']);
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].model, 'cheap-model');
    assert.match(JSON.stringify(server.requests[0].body), /the test plan/);
    assert.equal(out.summary, '## Goal\nRefactor everything.\n## Next steps\nTests.');
    const first = out.messages[0];
    assert.ok(isHistoryMessage(first));
    assert.ok(textOf(first).startsWith(HISTORY_HEADER));
    const parts = parseHistoryMessage(first)!;
    assert.equal(parts.summary, out.summary);
    assert.deepEqual(parts.pins, ['PIN: the database is Postgres 16']);
    const tail = out.messages.slice(1);
    const originalTail = view.slice(view.length - tail.length);
    tail.forEach((m, i) => assert.ok(m === originalTail[i] || isCleared(m), 'the tail is verbatim (old results cleared)'));
    assert.ok(
      tail
        .filter((m) => m.role === 'toolResult')
        .slice(-3)
        .every((m) => !isCleared(m)),
      'the newest results are whole',
    );
    assert.ok(out.afterTokens <= 0.3 * WINDOW, `after ${out.afterTokens}`);
    assert.ok(out.cost.output > 0, 'the summarizer usage is the cost');
    assert.deepEqual(danglingCalls(out.messages), []);
  });

  it('falls back to dropping turns when the summary fails, losing no instruction and no tool output', async () => {
    const results = createMemoryResultPort();
    const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'm', results, pins: () => ['PIN-1'] });
    server.script.push({ fault: 'invalid_request', message: 'no summaries today' });
    const view = session(30, 300, (i) => `instruction ${i}: ${filler(500, `detail ${i}`)}`);
    const out = await chain.run(input(view), signal());
    assert.ok(out);
    assert.deepEqual(out.strategies, ['clear_tool_results', 'drop_oldest_turns']);
    assert.ok(out.notes.some((n) => /summary failed/.test(n)));
    assert.ok(out.reachedTarget);
    const parts = parseHistoryMessage(out.messages[0])!;
    assert.equal(parts.summary, undefined);
    assert.deepEqual(parts.pins, ['PIN-1']);
    const sent = out.messages.map(textOf).join('\n');
    for (let i = 0; i < 30; i++) assert.ok(sent.includes(`instruction ${i}: detail ${i}`), `instruction ${i} kept`);
    const stored = new Set(out.clearedRefIds.map((id) => results.get(id)));
    for (const m of view) {
      if (m.role !== 'toolResult') continue;
      const inView = out.messages.some((x) => x.role === 'toolResult' && x.toolCallId === m.toolCallId && textOf(x) === textOf(m));
      assert.ok(inView || stored.has(textOf(m)), `result ${m.toolCallId} is in the view or stored`);
    }
    assert.deepEqual(danglingCalls(out.messages), []);
  });

  it('skips the summary when even one message would not fit the summarizer', async () => {
    const chain = createCompactionChain({
      summarizer: provider,
      summarizerModel: 'm',
      results: createMemoryResultPort(),
      summarizerWindow: 150,
    });
    const view = session(30, 300, (i) => `instruction ${i}: ${filler(500, `d${i}`)}`);
    const out = await chain.run(input(view), signal());
    assert.ok(out);
    assert.equal(server.requests.length, 0);
    assert.deepEqual(out.strategies, ['clear_tool_results', 'drop_oldest_turns']);
    assert.ok(out.notes.some((n) => /would not fit/.test(n)));
  });

  it('compacts a view that is over the whole window (manual /compact on a full window)', async () => {
    const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'm', results: createMemoryResultPort() });
    server.script.push({ text: 'Summary of a very long session.' });
    const view = session(60, 1500, (i) => `do thing ${i} ${filler(600, `t${i}`)}`);
    assert.ok(total(view) > WINDOW);
    const out = await chain.run(input(view, { trigger: 'manual', focus: 'keep the API design' }), signal());
    assert.ok(out);
    assert.ok(out.afterTokens <= 0.3 * WINDOW, `after ${out.afterTokens} of ${WINDOW}`);
    assert.ok(out.strategies.includes('summary'));
    assert.deepEqual(danglingCalls(out.messages), []);
  });

  it('works with no summarizer at all (step a then step c)', async () => {
    const chain = createCompactionChain({ results: createMemoryResultPort() });
    const view = session(40, 300, (i) => `ask ${i} ${filler(400, `q${i}`)}`);
    const out = await chain.run(input(view), signal());
    assert.ok(out);
    assert.deepEqual(out.strategies, ['clear_tool_results', 'drop_oldest_turns']);
    assert.ok(out.reachedTarget);
  });

  it('keeps an earlier summary when a later pass has to drop turns', async () => {
    const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'm', results: createMemoryResultPort() });
    server.script.push({ text: 'FIRST SUMMARY' }, { fault: 'overloaded' }, { fault: 'overloaded' }, { fault: 'overloaded' });
    let view = session(30, 300, (i) => `round one ${i} ${filler(20, `a${i}`)}`);
    const once = await chain.run(input(view, { targetTokens: 2500 }), signal());
    assert.deepEqual(once?.strategies, ['clear_tool_results', 'summary']);
    view = [...once.messages, ...session(30, 300, (i) => `round two ${i} ${filler(20, `b${i}`)}`)];
    const out = await chain.run(input(view, { targetTokens: 2500 }), signal());
    assert.ok(out);
    assert.ok(out.strategies.includes('drop_oldest_turns'));
    assert.equal(parseHistoryMessage(out.messages[0])?.summary, 'FIRST SUMMARY');
    const sent = out.messages.map(textOf).join('\n');
    for (let i = 0; i < 30; i++) {
      assert.ok(sent.includes(`round one ${i} a${i}`), `round one ${i}`);
      assert.ok(sent.includes(`round two ${i} b${i}`), `round two ${i}`);
    }
  });

  it('updates the previous summary incrementally and rebuilds it from the originals every M-th time', async () => {
    const transcript: Message[] = [];
    const chain = createCompactionChain({
      summarizer: provider,
      summarizerModel: 'm',
      results: createMemoryResultPort(),
      resummarizeEvery: 2,
      keepTurns: 2,
      keepRecentResults: 50,
      keepResultsShare: 1,
      summaryMaxTokens: 500,
      history: () => Promise.resolve(transcript),
    });
    server.script.push({ text: 'S1' }, { text: 'S2' });
    const first = session(10, 2000, (i) => `one ${i}`);
    transcript.push(...first);
    let view = (await chain.run(input(first, { targetTokens: 3000 }), signal()))!.messages;
    assert.equal(view.filter((m) => m.role === 'user').length, 3, 'the history message and N=2 raw turns');
    const second = session(10, 2000, (i) => `two ${i}`);
    transcript.push(...second);
    view = [...view, ...second];
    const out = await chain.run(input(view, { targetTokens: 3000 }), signal());
    assert.ok(out);
    assert.ok(out.strategies.includes('resummarize'));
    const prompt = JSON.stringify(server.requests[1].body.messages);
    assert.ok(!prompt.includes('previous-summary'), 'rebuilt from the originals, not from S1');
    assert.ok(prompt.includes('one 0') && prompt.includes('two 5'));
    assert.equal(parseHistoryMessage(out.messages[0])?.summary, 'S2');
  });

  it('stores results that are summarized away, so every removed output keeps a ref id', async () => {
    const results = createMemoryResultPort();
    const chain = createCompactionChain({
      summarizer: provider,
      summarizerModel: 'm',
      results,
      keepRecentResults: 50,
      keepResultsShare: 1,
    });
    server.script.push({ text: 'summary' });
    const view = session(20, 600, (i) => `q ${i} ${filler(300, `z${i}`)}`);
    const out = await chain.run(input(view, { targetTokens: 2000 }), signal());
    assert.ok(out && out.strategies.includes('summary'));
    const stored = new Set(out.clearedRefIds.map((id) => results.get(id)));
    for (const m of view) {
      if (m.role !== 'toolResult' || out.messages.includes(m)) continue;
      assert.ok(stored.has(textOf(m)), `${m.toolCallId} stored`);
    }
    assert.match(JSON.stringify(server.requests[0].body), /ref_id=/, 'the summarizer sees the ref ids');
  });

  it('serves as the gate hook: returns the view, strategies, summary and cost', async () => {
    const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'm', results: createMemoryResultPort() });
    server.script.push({ text: 'hook summary' });
    const view = session(30, 300, (i) => `k ${i} ${filler(500, `h${i}`)}`);
    const out = await chain.hook(input(view), signal());
    assert.ok(out);
    assert.equal(out.summary, 'hook summary');
    assert.ok(out.cost && out.cost.output > 0);
    assert.ok(out.strategies.includes('summary'));
    assert.equal(await chain.hook(input([u('hi'), a('hello')]), signal()), undefined, 'nothing to compact');
  });
});
