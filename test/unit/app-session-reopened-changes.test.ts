import assert from 'node:assert/strict';
import { StoredPages } from '../../src/panel/stored-history';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/**
 * A reopened session shows its turns' "Changes in this turn" cards again, each where its turn ended in
 * the stored transcript, through the session service and the panel's placement of stored marks.
 */
describe('session service: checkpoint cards come back after a reopen', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'src/a.ts': 'export const a = 1;\n' })));
  afterEach(async () => world?.close());

  it('places each turn’s changes card after the turn’s last message, restorable as before', async () => {
    const { service } = await world.open();
    world.server.script.push(
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'src/a.ts', old_text: 'a = 1', new_text: 'a = 2' } }] },
      { text: 'Edited.' },
    );
    await service.turns.prompt('Change a to 2.');
    const live = service.checkpoints.turnChanges();
    assert.ok(live, 'the turn changed a file');
    world.server.script.push({ text: 'Nothing to change.' });
    await service.turns.prompt('Anything else?');

    await service.storage.flush();
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    const history = await service.compactions.history();
    const stored = history.stored;
    assert.ok(stored);
    assert.deepEqual(
      stored.changes.map((c) => c.changes),
      [live],
      'the stored checkpoint says what the live card said',
    );
    const items = new StoredPages(stored, []).load();
    const card = items.findIndex((i) => i.kind === 'changes');
    assert.ok(card > 0, 'the card is shown');
    assert.deepEqual(
      items.slice(card - 1, card + 2).map((i) => (i.kind === 'assistant' ? `assistant:${i.text}` : i.kind)),
      ['assistant:Edited.', 'changes', 'user'],
      'right after the turn that made the change, before the next prompt',
    );
  });
});
