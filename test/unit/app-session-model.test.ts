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
    assert.equal(service.modelChoice().model, MODEL, 'a new session starts on the settings’ model');
    await service.setModel({ provider: 'anthropic', model: OTHER, thinking: 'off' });
    assert.equal(service.modelChoice().model, OTHER);
    assert.equal(service.limits().model, OTHER, 'the meter measures against the new model at once');
    world.server.script.push({ text: 'hello from the other model' });
    await service.prompt('hi');
    assert.equal(world.server.requests.at(-1)?.model, OTHER);

    const first = service.state().sessionId;
    await service.newSession();
    assert.equal(service.modelChoice().model, MODEL, 'another new session starts on the default');
    await service.openSession(first);
    assert.equal(service.modelChoice().model, OTHER, 'the stored model comes back');
  });

  it('at start-up the latest session follows the settings’ model', async () => {
    const { service } = await world.open();
    await service.setModel({ provider: 'anthropic', model: OTHER, thinking: 'off' });
    await service.flush();
    service.dispose();
    await world.waitForStoreClosed();
    const { service: again } = await world.open();
    assert.equal(again.modelChoice().model, MODEL);
  });
});
