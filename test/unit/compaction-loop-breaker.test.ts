import assert from 'node:assert/strict';
import { createCompactionChain, LoopBreaker, type PauseState } from '../../src/agent/compaction';
import type { CompactInput } from '../../src/agent/compact-hook';
import type { Message } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { a, filler, r, session, tokensOf, u } from '../fixtures/compaction/factories';

const WINDOW = 20_000;
const signal = () => new AbortController().signal;
const input = (messages: Message[], over: Partial<CompactInput> = {}): CompactInput => ({
  messages,
  tokensOf,
  targetTokens: 6000,
  trigger: 'threshold',
  effectiveWindow: WINDOW,
  ...over,
});

describe('compaction loop breaker', () => {
  it('pauses automatic compaction after a pass that frees under 5 % of the window, and says why', async () => {
    const pauses: PauseState[] = [];
    const chain = createCompactionChain({ results: createMemoryResultPort(), onPause: (p) => pauses.push(p) });
    // Two small results over a tiny target: clearing them frees a few hundred tokens of a 20k window.
    const view: Message[] = [u('go'), a('', ['c1']), r('c1', filler(1200, 'one')), a('', ['c2']), r('c2', filler(40, 'two')), u('next')];
    const out = await chain.run(input(view, { targetTokens: 10 }), signal());
    assert.ok(out, 'the pass itself is applied');
    assert.ok(out.freedShare < 0.05);
    assert.ok(chain.paused);
    assert.equal(pauses.length, 1);
    assert.match(pauses[0].reason, /Automatic compaction is paused: the last pass freed only \d+(\.\d)? % of what the model can take/);

    // While paused, automatic passes do nothing (the gate then blocks or forces a final turn) …
    const big = session(30, 3000);
    assert.equal(await chain.hook(input(big), signal()), undefined);
    assert.equal(await chain.run(input(big, { trigger: 'overflow' }), signal()), undefined);
    // … but a manual one runs, and when it reaches its target automatic compaction resumes.
    const manual = await chain.run(input(big, { trigger: 'manual' }), signal());
    assert.ok(manual && manual.reachedTarget);
    assert.equal(chain.paused, undefined);
    assert.ok(await chain.hook(input(big), signal()));
  });

  it('pauses after three failed passes in a row, and a success in between resets the count', async () => {
    const pauses: PauseState[] = [];
    const chain = createCompactionChain({ results: createMemoryResultPort(), onPause: (p) => pauses.push(p) });
    const stuck: Message[] = [u(filler(40_000, 'one enormous instruction'))]; // nothing can be cleared or dropped
    assert.equal(await chain.run(input(stuck), signal()), undefined);
    assert.equal(await chain.run(input(stuck), signal()), undefined);
    assert.ok(await chain.run(input(session(30, 3000)), signal()), 'a good pass');
    assert.equal(chain.paused, undefined);
    for (let i = 0; i < 2; i++) await chain.run(input(stuck), signal());
    assert.equal(chain.paused, undefined, 'two failures since the success');
    await chain.run(input(stuck), signal());
    assert.ok(chain.paused);
    assert.match(pauses[0].reason, /paused after 3 passes in a row/);
    chain.resume();
    assert.equal(chain.paused, undefined);
  });

  it('lifts the pause when its cause is gone: another window, or a context back below the note threshold', async () => {
    const chain = createCompactionChain({ results: createMemoryResultPort() });
    const view: Message[] = [u('go'), a('', ['c1']), r('c1', filler(1200, 'one')), u('next')];
    await chain.run(input(view, { targetTokens: 10 }), signal());
    assert.equal(chain.paused?.window, WINDOW, 'the pause remembers the window it was measured against');
    assert.equal(chain.liftPause({ effectiveWindow: WINDOW, ratio: 0.9, quietBelow: 0.8 }), false, 'same window, still full');
    assert.ok(chain.paused);
    // A 4k window found to be 8k: what paused it (fixed parts taking the window) is not so any more.
    assert.equal(chain.liftPause({ effectiveWindow: 2 * WINDOW, ratio: 0.9, quietBelow: 0.8 }), true);
    assert.equal(chain.paused, undefined);
    await chain.run(input(view, { targetTokens: 10 }), signal());
    assert.ok(chain.paused);
    assert.equal(
      chain.liftPause({ effectiveWindow: WINDOW, ratio: 0.4, quietBelow: 0.8 }),
      true,
      'the context was cleared or compacted by hand',
    );
    assert.equal(chain.paused, undefined);
  });

  it('counts only automatic passes', () => {
    const b = new LoopBreaker({ maxFailures: 2 });
    b.record({ manual: true, produced: false, reachedTarget: false, freedShare: 0 });
    b.record({ manual: true, produced: true, reachedTarget: true, freedShare: 0.01 });
    assert.equal(b.paused, undefined);
    assert.equal(b.failureCount, 0);
    b.record({ manual: false, produced: true, reachedTarget: false, freedShare: 0.2 });
    assert.equal(b.paused, undefined);
    const tripped = b.record({ manual: false, produced: false, reachedTarget: false, freedShare: 0 });
    assert.ok(tripped && b.paused === tripped);
  });
});
