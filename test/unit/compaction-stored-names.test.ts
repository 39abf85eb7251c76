import assert from 'node:assert/strict';
import { CompactionRunner, createCompactionChain, type ChainResult } from '../../src/agent/compaction';
import type { CompactInput } from '../../src/agent/compact-hook';
import type { AgentEvent } from '../../src/agent/events';
import { compactionRecord } from '../../src/app/compaction-wiring';
import { compactionDetails, type StoredCompactionView } from '../../src/context/compaction';
import type { FakeProvider } from '../fixtures/fake-provider/index';
import type { Provider } from '../../src/providers/provider';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { fakeSummarizer, filler, session, tokensOf } from '../fixtures/compaction/factories';

/**
 * A summary stores the small tool results it summarizes (they were in the context, never stored), so
 * `read_result` still reaches them. "What left the context" lists each by its tool and what the call
 * read, live and in the stored record, never as a bare ref id.
 */
describe('compaction: the results a summary stored are named in what left the context', () => {
  let server: FakeProvider;
  let provider: Provider;
  before(async () => ({ server, provider } = await fakeSummarizer()));
  after(async () => server.close());

  it('lists each result the summary stored with its tool and the file its call read', async () => {
    const results = createMemoryResultPort();
    const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'fake-model', results });
    server.script.push({ text: '## Goal\nLook at every file.' });
    // Small results stay in the context; long prompts make a summary necessary.
    const view = session(14, 200, (i) => `task ${i}: ${filler(3_000, `detail ${i}`)}`);
    const input: CompactInput = { messages: view, tokensOf, targetTokens: 6_000, trigger: 'threshold', effectiveWindow: 20_000 };
    const events: AgentEvent[] = [];
    const runner = new CompactionRunner((e) => events.push(e));
    const out = await runner.run<ChainResult>(input, undefined, (s) => chain.run(input, s));
    assert.ok(out, 'a pass ran');
    assert.ok(out.strategies.includes('summary'), `strategies: ${out.strategies.join(', ')}`);
    const end = events.find((e) => e.type === 'compaction_end');
    assert.ok(end?.type === 'compaction_end' && end.change);
    const live = compactionDetails(end.change);
    assert.ok(live.stored.length > 0, 'the summary stored the results it summarized');
    for (const s of live.stored) {
      assert.equal(s.toolName, 'read_file', `named, not a bare ref id: ${JSON.stringify(s)}`);
      assert.match(s.target ?? '', /^src\/f\d+\.ts$/);
      assert.ok(results.get(s.refId), 'and retrievable');
    }
    const report = {
      beforeTokens: out.beforeTokens,
      afterTokens: out.afterTokens,
      beforeMessages: 0,
      afterMessages: 0,
      strategies: out.strategies,
      durationMs: 1,
      trigger: 'threshold' as const,
    };
    const record = compactionRecord(
      out,
      input,
      'fake-model',
      report,
      out.messages.map(() => ({ hash: 'h', family: 'o200k' as const, tokens: 1, exact: false })),
    ).report as StoredCompactionView | undefined;
    assert.deepEqual(record?.details.stored, live.stored, 'a reopened card names them the same');
  });
});
