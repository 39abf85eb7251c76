import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { HeadroomError } from '../../src/common/errors';
import { createFakeWorld, MODEL, type FakeWorld } from '../fixtures/app/fake-environment';

/** A turn of the session service through its host-environment port, against the fake provider. */
describe('session service: a turn', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'notes.txt': 'the build uses esbuild\n' })));
  afterEach(async () => world?.close());

  it('runs a prompt with a tool call through the fake provider, stores it and names the session', async () => {
    const { service, env } = await world.open();
    const events: AgentEvent[] = [];
    service.onDidEvent((e) => events.push(e));
    world.server.script.push(
      { toolCalls: [{ id: 't1', name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'It uses esbuild.' },
    );
    await service.turns.prompt('Which bundler?\nsecond line');
    assert.deepEqual(
      service.sessions.messages.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'assistant'],
    );
    assert.match(JSON.stringify(service.sessions.messages[2]), /the build uses esbuild/, 'the tool read the workspace folder of the port');
    assert.equal(world.server.requests.length, 2);
    // 200: the server accepts only the key the port released.
    assert.ok(world.server.requests.every((r) => r.model === MODEL && r.status === 200));
    assert.deepEqual(
      events.filter((e) => e.type === 'turn_end').map((e) => e.type === 'turn_end' && e.reason),
      ['done'],
    );
    const state = service.sessions.state();
    assert.equal(state.title, 'Which bundler?');
    assert.equal(state.running, false);
    assert.equal(state.transcriptCount, 4, 'the store has the whole turn');
    assert.ok(service.turns.measure().used > 0, 'the meter measures the view');
    assert.deepEqual(env.warnings, []);
  });

  it('sends nothing in Restricted Mode', async () => {
    const { service } = await world.open({ trusted: false });
    await assert.rejects(service.turns.prompt('hello'), (e: unknown) => e instanceof HeadroomError && e.kind === 'invalid_request');
    await assert.rejects(service.compactions.compact(), (e: unknown) => e instanceof HeadroomError && e.kind === 'invalid_request');
    assert.equal(world.server.requests.length, 0);
  });

  it('without a workspace folder the turn fails with a message to act on, and nothing is sent', async () => {
    const { service } = await world.open({ folderOpen: false });
    const events: AgentEvent[] = [];
    service.onDidEvent((e) => events.push(e));
    await service.turns.prompt('hello');
    const error = events.find((e) => e.type === 'error');
    assert.match(error?.type === 'error' ? error.message : '', /Open a folder first/);
    assert.equal(world.server.requests.length, 0);
  });
});
