import assert from 'node:assert/strict';
import { HeadroomError } from '../../src/common/errors';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

/** Pins and named snapshots of the current session, through the session service. */
describe('session service: pins and snapshots', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('a pin survives compaction verbatim, and unpin removes it', async () => {
    const { service } = await world.open();
    await talk(world, service, 4, 'Step');
    await service.pins.pin('  Never commit generated files under dist/.  ');
    world.server.script.push({ text: 'Summary of the steps.' });
    assert.ok(await service.compactions.compact(), 'a compaction ran');
    assert.match(JSON.stringify(service.sessions.messages), /Never commit generated files under dist\//);
    const pins = await service.pins.pins();
    assert.deepEqual(
      pins.map((p) => p.text),
      ['Never commit generated files under dist/.'],
    );
    await service.pins.unpin(pins[0].id);
    assert.deepEqual(await service.pins.pins(), []);
  });

  it('refuses an empty pin and one too long to carry in every request', async () => {
    const { service } = await world.open();
    await assert.rejects(service.pins.pin('   '), /needs some text/);
    await assert.rejects(
      service.pins.pin('x'.repeat(4001)),
      (e: unknown) => e instanceof HeadroomError && /4,000 characters/.test(e.message),
    );
    assert.deepEqual(await service.pins.pins(), []);
  });

  it('saves a named snapshot with a summary and restores it later', async () => {
    const { service } = await world.open();
    await talk(world, service, 2);
    const saved = JSON.stringify(service.sessions.messages);
    world.server.script.push({ text: 'Snapshot summary: two instructions.' });
    await service.pins.saveSnapshot('  before the refactor ');
    assert.equal(JSON.stringify(service.sessions.messages), saved, 'saving leaves the view alone');
    const snapshot = (await service.sessions.history()).snapshots.find((s) => s.description === 'before the refactor');
    assert.ok(snapshot, 'the named snapshot is listed');
    await talk(world, service, 1, 'Later');
    assert.notEqual(JSON.stringify(service.sessions.messages), saved);
    await service.pins.restoreSnapshot(snapshot.id);
    assert.equal(JSON.stringify(service.sessions.messages), saved, 'restoring brings back the saved view');
  });
});
