import assert from 'node:assert/strict';
import { compactionDetails, historyMessage, storedCompaction } from '../../src/context/compaction';
import type { Message } from '../../src/providers/types';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import type { ChatItem, ChatItemOf } from '../../src/protocol/view-models';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

const cardsOf = (items: readonly ChatItem[]) => items.filter((i): i is ChatItemOf<'compaction'> => i.kind === 'compaction');

/** What each compaction did to the context is stored with it and shown again when the session is reopened. */
describe('session service: the stored "what left the context" of each compaction', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('a reopened session rebuilds every compaction card with its view, Undo on the newest only', async () => {
    const { service } = await world.open();
    world.server.script.push({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'README.md' } }] });
    await talk(world, service, 5);
    world.server.script.push({ text: 'Summary one: lowercase file names.' });
    assert.ok(await service.compactions.compact());
    await talk(world, service, 4, 'Later');
    world.server.script.push({ text: 'Summary two: still lowercase.' });
    assert.ok(await service.compactions.compact());
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);

    const history = await service.compactions.history();
    assert.equal(history.compactions.length, 2);
    assert.equal(history.newestUndoable, true);
    const [first, second] = history.compactions.map((c) => c.view);
    assert.ok(first && second, 'both views are stored');
    assert.equal(first.trigger, 'manual');
    assert.equal(first.details.summary, 'Summary one: lowercase file names.');
    assert.ok(first.details.summarizedCount > 0, 'the first compaction summarized turns');
    assert.ok(
      first.details.summarized.some((l) => l.role === 'user' && l.text.startsWith('Instruction 0:')),
      'the oldest turn is listed as summarized',
    );
    assert.ok(first.details.keptCount > 0);
    assert.match(first.kept, /^kept: summary \+/);
    assert.equal(second.details.summary, 'Summary two: still lowercase.');
    assert.ok(
      second.details.summarized.some((l) => l.text.startsWith('Later')),
      'the second one summarized the later turns',
    );

    const presenter = new ChatPresenter(() => {});
    presenter.setUndoAvailable(true);
    presenter.load(service.sessions.messages, history);
    const cards = cardsOf(presenter.transcript.items);
    assert.equal(cards.length, 2);
    // The stored transcript, from its first prompt, with each card where its compaction ran.
    const first0 = presenter.transcript.items[0];
    assert.ok(first0.kind === 'user' && first0.text.startsWith('Instruction 0:'), 'the chat starts with the first prompt, not the context');
    const kinds = presenter.transcript.items.map((i) => (i.kind === 'user' ? i.text.slice(0, 5) : i.kind));
    assert.ok(kinds.indexOf('compaction') < kinds.indexOf('Later'), `the first card is before the later turns: ${kinds.join(' ')}`);
    assert.deepEqual(cards[0].details, first.details);
    assert.equal(cards[0].kept, first.kept);
    assert.equal(cards[0].canUndo ?? false, false, 'an older compaction cannot be undone');
    assert.equal(cards[1].canUndo, true, 'the newest can');
    assert.match(cards[1].text, /^Compacted: /);

    // Undo from the reopened card: the card says so and the restored context is shown below it.
    await service.compactions.undo();
    presenter.continueWith(service.sessions.messages, 'undo');
    const after = cardsOf(presenter.transcript.items);
    assert.equal(after[1].undone, true);
    assert.equal(after[1].canUndo, false);
    const texts = presenter.transcript.items.flatMap((i) => (i.kind === 'user' ? [i.text] : []));
    assert.ok(
      texts.some((t) => t.startsWith('Later 0:')),
      'the turns the undone compaction had summarized are shown',
    );
    assert.equal(new Set(texts).size, texts.length, 'shown once: the stored transcript shows them already');
    assert.equal(presenter.transcript.get(`${after[1].id}d`), undefined, 'the undone compaction’s divider went');

    // Reopened once more: the undone compaction cannot be undone, and its view is still there.
    await service.sessions.create();
    await service.sessions.open(id);
    const again = await service.compactions.history();
    assert.equal(again.newestUndoable, false);
    assert.deepEqual(again.compactions[1].view?.details, second.details);
  });

  it('a reopened session shows every compaction and the clear, and only one since the clear can be undone', async () => {
    const { service } = await world.open();
    await talk(world, service, 4);
    world.server.script.push({ text: 'Summary before the clear.' });
    assert.ok(await service.compactions.compact());
    await service.sessions.clear();
    await talk(world, service, 4, 'After');
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    const before = await service.compactions.history();
    assert.deepEqual(
      before.compactions.map((c) => c.summary),
      ['Summary before the clear.'],
    );
    assert.equal(before.newestUndoable, false, 'a compaction from before the clear cannot be undone');
    assert.equal(before.stored?.clear?.afterSeq !== undefined, true, 'the clear is placed');
    world.server.script.push({ text: 'Summary after the clear.' });
    assert.ok(await service.compactions.compact());
    const history = await service.compactions.history();
    assert.deepEqual(
      history.compactions.map((c) => c.summary),
      ['Summary before the clear.', 'Summary after the clear.'],
    );
    assert.equal(history.newestUndoable, true);
  });

  it('a record whose stored view is not valid opens as a card without the view', () => {
    const base = { id: 'cmp1', beforeTokens: 9_000, afterTokens: 2_000, durationMs: 1_200, summary: 'S' };
    for (const report of [null, 'not json', { v: 1, trigger: 'manual', kept: 'x', details: { kept: 'oops' } }, { v: 2 }]) {
      const c = storedCompaction({ ...base, report });
      assert.equal(c.view, undefined, JSON.stringify(report));
      const presenter = new ChatPresenter(() => {});
      presenter.load([], { compactions: [c], newestUndoable: false });
      const [card] = cardsOf(presenter.transcript.items);
      assert.equal(card.details, undefined);
      assert.equal(card.summary, 'S');
      assert.match(card.text, /9k → 2k tokens/);
    }
  });

  it('lists under "stored" every tool result that left with a ref id, also one stored before this pass', () => {
    const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 0 });
    const old: Message = {
      role: 'toolResult',
      toolCallId: 'c0',
      toolName: 'read_file',
      content: [{ type: 'text', text: '[stored as res_old]' }],
      isError: false,
      refId: 'res_old',
      timestamp: 0,
    };
    const kept = user('latest');
    const d = compactionDetails({
      before: [user('first'), old, kept],
      after: [historyMessage({ summary: 'S', pins: [], instructions: [] }, 1), kept],
      strategies: ['summary'],
      summary: 'S',
      storedRefIds: ['res_new'],
    });
    assert.deepEqual(d.stored, [{ refId: 'res_new' }, { refId: 'res_old', toolName: 'read_file' }]);
    assert.equal(d.summarizedCount, 2);
  });
});
