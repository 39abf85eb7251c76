import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { costOf, spendTotal } from '../../src/context/cost';
import { pricesFor } from '../../src/context/models';
import type { Usage } from '../../src/providers/types';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

const PRICED = 'claude-haiku-4-5';

/** What a session spent is kept with it in the sessions index and continues when the session is resumed. */
describe('session service: what a session spent', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  function recordUsage(service: { onDidEvent: (l: (e: AgentEvent) => void) => unknown }): Array<{ model: string; usage: Usage }> {
    const seen: Array<{ model: string; usage: Usage }> = [];
    service.onDidEvent((e) => e.type === 'usage' && seen.push({ model: e.model, usage: e.usage }));
    return seen;
  }

  it('sums every request of the session, stores it in the list, and a resumed session continues the sum', async () => {
    const { service } = await world.open();
    await service.turns.setModel({ provider: 'anthropic', model: PRICED, thinking: 'off' });
    const seen = recordUsage(service);
    await talk(world, service, 2);
    assert.equal(seen.length, 2);
    const prices = pricesFor(seen[0].model);
    assert.ok(prices, `the fake answers as ${seen[0].model}, a priced model`);
    const expected = seen.reduce((sum, s) => sum + costOf(s.usage, prices), 0);
    assert.ok(expected > 0);
    const live = service.records.spend().spend;
    assert.equal(live.requests, 2);
    assert.equal(live.tokens.input, seen[0].usage.input + seen[1].usage.input);
    assert.equal(live.tokens.output, seen[0].usage.output + seen[1].usage.output);
    assert.ok(Math.abs((spendTotal(live) ?? 0) - expected) < 1e-12);
    const id = service.sessions.state().sessionId;
    const listed = (await service.sessions.history()).sessions.find((s) => s.id === id)?.spend;
    assert.deepEqual(listed, live, 'the list carries the spend (from the index, no session database opened)');

    await service.storage.flush();
    service.dispose();
    await world.waitForStoreClosed();
    const { service: again } = await world.open();
    assert.equal(again.sessions.state().sessionId, id);
    assert.deepEqual(again.records.spend().spend, live, 'resumed with its stored spend, not from 0');
    await again.turns.setModel({ provider: 'anthropic', model: PRICED, thinking: 'off' });
    const more = recordUsage(again);
    await talk(world, again, 1);
    const after = again.records.spend();
    assert.equal(after.spend.requests, 3, 'the sum continues');
    assert.ok(Math.abs(after.turn - costOf(more[0].usage, prices)) < 1e-12, 'this turn is only the new request');
    assert.ok(Math.abs((spendTotal(after.spend) ?? 0) - expected - after.turn) < 1e-12);
    assert.deepEqual(again.sessions.list().find((s) => s.id === id)?.spend, after.spend);
  });

  it('a new session starts from nothing; switching back brings the first one its total', async () => {
    const { service } = await world.open();
    await service.turns.setModel({ provider: 'anthropic', model: PRICED, thinking: 'off' });
    await talk(world, service, 1);
    const first = service.sessions.state().sessionId;
    const spent = service.records.spend().spend;
    const changes: number[] = [];
    service.records.onDidChangeSpend((s) => changes.push(s.spend.requests));
    await service.sessions.create();
    assert.equal(service.records.spend().spend.requests, 0);
    await service.sessions.open(first);
    assert.deepEqual(service.records.spend().spend, spent);
    assert.deepEqual(changes, [0, 1], 'the panel is told at each switch');
  });

  it('a model without prices counts its tokens and leaves the dollars unknown', async () => {
    const { service } = await world.open();
    await talk(world, service, 1);
    const spend = service.records.spend().spend;
    assert.equal(spend.requests, 1);
    assert.equal(spend.unpriced, 1);
    assert.ok(spend.tokens.input + spend.tokens.cacheRead + spend.tokens.cacheWrite > 0 && spend.tokens.output > 0);
    assert.equal(spendTotal(spend), undefined, 'unknown, not $0');
  });
});
