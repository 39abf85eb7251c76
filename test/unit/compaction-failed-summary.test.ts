/**
 * A compaction whose summary fails says so and carries the user's instructions verbatim. Before, a
 * manual compaction whose summary request failed dropped the oldest turns behind a history message
 * that said the older instructions "are covered by the summary above" — there was no summary above —
 * and listed almost none of them.
 */
import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import { parseHistoryMessage } from '../../src/context/compaction';
import type { Message } from '../../src/providers/types';
import type { Provider } from '../../src/providers/provider';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import type { FakeProvider } from '../fixtures/fake-provider/index';
import { fakeSummarizer, session, textOf, tokensOf } from '../fixtures/compaction/factories';

describe('compaction: a failed summary is said, and the instructions are carried verbatim', function () {
  this.timeout(60_000);
  let server: FakeProvider;
  let provider: Provider;
  before(async () => ({ server, provider } = await fakeSummarizer()));
  after(() => server.close());
  beforeEach(() => {
    server.script.length = 0;
  });

  const run = async (messages: Message[], targetTokens: number, effectiveWindow: number) => {
    for (let i = 0; i < 8; i++) server.script.push({ fault: 'overloaded' });
    const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'm', results: createMemoryResultPort() });
    const out = await chain.run({ messages, tokensOf, targetTokens, trigger: 'manual', effectiveWindow }, new AbortController().signal);
    assert.ok(out, 'it compacted');
    assert.ok(out.strategies.includes('drop_oldest_turns'), out.strategies.join('+'));
    return { head: out.messages[0], kept: out.messages.slice(1).map(textOf) };
  };

  it('names the failure and quotes every earlier instruction whole when they fit', async () => {
    const long = (i: number) =>
      `Always keep the public API of module ${i} stable: ${'explain why in the commit body, '.repeat(22)}and say so.`;
    const asks = (i: number) => (i % 8 === 0 ? long(i) : `carry on with part ${i}`);
    const { head, kept } = await run(session(40, 1_200, asks), 4_000, 20_000);
    const text = textOf(head);
    assert.match(text, /No model summary: it was asked for and failed — The summary failed \(overloaded/);
    assert.doesNotMatch(text, /covered by the summary above/);
    const carried = parseHistoryMessage(head)?.instructions ?? [];
    const longOnes = [0, 8, 16, 24].map(long);
    assert.ok(longOnes[0].length > 700);
    for (const t of longOnes) assert.ok(carried.includes(t) || kept.includes(t), `not carried whole: ${t.slice(0, 60)}…`);
    assert.ok(longOnes.filter((t) => carried.includes(t)).length >= 2, 'the dropped turns’ long instructions are in the history message');
    assert.ok(!carried.some((t) => t.includes('[clipped')), 'none clipped');
  });

  it('never claims a summary covers what it left out', async () => {
    const { head } = await run(
      session(20, 400, (i) => `always instruction ${i}: ${'x'.repeat(300)}`),
      300,
      1_000,
    );
    const text = textOf(head);
    assert.doesNotMatch(text, /covered by the summary above/);
    const parsed = parseHistoryMessage(head);
    assert.ok(parsed?.omittedInstructions, 'this target is too small for all of them');
    assert.match(text, /did not fit here and no summary covers them; search_history finds them/);
  });
});
