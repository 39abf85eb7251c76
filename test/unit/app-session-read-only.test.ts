import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import { createFakeWorld, talk, until, type FakeWorld } from '../fixtures/app/fake-environment';

/** Every file under `dir` with its bytes (the lock file's heartbeat aside). */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const p = join(dir, name);
    if (!name.endsWith('store.lock') && statSync(p).isFile()) out.set(name, readFileSync(p).toString('base64'));
  }
  return out;
}

const readOnly = (e: unknown) => e instanceof HeadroomError && e.kind === 'storage';

/**
 * A second window over the same storage while the first is busy: the session service opens it
 * read-only and writes nothing. While the first is idle, it hands the store over instead.
 */
describe('session service: a read-only store', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('shows the busy first window’s session, refuses to change the store, and still runs turns in memory', async () => {
    const { service: first } = await world.open();
    await talk(world, first, 1);
    await first.pins.pin('first window pin');
    await first.storage.flush();
    // The first window is in the middle of a turn: it keeps the store.
    world.server.script.push({ fault: 'hang', partialText: 'Still thinking' });
    const running = first.turns.prompt('a long question');
    await until(() => first.sessions.state().running);
    const { service: second, env } = await world.open();
    const state = second.sessions.state();
    assert.equal(state.storage, 'read-only');
    assert.ok(state.storageNote, 'the panel is told why');
    assert.ok(
      env.warnings.some((w) => /read-only|another/i.test(w)),
      `warned: ${env.warnings.join(' | ')}`,
    );
    assert.equal(state.sessionId, first.sessions.state().sessionId, 'it opens the latest session');
    assert.equal(JSON.stringify(second.sessions.messages), JSON.stringify(first.sessions.messages), 'the prompt saved so far');
    assert.deepEqual(
      (await second.pins.pins()).map((p) => p.text),
      ['first window pin'],
    );

    const before = files(world.storageRoot);
    await assert.rejects(second.pins.pin('mine'), readOnly);
    await assert.rejects(second.pins.saveSnapshot('mine'), readOnly);
    await assert.rejects(second.compactions.undo(), readOnly);
    const had = second.sessions.messages.length;
    await talk(world, second, 1, 'Second window');
    assert.equal(second.sessions.messages.length, had + 2, 'the turn ran in memory');
    await second.sessions.clear();
    await second.storage.flush();
    assert.deepEqual(files(world.storageRoot), before, 'the read-only window changed no file');
    assert.equal(first.sessions.state().storage, 'workspace', 'the busy window kept the store');
    first.sessions.stop();
    await running.catch(() => {});
  });

  it('an idle first window hands the store to the new one, saves first, and then says it is read-only', async () => {
    const { service: first } = await world.open();
    await talk(world, first, 1);
    await first.pins.pin('first window pin');
    let told = 0;
    first.sessions.onDidChangeState((s) => s.storage === 'read-only' && told++);
    const { service: second } = await world.open();
    const state = second.sessions.state();
    assert.equal(state.storage, 'workspace', 'the new window writes');
    assert.equal(state.sessionId, first.sessions.state().sessionId, 'it resumes the same session');
    assert.equal(JSON.stringify(second.sessions.messages), JSON.stringify(first.sessions.messages));
    assert.deepEqual(
      (await second.pins.pins()).map((p) => p.text),
      ['first window pin'],
      'what the first window had not yet exported was saved before it let go',
    );
    await until(() => told > 0);
    assert.equal(first.sessions.state().storage, 'read-only');
    assert.match(first.sessions.state().storageNote ?? '', /newer VS Code window .* took over/);
    await assert.rejects(first.pins.pin('too late'), readOnly);
    await second.pins.pin('second window pin');
    assert.deepEqual(
      (await second.pins.pins()).map((p) => p.text),
      ['first window pin', 'second window pin'],
    );
  });
});
