import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import { ResultArchive } from '../../src/agent/compaction/result-archive';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { r, session, textOf, tokensOf, u } from '../fixtures/compaction/factories';

describe('compaction: results leave the view only once stored (result archive)', () => {
  it('stores each result once, however often it is asked, and returns ref ids without repeats', async () => {
    const port = createMemoryResultPort();
    const archive = new ResultArchive(port);
    const result = r('c1', 'the output');
    const first = await archive.storeAll([u('hi'), result, result]);
    const again = await archive.storeAll([result]);
    assert.equal(port.size, 1, 'stored once');
    assert.equal(first.refIds.length, 1);
    assert.deepEqual(again.refIds, first.refIds);
    const stored = first.messages[1];
    assert.equal(stored.role === 'toolResult' && stored.refId, first.refIds[0]);
    assert.equal(port.get(first.refIds[0]), textOf(result));
    assert.equal(result.refId, undefined, 'the input is not modified');
  });

  it('reports a result it could not store and keeps the message as it was', async () => {
    const archive = new ResultArchive({ put: () => Promise.reject(new Error('disk full')) });
    const result = r('c1', 'the output', { name: 'run_command' });
    const out = await archive.storeAll([result]);
    assert.deepEqual(out.refIds, []);
    assert.equal(out.messages[0], result);
    assert.deepEqual(out.failures, ['A "run_command" result could not be stored: disk full']);
  });

  it('a listener that throws does not break the pass or the next one', async () => {
    const chain = createCompactionChain({
      results: createMemoryResultPort(),
      minFreedShare: 0,
      onReport: () => {
        throw new Error('broken listener');
      },
      onSummaryCount: () => {
        throw new Error('broken counter');
      },
    });
    const input = { messages: session(20, 3000), tokensOf, targetTokens: 3000, trigger: 'threshold' as const, effectiveWindow: 20_000 };
    const first = await chain.run(input, new AbortController().signal);
    assert.ok(first, 'the pass produced a view');
    assert.ok(first.reachedTarget);
    assert.ok(await chain.run(input, new AbortController().signal), 'and the next pass runs too');
  });
});
