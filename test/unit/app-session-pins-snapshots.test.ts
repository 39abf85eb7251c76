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
    await service.pin('  Never commit generated files under dist/.  ');
    world.server.script.push({ text: 'Summary of the steps.' });
    assert.ok(await service.compact(), 'a compaction ran');
    assert.match(JSON.stringify(service.messages), /Never commit generated files under dist\//);
    const pins = await service.pins();
    assert.deepEqual(
      pins.map((p) => p.text),
      ['Never commit generated files under dist/.'],
    );
    await service.unpin(pins[0].id);
    assert.deepEqual(await service.pins(), []);
  });

  it('refuses an empty pin and one too long to carry in every request', async () => {
    const { service } = await world.open();
    await assert.rejects(service.pin('   '), /needs some text/);
    await assert.rejects(service.pin('x'.repeat(4001)), (e: unknown) => e instanceof HeadroomError && /4,000 characters/.test(e.message));
    assert.deepEqual(await service.pins(), []);
  });

  it('saves a named snapshot with a summary and restores it later', async () => {
    const { service } = await world.open();
    await talk(world, service, 2);
    const saved = JSON.stringify(service.messages);
    world.server.script.push({ text: 'Snapshot summary: two instructions.' });
    await service.saveSnapshot('  before the refactor ');
    assert.equal(JSON.stringify(service.messages), saved, 'saving leaves the view alone');
    const snapshot = (await service.history()).snapshots.find((s) => s.description === 'before the refactor');
    assert.ok(snapshot, 'the named snapshot is listed');
    await talk(world, service, 1, 'Later');
    assert.notEqual(JSON.stringify(service.messages), saved);
    await service.restoreSnapshot(snapshot.id);
    assert.equal(JSON.stringify(service.messages), saved, 'restoring brings back the saved view');
  });
});
