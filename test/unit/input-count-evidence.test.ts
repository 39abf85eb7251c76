import assert from 'node:assert/strict';
import { InputCountPolicy } from '../../src/agent/input-confirmation';
import type { UsageDoubt } from '../../src/agent/context-accounting';
import { Calibration } from '../../src/context/calibration';
import { EstimateState } from '../../src/context/confirmed-base';
import { resolveModelLimits } from '../../src/context/models';
import { DEFAULT_THRESHOLDS } from '../../src/context/settings';
import { TokenLedger } from '../../src/context/token-ledger';
import type { InputCounter } from '../../src/providers/input-count';
import type { Message, ProviderRequest } from '../../src/providers/types';
import { inProcessCounter } from '../fixtures/context/in-process-counter';

/** A conversation of real-looking prose and code, ~6k tokens. */
const messages: Message[] = Array.from({ length: 12 }, (_, i) => ({
  role: i % 2 ? 'assistant' : 'user',
  content: [{ type: 'text', text: `Step ${i}: read src/parser.ts and explain why tokenize() drops the last token. `.repeat(25) }],
})) as Message[];

/** A counter that answers `share` of what a fair count of the request would be. */
function counterAnswering(ledger: TokenLedger, share: number): InputCounter & { asked: number } {
  return {
    asked: 0,
    countInput(request: ProviderRequest) {
      this.asked++;
      let n = 0;
      for (const m of request.messages) n += ledger.count(m, 'o200k').tokens;
      return Promise.resolve(Math.round(n * share));
    },
  };
}

function gateCounts(share: number) {
  const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic', { models: {}, providers: {}, bufferFraction: 0.02 });
  const ledger = new TokenLedger(inProcessCounter());
  const estimates = new EstimateState();
  const doubts: UsageDoubt[] = [];
  const counter = counterAnswering(ledger, share);
  const policy = new InputCountPolicy({ counter: () => counter, onDoubt: (d) => doubts.push(d) });
  const counts = policy.forGate({ limits, thresholds: { ...DEFAULT_THRESHOLDS }, ledger, calibration: new Calibration(), estimates });
  return { counts, estimates, doubts, counter, policy };
}

/**
 * A count before sending is evidence, like a reported usage: a provider (or a proxy in front of it)
 * that answers a figure no tokenizer explains must not become the meter's confirmed base, or the
 * meter shows a twentieth of the context and requests go out over the window.
 */
describe('exact counts before sending are judged against what was sent', () => {
  it('a count of a twentieth of the request is not used: no confirmed base, and it is told', async () => {
    const { counts, estimates, doubts, counter, policy } = gateCounts(0.05);
    const used = await counts.beforeSending({ messages, system: [], tools: [] });
    assert.equal(counter.asked, 1, 'the first request of the session is counted');
    assert.equal(used, false, 'the count was not used');
    assert.equal(estimates.base, undefined, 'the meter does not rest on the figure');
    assert.equal(doubts.length, 1);
    assert.equal(doubts[0].doubt, 'far-below');
    assert.equal(policy.stats.doubted, 1);
  });

  it('a count far above anything a tokenizer gives is not used either', async () => {
    const { counts, estimates, doubts } = gateCounts(40);
    assert.equal(await counts.beforeSending({ messages, system: [], tools: [] }), false);
    assert.equal(estimates.base, undefined);
    assert.equal(doubts[0]?.doubt, 'far-above');
  });

  it('a fair count becomes the confirmed base', async () => {
    const { counts, estimates, doubts } = gateCounts(1.05);
    assert.equal(await counts.beforeSending({ messages, system: [], tools: [] }), true);
    assert.ok(estimates.base && estimates.base.reported > 0, 'the meter rests on the count');
    assert.equal(doubts.length, 0);
  });
});
