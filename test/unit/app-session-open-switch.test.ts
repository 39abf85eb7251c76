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
    const state = service.state();
    assert.equal(state.storage, 'workspace');
    assert.equal(state.title, 'New session');
    assert.equal(state.messageCount, 0);
    assert.deepEqual(
      service.listSessions().map((s) => s.id),
      [state.sessionId],
    );
  });

  it('switches between sessions and back to the same view', async () => {
    const { service } = await world.open();
    await talk(world, service, 1);
    const first = service.state().sessionId;
    const view = JSON.stringify(service.messages);
    await service.newSession();
    const second = service.state().sessionId;
    assert.notEqual(second, first);
    assert.equal(service.messages.length, 0);
    const states: string[] = [];
    service.onDidChangeState((s) => states.push(s.sessionId));
    await service.openSession(first);
    assert.deepEqual(states, [first], 'the switch is reported');
    assert.equal(JSON.stringify(service.messages), view);
    const history = await service.history();
    assert.equal(history.currentSessionId, first);
    assert.deepEqual(history.sessions.map((s) => s.id).sort(), [first, second].sort());
    await assert.rejects(service.openSession('no-such-session'), (e: unknown) => e instanceof HeadroomError && e.kind === 'not_found');
  });

  it('renames, and deleting the current session opens the next one', async () => {
    const { service } = await world.open();
    const first = service.state().sessionId;
    await service.newSession();
    const second = service.state().sessionId;
    await service.renameSession(second, 'Refactor the parser');
    assert.equal(service.state().title, 'Refactor the parser');
    await service.deleteSession(second);
    assert.equal(service.state().sessionId, first);
    assert.deepEqual(
      service.listSessions().map((s) => s.id),
      [first],
    );
  });

  it('a new window over the same storage resumes the latest session with its messages', async () => {
    const { service } = await world.open();
    await talk(world, service, 1);
    const { sessionId, title } = service.state();
    const view = JSON.stringify(service.messages);
    await service.flush();
    service.dispose();
    await world.waitForStoreClosed();
    const { service: again } = await world.open();
    assert.equal(again.state().sessionId, sessionId);
    assert.equal(again.state().title, title.trim(), 'the title the first prompt gave');
    assert.equal(JSON.stringify(again.messages), view);
  });

  it('without a storage root keeps the session in memory and says why', async () => {
    const { service } = await world.open({ storage: false });
    assert.equal(service.state().storage, 'memory');
    assert.match(service.state().storageNote ?? '', /in memory only/);
    await assert.rejects(service.pin('keep this'), (e: unknown) => e instanceof HeadroomError && e.kind === 'not_found');
    await talk(world, service, 1);
    assert.equal(service.messages.length, 2);
  });

  it('reports invalid settings once, and keeps their defaults', async () => {
    const { service, env } = await world.open({ models: 'not an object' });
    service.measure();
    service.measure();
    assert.equal(env.warnings.filter((w) => /settings are invalid/.test(w)).length, 1, env.warnings.join(' | '));
    assert.equal(service.limits().contextWindow > 0, true);
  });
});
