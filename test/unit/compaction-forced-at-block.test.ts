import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import { createContextGate } from '../../src/agent/context-gate';
import { resolveModelLimits } from '../../src/context/models';
import { TokenLedger } from '../../src/context/token-ledger';
import type { Message } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { a, filler, r, session, u } from '../fixtures/compaction/factories';

describe('compaction: a paused loop breaker never turns a blocked request into a forced final answer untried', () => {
  it('the gate still compacts at the block threshold while automatic compaction is paused', async () => {
    const limits = resolveModelLimits('m', 'openai-compatible', {
      models: { m: { contextWindow: 20_000, maxOutput: 2_000 } },
      providers: {},
      bufferFraction: 0.02,
    });
    const chain = createCompactionChain({ results: createMemoryResultPort() });
    const gate = createContextGate({ limits, ledger: new TokenLedger(), compact: chain.hook });
    const signal = new AbortController().signal;
    // Trip the breaker: a pass that frees almost nothing.
    const tiny: Message[] = [u('go'), a('', ['c1']), r('c1', filler(1200, 'one')), a('', ['c2']), r('c2', filler(40, 'two')), u('next')];
    await chain.run(
      {
        messages: tiny,
        tokensOf: (m) => gate.tokensOf(m),
        targetTokens: 10,
        trigger: 'threshold',
        effectiveWindow: limits.effectiveWindow,
      },
      signal,
    );
    assert.ok(chain.paused, 'automatic compaction is paused');

    // Between the compact and block thresholds nothing is forced: the pause is respected.
    let view = session(12, 1000);
    while (gate.measure(view).ratio < 0.955) view = [...view, u(filler(300, 'more')), a(filler(300, 'reply'))];
    if (gate.measure(view).ratio < 0.98) {
      const soft = await gate.preflight({ messages: view, system: [], tools: [], reason: 'request' }, signal);
      assert.equal(soft.compaction, undefined);
    }
    // At the block threshold the request cannot be sent as it is: the pass runs anyway.
    while (gate.measure(view).ratio < 1.05) view = [...view, u(filler(300, 'more')), a(filler(300, 'reply'))];
    const hard = await gate.preflight({ messages: view, system: [], tools: [], reason: 'request' }, signal);
    assert.ok(hard.compaction, 'compacted despite the pause');
    assert.ok(hard.status !== 'block' && hard.status !== 'final', hard.status);
  });
});
