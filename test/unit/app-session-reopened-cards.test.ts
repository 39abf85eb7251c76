import assert from 'node:assert/strict';
import type { AgentEvent, CompactionChange } from '../../src/agent/events';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { compactionCard, storedCompactionCard } from '../../src/panel/compaction-card';
import { createFakeWorld, MODEL, talk, type FakeWorld } from '../fixtures/app/fake-environment';

/**
 * A reopened session's compaction cards say what the live cards said, through the session service:
 * the same figures (the whole context before and after, not the conversation alone), the same "kept"
 * words and the same receipt, for a manual compaction and for one the gate made during a turn.
 */
describe('session service: reopened compaction cards match the live ones', function () {
  this.timeout(240_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  async function reopenedCards(service: Awaited<ReturnType<FakeWorld['open']>>['service']) {
    await service.storage.flush();
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    return (await service.compactions.history()).compactions.map((c) => storedCompactionCard('card', c));
  }

  const same = (live: ReturnType<typeof compactionCard>, reopened: ReturnType<typeof compactionCard>) => {
    // The cost is priced from the model each side knows; everything else is the same card.
    const strip = (c: typeof live) => ({ ...c, text: c.text.replace(/, cost [^.]*/, ''), cost: undefined });
    assert.deepEqual(strip(reopened), strip(live));
  };

  it('after a manual compaction', async () => {
    const { service } = await world.open();
    const changes: CompactionChange[] = [];
    service.onDidEvent((e: AgentEvent) => void (e.type === 'compaction_end' && e.change && changes.push(e.change)));
    await talk(world, service, 5);
    world.server.script.push({ text: 'Summary.' });
    const report = await service.compactions.compact();
    assert.ok(report);
    const live = compactionCard('card', report, changes.at(-1));
    assert.match(live.text, /Compacted: \d+(\.\d)?k → \d+(\.\d)?k tokens/);
    const [reopened] = await reopenedCards(service);
    same(live, reopened);
  });

  it('after a compaction the gate made during a turn', async () => {
    const { service } = await world.open({ models: { [MODEL]: { contextWindow: 16_000, maxOutput: 2_000 } } });
    world.server.setWindow(MODEL, 16_000);
    // The card is made when the event comes, as the panel makes it (the turn goes on with that view).
    const live: Array<ReturnType<typeof compactionCard>> = [];
    let change: CompactionChange | undefined;
    service.onDidEvent((e: AgentEvent) => {
      if (e.type === 'compaction_end') change = e.change;
      if (e.type === 'compaction') live.push(compactionCard('card', e.report, change));
    });
    for (let i = 0; i < 30 && !live.length; i++) await talk(world, service, 1, `Turn ${i}`);
    assert.ok(live.length >= 1, `the gate compacted (${JSON.stringify(service.turns.measure())})`);
    const cards = await reopenedCards(service);
    assert.equal(cards.length, live.length);
    live.forEach((card, i) => same(card, cards[i]));
  });
});

/**
 * A summary made by another model than the session's (`headroom.summarizerModel`) costs what that
 * model charges: the live card and the reopened one price it alike.
 */
describe('session service: a compaction card’s cost, live and reopened', function () {
  this.timeout(240_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('prices the summary at the summarizer’s model on both cards', async () => {
    const session = 'claude-sonnet-4-6';
    const summarizer = 'claude-haiku-4-5';
    for (const m of [session, summarizer]) world.server.setWindow(m, 200_000);
    const { service } = await world.open({
      provider: { provider: 'anthropic', model: session, baseUrl: world.server.baseUrl, thinking: 'off' },
      models: { [session]: { contextWindow: 200_000, maxOutput: 8_000 }, [summarizer]: { contextWindow: 200_000, maxOutput: 8_000 } },
      compaction: { summarizerModel: summarizer, keepTurns: 0, resummarizeEvery: 10, native: true },
    });
    const live = new ChatPresenter(() => undefined);
    service.onDidEvent((e: AgentEvent) => live.handle(e));
    await talk(world, service, 3);
    world.server.script.push({ text: 'Summary.' });
    const report = await service.compactions.compact();
    assert.ok(report?.cost, 'a model summary was made');
    live.handle({ type: 'compaction', report });
    const liveCard = live.view().items.find((i) => i.kind === 'compaction');
    assert.ok(liveCard?.kind === 'compaction' && liveCard.cost !== undefined, 'the live card has a cost');

    await service.storage.flush();
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    const reopened = new ChatPresenter(() => undefined);
    reopened.load(service.sessions.messages, await service.compactions.history());
    const card = reopened.view().items.find((i) => i.kind === 'compaction');
    assert.ok(card?.kind === 'compaction');
    assert.equal(card.cost, liveCard.cost);
    assert.equal(card.text, liveCard.text);
  });
});
