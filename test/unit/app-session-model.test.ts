import assert from 'node:assert/strict';
import { createFakeWorld, MODEL, type FakeWorld } from '../fixtures/app/fake-environment';

const OTHER = 'other-model';

/** A session's own model through the session service: switched, used, stored with the session. */
describe('session service: the session’s model', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => {
    world = await createFakeWorld();
    world.server.setWindow(OTHER, 100_000);
  });
  afterEach(async () => world?.close());

  it('switches the model of the current session, sends to it, and brings it back when the session is reopened', async () => {
    const { service } = await world.open();
    assert.equal(service.models.choice().model, MODEL, 'a new session starts on the settings’ model');
    await service.turns.setModel({ provider: 'anthropic', model: OTHER, thinking: 'off' });
    assert.equal(service.models.choice().model, OTHER);
    assert.equal(service.models.limits().model, OTHER, 'the meter measures against the new model at once');
    world.server.script.push({ text: 'hello from the other model' });
    await service.turns.prompt('hi');
    assert.equal(world.server.requests.at(-1)?.model, OTHER);

    const first = service.sessions.state().sessionId;
    await service.sessions.create();
    assert.equal(service.models.choice().model, MODEL, 'another new session starts on the default');
    await service.sessions.open(first);
    assert.equal(service.models.choice().model, OTHER, 'the stored model comes back');
  });

  it('at start-up the latest session follows the settings’ model', async () => {
    const { service } = await world.open();
    await service.turns.setModel({ provider: 'anthropic', model: OTHER, thinking: 'off' });
    await service.storage.flush();
    service.dispose();
    await world.waitForStoreClosed();
    const { service: again } = await world.open();
    assert.equal(again.models.choice().model, MODEL);
  });
});
