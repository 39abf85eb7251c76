import assert from 'node:assert/strict';
import { TokenLedger } from '../../src/context/token-ledger';
import { createFakeWorld, talk, until, type FakeWorld } from '../fixtures/app/fake-environment';

/** Manual compaction, its persistence and undo, through the session service and the fake provider. */
describe('session service: manual compaction and undo', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('compacts by hand, keeps every instruction, and undo restores the exact view', async () => {
    const { service } = await world.open();
    await talk(world, service, 6);
    const before = JSON.stringify(service.sessions.messages);
    assert.equal((await service.sessions.history()).canUndoCompaction, false);
    world.server.script.push({ text: 'Summary: the user wants lowercase file names; six questions were answered.' });
    const report = await service.compactions.compact('keep the naming rule');
    assert.ok(report, 'a compaction ran');
    assert.equal(report.trigger, 'manual');
    assert.ok(report.afterTokens < report.beforeTokens, `freed tokens (${report.beforeTokens} → ${report.afterTokens})`);
    const after = JSON.stringify(service.sessions.messages);
    for (let i = 0; i < 6; i++)
      assert.ok(after.includes(`Instruction ${i}: always keep file names in lowercase`), `instruction ${i} survives`);
    assert.ok(service.sessions.state().messageCount < service.sessions.state().transcriptCount, 'the transcript keeps everything');

    assert.equal((await service.sessions.history()).canUndoCompaction, true, 'the compaction was recorded');
    await service.compactions.undo();
    assert.equal(JSON.stringify(service.sessions.messages), before, 'undo restores the view exactly');
    assert.equal((await service.sessions.history()).canUndoCompaction, false, 'an undo is not undone again');
  });

  it('a reopened session resumes from the compacted view', async () => {
    const { service } = await world.open();
    await talk(world, service, 4);
    world.server.script.push({ text: 'Summary again.' });
    assert.ok(await service.compactions.compact());
    const view = JSON.stringify(service.sessions.messages);
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    assert.equal(JSON.stringify(service.sessions.messages), view);
  });

  it("keeps the count of every message of the compacted view, so the reopened session's first meter recounts nothing", async () => {
    const { service } = await world.open();
    await talk(world, service, 4);
    world.server.script.push({ text: 'Summary with counts.' });
    assert.ok(await service.compactions.compact());
    const id = service.sessions.state().sessionId;
    const store = service.storage.store;
    assert.ok(store && id);
    const view = await store.sessions.contextView(id);
    assert.equal(view.messages.length, service.sessions.messages.length, 'the snapshot is the resume view');
    assert.equal(view.counts.length, view.messages.length, 'every snapshot message came back with its stored count');
    // The fake world has no token worker, so the stored counts are the service's estimates; with the
    // worker they are its exact counts (the store keeps `exact` as given: store-resume-counts.test.ts).
    const ledger = new TokenLedger();
    ledger.seed(view.counts);
    const family = service.models.limits().family;
    const stored = view.counts.reduce((sum, c) => sum + c.tokens, 0);
    assert.equal(ledger.total(view.messages, family).tokens, stored, 'the first meter is the stored counts, nothing recounted');
    assert.ok(view.counts.every((c) => c.family === family));
  });

  it('an empty session has nothing to compact', async () => {
    const { service } = await world.open();
    assert.equal(await service.compactions.compact(), undefined);
    assert.equal(world.server.requests.length, 0);
  });

  it('clear empties the context but deletes no stored message', async () => {
    const { service } = await world.open();
    await talk(world, service, 2);
    const stored = service.sessions.state().transcriptCount;
    await service.sessions.clear();
    assert.equal(service.sessions.messages.length, 0);
    assert.equal(service.sessions.state().transcriptCount, stored);
  });

  it('a cancelled compaction leaves the context as it was and records nothing', async () => {
    const { service } = await world.open();
    await talk(world, service, 6);
    const before = JSON.stringify(service.sessions.messages);
    const sent = world.server.requests.length;
    world.server.script.push({ fault: 'silent' });
    const running = service.compactions.compact();
    await until(() => world.server.requests.length > sent);
    assert.equal(service.compactions.running, true);
    await assert.rejects(service.compactions.undo(), /Wait for the compaction/);
    assert.equal(service.compactions.cancel(), true);
    assert.equal(await running, undefined);
    assert.equal(service.compactions.running, false);
    assert.equal(service.compactions.lastCancelled, true);
    assert.equal(JSON.stringify(service.sessions.messages), before);
    assert.equal((await service.sessions.history()).canUndoCompaction, false);
    assert.equal(service.compactions.cancel(), false, 'nothing left to cancel');
  });
});
