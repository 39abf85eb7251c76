import assert from 'node:assert/strict';
import { HeadroomError } from '../../src/common/errors';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

/** The session service through its host-environment port: opening the store, creating and switching sessions. */
describe('session service: open, create, switch', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('opens a writable store and starts a new session in it', async () => {
    const { service } = await world.open();
    const state = service.sessions.state();
    assert.equal(state.storage, 'workspace');
    assert.equal(state.title, 'New session');
    assert.equal(state.messageCount, 0);
    assert.deepEqual(
      service.sessions.list().map((s) => s.id),
      [state.sessionId],
    );
  });

  it('switches between sessions and back to the same view', async () => {
    const { service } = await world.open();
    await talk(world, service, 1);
    const first = service.sessions.state().sessionId;
    const view = JSON.stringify(service.sessions.messages);
    await service.sessions.create();
    const second = service.sessions.state().sessionId;
    assert.notEqual(second, first);
    assert.equal(service.sessions.messages.length, 0);
    const states: string[] = [];
    service.sessions.onDidChangeState((s) => states.push(s.sessionId));
    await service.sessions.open(first);
    assert.deepEqual(states, [first], 'the switch is reported');
    assert.equal(JSON.stringify(service.sessions.messages), view);
    const history = await service.sessions.history();
    assert.equal(history.currentSessionId, first);
    assert.deepEqual(history.sessions.map((s) => s.id).sort(), [first, second].sort());
    await assert.rejects(service.sessions.open('no-such-session'), (e: unknown) => e instanceof HeadroomError && e.kind === 'not_found');
  });

  it('renames, and deleting the current session opens the next one', async () => {
    const { service } = await world.open();
    const first = service.sessions.state().sessionId;
    await service.sessions.create();
    const second = service.sessions.state().sessionId;
    await service.sessions.rename(second, 'Refactor the parser');
    assert.equal(service.sessions.state().title, 'Refactor the parser');
    await service.sessions.delete(second);
    assert.equal(service.sessions.state().sessionId, first);
    assert.deepEqual(
      service.sessions.list().map((s) => s.id),
      [first],
    );
  });

  it('a new window over the same storage resumes the latest session with its messages', async () => {
    const { service } = await world.open();
    await talk(world, service, 1);
    const { sessionId, title } = service.sessions.state();
    const view = JSON.stringify(service.sessions.messages);
    await service.storage.flush();
    service.dispose();
    await world.waitForStoreClosed();
    const { service: again } = await world.open();
    assert.equal(again.sessions.state().sessionId, sessionId);
    assert.equal(again.sessions.state().title, title.trim(), 'the title the first prompt gave');
    assert.equal(JSON.stringify(again.sessions.messages), view);
  });

  it('without a storage root keeps the session in memory and says why', async () => {
    const { service } = await world.open({ storage: false });
    assert.equal(service.sessions.state().storage, 'memory');
    assert.match(service.sessions.state().storageNote ?? '', /in memory only/);
    await assert.rejects(service.pins.pin('keep this'), (e: unknown) => e instanceof HeadroomError && e.kind === 'not_found');
    await talk(world, service, 1);
    assert.equal(service.sessions.messages.length, 2);
  });

  it('reports invalid settings once, and keeps their defaults', async () => {
    const { service, env } = await world.open({ models: 'not an object' });
    service.turns.measure();
    service.turns.measure();
    assert.equal(env.warnings.filter((w) => /settings are invalid/.test(w)).length, 1, env.warnings.join(' | '));
    assert.equal(service.models.limits().contextWindow > 0, true);
  });
});
