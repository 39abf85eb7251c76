import assert from 'node:assert/strict';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

/**
 * History's timeline through the session service: a turn's checkpoint, a compaction and a clear come
 * back as one list of rewind points, newest first; each says whether it can be restored now, and an
 * undone clear gives the model back what it forgot.
 */
describe('session service: one timeline of rewind points', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'notes.txt': 'alpha\n' })));
  afterEach(async () => world?.close());

  it('lists checkpoints, compactions and the clear in time order, offering only what can be restored', async () => {
    const { service } = await world.open();
    await talk(world, service, 3);
    world.server.script.push(
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }] },
      { text: 'Edited.' },
    );
    await service.turns.prompt('change alpha to beta');
    world.server.script.push({ text: 'Summary: the notes say beta now.' });
    assert.ok(await service.compactions.compact());

    let timeline = (await service.sessions.history()).timeline;
    assert.deepEqual(
      timeline.map((p) => p.kind),
      ['compaction', 'checkpoint'],
    );
    const [compaction, checkpoint] = timeline;
    assert.equal(compaction.kind === 'compaction' && compaction.restorable, true, 'the newest compaction can be undone');
    assert.ok(checkpoint.kind === 'checkpoint');
    assert.equal(checkpoint.prompt, 'change alpha to beta');
    assert.deepEqual(checkpoint.files, ['notes.txt']);
    // No restore view ("Undo of the last compaction · 0 messages") is a rewind point.
    await service.compactions.undo();
    timeline = (await service.sessions.history()).timeline;
    assert.deepEqual(
      timeline.map((p) => p.kind),
      ['compaction', 'checkpoint'],
    );
    assert.equal(timeline[0].kind === 'compaction' && timeline[0].restorable, false, 'an undone compaction is not offered again');

    const before = JSON.stringify(service.sessions.messages);
    const forgotten = service.sessions.messages.length;
    await service.sessions.clear();
    timeline = (await service.sessions.history()).timeline;
    assert.equal(timeline[0].kind, 'clear');
    assert.equal(timeline[0].kind === 'clear' && timeline[0].restorable, true);
    assert.equal(timeline[0].kind === 'clear' && timeline[0].messages, forgotten);
    await service.sessions.undoClear();
    assert.equal(JSON.stringify(service.sessions.messages), before, 'the model has back what the clear took');
    const undone = (await service.sessions.history()).timeline.find((p) => p.kind === 'clear');
    assert.equal(undone?.kind === 'clear' && undone.restorable, false, 'an undone clear is not offered again');
    // The conversation goes on from the context the clear gave back.
    world.server.script.push({ text: 'Still here.' });
    await service.turns.prompt('after the undone clear');
    assert.ok(JSON.stringify(world.server.requests.at(-1)!.body).includes('change alpha to beta'));
  });

  it('does not offer to undo a clear once the conversation went on', async () => {
    const { service } = await world.open();
    await talk(world, service, 2);
    await service.sessions.clear();
    world.server.script.push({ text: 'Fresh start.' });
    await service.turns.prompt('new topic');
    const clear = (await service.sessions.history()).timeline.find((p) => p.kind === 'clear');
    assert.equal(clear?.kind === 'clear' && clear.restorable, false);
    await assert.rejects(service.sessions.undoClear(), /can no longer be undone/);
    assert.equal(
      service.sessions.messages.some((m) => JSON.stringify(m).includes('new topic')),
      true,
      'the refused undo changed nothing',
    );
  });

  it('a compaction from before a clear cannot be undone: that would bring back what the clear took away', async () => {
    const { service } = await world.open();
    await talk(world, service, 4);
    world.server.script.push({ text: 'Summary: four questions were answered.' });
    assert.ok(await service.compactions.compact());
    await service.sessions.clear();
    const compaction = (await service.sessions.history()).timeline.find((p) => p.kind === 'compaction');
    assert.equal(compaction?.kind === 'compaction' && compaction.restorable, false);
    await assert.rejects(service.compactions.undo(), /no compaction to undo/);
    assert.deepEqual(service.sessions.messages, [], 'the context stays cleared');
  });
});
