import assert from 'node:assert/strict';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import type { HostToWebview, MeterView } from '../../src/protocol/messages';
import { createFakeWorld, until, type FakeWorld } from '../fixtures/app/fake-environment';

/**
 * While a turn runs, the meter dropped the system prompt and the tool definitions ("21 /
 * 200k" during the first answer, 36.9k while streaming against 46.1k idle). Wired as the host wires
 * it: the idle meter from the service's measurement, the turn's meters from its events.
 */
describe('meter: the used figure never drops when a turn starts', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  async function sampleTurn(service: Awaited<ReturnType<FakeWorld['open']>>['service'], presenter: ChatPresenter, posted: HostToWebview[]) {
    // The idle figure a user sees once the provider counted what the next request carries (a session
    // just opened is counted in the background): waited for as state, not time.
    await until(() => service.turns.measure().budget!.confirmed);
    const idle = service.turns.measure();
    presenter.setBudget(idle.budget!);
    // The meters shown before the answer's usage report arrived: the first answer and its streaming.
    const before: MeterView[] = [];
    let reported = false;
    const sub = service.onDidEvent((e) => {
      if (e.type === 'usage') reported = true;
      const shown = posted.at(-1);
      if (!reported && shown?.type === 'context/usage') before.push(shown.meter);
    });
    const from = posted.length;
    const requests = world.server.requests.length;
    world.server.script.push({ text: `A long answer: ${'word '.repeat(600)}`, chunkChars: 8 });
    await service.turns.prompt(`Please explain ${'this part '.repeat(50)}`);
    sub.dispose();
    const meters = posted.slice(from).flatMap((m) => (m.type === 'context/usage' ? [m.meter] : []));
    return { idle: idle.budget!.used, before, meters, sent: world.server.requests[requests].inputTokens };
  }

  it('system prompt and tools stay counted during the first answer and while the answer streams', async () => {
    const { service } = await world.open();
    const posted: HostToWebview[] = [];
    const presenter = new ChatPresenter((m) => posted.push(m));
    service.onDidEvent((e) => presenter.handle(e));

    for (const turn of ['first', 'second']) {
      const { idle, before, meters, sent } = await sampleTurn(service, presenter, posted);
      // The provider counts the first request before it is sent: the figures are exact early, and fewer distinct.
      assert.ok(before.length >= 1, `${turn} turn: sampled before the answer's report (${before.length} samples)`);
      assert.ok(meters.length >= 2, `${turn} turn: the meter moved during the turn (${meters.length} updates)`);
      const system = meters.map((m) => m.segments.find((s) => s.key === 'system')?.tokens ?? 0);
      const tools = meters.map((m) => m.segments.find((s) => s.key === 'tools')?.tokens ?? 0);
      assert.ok(
        system.every((t) => t > 0),
        `${turn} turn: the system prompt is counted in every meter: ${system.join(', ')}`,
      );
      assert.ok(
        tools.every((t) => t > 0),
        `${turn} turn: the tool definitions are counted in every meter: ${tools.join(', ')}`,
      );
      const used = before.map((m) => m.used);
      const below = used.filter((u) => u < idle);
      assert.deepEqual(below, [], `${turn} turn: idle ${idle}, until the answer's report ${used.join(', ')}`);
      // Then the figure rests on what the provider counted for that request (system and tools included).
      const last = meters.at(-1)!;
      assert.ok(last.confirmed, `${turn} turn: confirmed after the answer`);
      assert.ok(last.used >= sent, `${turn} turn: after the answer ${last.used} ≥ the ${sent} input tokens the request carried`);
      const labels = meters.map((m) => m.usedLabel);
      assert.ok(
        labels.every((l) => !/NaN|undefined/.test(l)),
        labels.join(' | '),
      );
    }
  });
});
