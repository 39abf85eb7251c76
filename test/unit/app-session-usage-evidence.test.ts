import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/** A usage figure far from what was sent is evidence, not truth: it neither becomes the meter's figure nor compacts. */
describe('session service: an absurd usage figure', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  for (const [name, reported] of [
    ['190,000 for a 1.7k prompt', 190_000],
    ['1e308', 1e308],
  ] as const) {
    it(`${name}: the meter keeps its count and the next turn does not compact`, async () => {
      const { service, env } = await world.open();
      const events: AgentEvent[] = [];
      service.onDidEvent((e) => events.push(e));
      world.server.script.push({ text: 'fine', rawUsage: { input_tokens: reported } });
      await service.turns.prompt('hello');
      const sent = world.server.requests[0].inputTokens;
      const meter = service.turns.measure();
      assert.ok(meter.used < 3 * sent, `the meter shows ${meter.used} for a prompt of ${sent}`);
      // The provider's count endpoint may confirm the request exactly; the absurd reported figure never does.
      const confirmed = meter.budget?.confirmedTokens ?? 0;
      assert.ok(confirmed < 3 * sent, `the confirmed base is ${confirmed} for a prompt of ${sent}`);
      world.server.script.push({ text: 'again' });
      await service.turns.prompt('next');
      assert.deepEqual(
        events.filter((e) => e.type === 'compaction'),
        [],
      );
      assert.equal(world.server.requests.length, 2, 'no summary request either');
      assert.ok(env.logLines.some((l) => /usage figure not used \(far-above\)/.test(l)));
      assert.deepEqual(env.warnings, [], 'a vendor does not cut conversations: nobody is told so');
      // The next, sane figure is used again.
      assert.ok((service.turns.measure().budget?.confirmedTokens ?? 0) > 0, env.logLines.join('\n'));
    });
  }
});
