import { strict as assert } from 'node:assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import { HANDED_OFF_REASON } from '../../src/store/store';
import { WorkspaceLock } from '../../src/store/workspace-lock';
import { cleanup, open, tempRoot, texts, turnMessages } from '../fixtures/store/helpers';

/**
 * A browser tab closed on code-server keeps its extension host, and the store's lock, for hours (the
 * server's reconnection grace time, 3 h by default): the next tab on the workspace asked for the lock,
 * waited 6 s, and then worked read-only. Now the waiting window asks the holder (`store.lock.want`) and
 * an idle holder saves, lets go and turns read-only itself; a busy one keeps the store.
 */
describe('the workspace lock handed to a newer window', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('is handed over when the holder agrees, well within the wait, and the request is cleared', async () => {
    const path = join(root, 'store.lock');
    const old = await WorkspaceLock.acquire(path);
    let asked = 0;
    old.handOffWhenAsked(() => Promise.resolve((asked++, true)), 50);
    const started = Date.now();
    const next = await WorkspaceLock.acquire(path, { waitMs: 5_000 });
    assert.equal(next.owned, true, 'the newer window owns the store');
    assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
    assert.equal(asked, 1);
    assert.equal(old.stillOwned, false, 'the old window knows it let go');
    assert.equal(await next.verify(), true);
    assert.equal(existsSync(`${path}.want`), false, 'the request is removed once answered');
    await next.release();
  });

  it('is kept by a busy holder: the newer window works read-only and its request is cleared', async () => {
    const path = join(root, 'store.lock');
    const holder = await WorkspaceLock.acquire(path);
    let asked = 0;
    holder.handOffWhenAsked(() => Promise.resolve((asked++, false)), 50);
    const waited = await WorkspaceLock.acquire(path, { waitMs: 600 });
    assert.equal(waited.owned, false);
    assert.ok(asked >= 2, `the holder was asked again while the request stood (${asked})`);
    assert.equal(await holder.verify(), true, 'the holder keeps its lock');
    assert.equal(existsSync(`${path}.want`), false, 'no request is left behind');
    await holder.release();
  });

  it('ignores a forged, stale, oversized or own request', async () => {
    const path = join(root, 'store.lock');
    const holder = await WorkspaceLock.acquire(path);
    let asked = 0;
    holder.handOffWhenAsked(() => Promise.resolve((asked++, true)), 20);
    const pause = () => new Promise((r) => setTimeout(r, 150));
    for (const text of [
      'not json',
      JSON.stringify({ id: 'x', pid: 'one', at: Date.now() }),
      JSON.stringify({ id: 'x', pid: 1, at: Date.now() - 60_000 }),
      JSON.stringify({ id: 'x', pid: 1, at: Date.now() + 60_000 }),
      JSON.stringify({ id: 'x'.repeat(2_000), pid: 1, at: Date.now() }),
    ]) {
      writeFileSync(`${path}.want`, text);
      await pause();
    }
    assert.equal(asked, 0, 'no request was believed');
    assert.equal(holder.stillOwned, true);
    await holder.release();
  });

  it('a store saves what it holds, then the newer window opens it writable and the old one refuses writes', async () => {
    let idle = false;
    const first = await open(root, { canHandOff: () => idle });
    const s = await first.sessions.create('mine');
    await first.sessions.appendTurn(s.id, turnMessages(0));
    // Busy: the newer window waits its time out and reads only.
    const busy = await open(root, { waitMs: 800 });
    assert.equal(busy.readOnly, true);
    await busy.close();
    assert.equal(first.readOnly, false, 'a busy window keeps the store');

    idle = true;
    await first.sessions.appendTurn(s.id, turnMessages(1));
    const reasons: string[] = [];
    first.onDidReportProblem((p) => reasons.push(p.kind));
    const second = await open(root, { waitMs: 5_000 });
    assert.equal(second.readOnly, false, 'the newer window writes');
    assert.deepEqual(
      texts((await second.sessions.transcript(s.id)).map((m) => m.message)),
      texts([...turnMessages(0), ...turnMessages(1)]),
      'everything the old window wrote is there',
    );
    assert.equal(first.readOnly, true);
    assert.equal(first.readOnlyReason, HANDED_OFF_REASON);
    assert.deepEqual(reasons, ['read_only'], 'the old window is told once');
    await assert.rejects(first.sessions.appendTurn(s.id, turnMessages(2)), (e) => e instanceof HeadroomError && e.kind === 'storage');
    await second.sessions.appendTurn(s.id, turnMessages(2));
    await first.close();
    await second.close();
    const after = await open(root);
    assert.equal(
      (await after.sessions.transcript(s.id)).length,
      3 * turnMessages(0).length,
      'the old window wrote nothing after it let go',
    );
    await after.close();
  });
});
