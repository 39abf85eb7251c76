import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { WorkspaceLock } from '../../src/store/workspace-lock';
import { cleanup, tempRoot } from '../fixtures/store/helpers';

/**
 * A reload starts the new extension host while the old one still holds the store: the new window
 * waits for the release instead of working read-only for the rest of its life.
 */
describe('the workspace lock while another host on this machine lets go', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('is taken once the holder releases within the wait', async () => {
    const path = join(root, 'store.lock');
    const old = await WorkspaceLock.acquire(path);
    assert.equal(old.owned, true);
    setTimeout(() => void old.release(), 600);
    const next = await WorkspaceLock.acquire(path, { waitMs: 5_000 });
    assert.equal(next.owned, true, 'the new window owns the store');
    await next.release();
  });

  it('is not taken, and says who holds it, when the holder keeps it past the wait (or without one)', async () => {
    const path = join(root, 'store.lock');
    const holder = await WorkspaceLock.acquire(path);
    const waited = await WorkspaceLock.acquire(path, { waitMs: 400 });
    assert.equal(waited.owned, false);
    assert.equal(waited.holder?.pid, process.pid);
    assert.equal((await WorkspaceLock.acquire(path)).owned, false, 'no wait by default');
    await holder.release();
  });
});
