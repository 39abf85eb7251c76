import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import type { HostActions } from '../../src/app/host-actions';
import { ACTION_EFFECTS, restrictedActions } from '../../src/app/restricted-actions';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

const restricted = (e: unknown) => e instanceof HeadroomError && /Restricted Mode.*Manage Workspace Trust/.test(e.message);

/** HostActions whose every action records its call (what the guard lets through). */
function recordingActions(calls: string[], real: Partial<{ [G in keyof HostActions]: Partial<HostActions[G]> }> = {}): HostActions {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [group, effects] of Object.entries(ACTION_EFFECTS)) {
    out[group] = {};
    for (const name of Object.keys(effects)) {
      const given = (real as Record<string, Record<string, unknown> | undefined>)[group]?.[name];
      out[group][name] =
        given ??
        ((...args: unknown[]) => {
          calls.push(`${group}.${name}`);
          return Promise.resolve(args.length);
        });
    }
  }
  return out as unknown as HostActions;
}

describe('security: Restricted Mode refuses every action that writes or sends, in one guard', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'notes.txt': 'alpha\n' })));
  afterEach(async () => world?.close());

  it('a checkpoint restore in an untrusted workspace rewrites and deletes nothing', async () => {
    const { service, env } = await world.open();
    world.server.script.push(
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }] },
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'made.txt', content: 'kept\n' } }] },
      { text: 'Done.' },
    );
    await service.turns.prompt('edit two files');
    assert.equal(await fs.readFile(path.join(world.folder, 'notes.txt'), 'utf8'), 'beta\n');
    // The person now opens the same folder untrusted (a fresh clone, Restricted Mode).
    env.settingsNow.trusted = false;
    const calls: string[] = [];
    const actions = restrictedActions(
      recordingActions(calls, {
        checkpoints: { restore: async (turn) => void (await service.checkpoints.restore(turn, () => Promise.resolve('overwrite'))) },
        config: { testConnection: () => service.turns.testConnection() },
      }),
      () => env.trusted(),
    );
    const requests = world.server.requests.length;
    await assert.rejects(actions.checkpoints.restore(1), restricted);
    assert.equal(await fs.readFile(path.join(world.folder, 'notes.txt'), 'utf8'), 'beta\n', 'not rewritten');
    assert.equal(await fs.readFile(path.join(world.folder, 'made.txt'), 'utf8'), 'kept\n', 'not deleted');
    const tested = await actions.config.testConnection();
    assert.equal(tested.ok, false);
    assert.match(tested.message, /Restricted Mode/);
    assert.equal(world.server.requests.length, requests, 'Test connection sent no request with the key');
    // Trusted again: the same actions run.
    env.settingsNow.trusted = true;
    assert.equal((await actions.config.testConnection()).ok, true);
    await actions.checkpoints.restore(1);
    assert.equal(await fs.readFile(path.join(world.folder, 'notes.txt'), 'utf8'), 'alpha\n');
  });

  it('lets every read through and refuses every write or send, whichever way it is called', async () => {
    const calls: string[] = [];
    const actions = restrictedActions(recordingActions(calls), () => false);
    const refused: string[] = [];
    for (const [group, effects] of Object.entries(ACTION_EFFECTS)) {
      for (const [name, effect] of Object.entries(effects as Record<string, string>)) {
        const fn = (actions as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[group][name];
        const result = await Promise.resolve(fn('x')).catch((e: unknown) => e);
        if (effect === 'reads') assert.ok(calls.includes(`${group}.${name}`), `${group}.${name} is a read and runs`);
        else {
          assert.ok(!calls.includes(`${group}.${name}`), `${group}.${name} ran in Restricted Mode`);
          refused.push(`${group}.${name}`);
          if (name !== 'testConnection') assert.ok(restricted(result), `${group}.${name}: ${String(result)}`);
        }
      }
    }
    for (const must of [
      'prompt.submit',
      'prompt.resend',
      'prompt.retry',
      'context.compact',
      'checkpoints.restore',
      'config.testConnection',
      'sessions.delete',
      'pins.pin',
    ])
      assert.ok(refused.includes(must), must);
  });
});
