import { strict as assert } from 'node:assert';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, open, tempRoot, texts, toolResult, turnMessages, user } from '../fixtures/store/helpers';

describe('store restart', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('returns the same session, snapshot, markers, pins and calibration after close and reopen', async () => {
    const store = await open(root);
    const s = await store.sessions.create('restart me');
    for (let i = 0; i < 6; i++)
      await store.sessions.appendTurn(s.id, turnMessages(i), { tokens: [11, 22], contentHashes: [`u${i}`, `a${i}`] });
    const res = await store.results.put(s.id, 'run_command', 'big\noutput\n');
    await store.sessions.recordCompaction(s.id, {
      beforeTokens: 900,
      afterTokens: 120,
      beforeMessages: 12,
      afterMessages: 3,
      strategies: ['clear_tool_results', 'summary'],
      summary: 'We did six things.',
      firstKeptSeq: 11,
      durationMs: 42,
      snapshot: {
        messages: [user('summary: six things'), toolResult(`[stored] ref_id="${res.refId}"`, res.refId)],
        tokens: 120,
        throughSeq: 10,
      },
    });
    await store.sessions.appendTurn(s.id, turnMessages(6));
    const marker = await store.sessions.clear(s.id, 1_800_000_000_000);
    await store.sessions.appendTurn(s.id, turnMessages(7));
    const pin = await store.sessions.pin(s.id, 'use pnpm', 3);
    await store.sessions.saveSnapshot(s.id, { description: 'checkpoint', summary: 'All good so far', messages: turnMessages(7) });
    await store.calibration.set('gpt-test', 0.93, 5);
    const before = await store.sessions.load(s.id);
    const listBefore = store.sessions.list();
    await store.close();

    const again = await open(root);
    try {
      assert.deepEqual(again.problems, []);
      assert.deepEqual(again.sessions.list(), listBefore);
      const after = await again.sessions.load(s.id);
      assert.deepEqual(after, before);
      assert.equal(after.snapshot?.kind, 'compaction');
      assert.equal(after.snapshot?.throughSeq, 10);
      assert.deepEqual(texts(after.tail.map((m) => m.message)), texts([5, 6, 7].flatMap(turnMessages)));
      assert.deepEqual(after.marker, marker);
      assert.deepEqual(after.pins, [pin]);
      assert.deepEqual(after.tail.map((m) => m.tokens).slice(0, 2), [11, 22]);
      assert.equal(after.tail[1].contentHash, 'a5');
      const [named] = await again.sessions.listSnapshots(s.id, 'named');
      assert.equal(named.description, 'checkpoint');
      assert.equal(named.summary, 'All good so far');
      const [c] = await again.sessions.listCompactions(s.id);
      assert.deepEqual(
        [c.beforeTokens, c.afterTokens, c.strategies, c.firstKeptSeq, c.durationMs],
        [900, 120, ['clear_tool_results', 'summary'], 11, 42],
      );
      assert.equal(again.calibration.get('gpt-test')?.factor, 0.93);
      assert.equal((await again.results.page(res.refId)).text, 'big\noutput\n');
      assert.equal((await again.sessions.transcript(s.id)).length, 16, 'the full transcript is kept by compaction and clear');
    } finally {
      await again.close();
    }
  });

  it('keeps unexported turns through the journal when the process dies without close', async () => {
    const store = await open(root, { exportDelayMs: 60_000, exportMaxWaitMs: 60_000 });
    const s = await store.sessions.create('no close');
    for (let i = 0; i < 3; i++) await store.sessions.appendTurn(s.id, turnMessages(i));
    // No close: simulate the process vanishing by dropping the lock it would have left behind as stale.
    rmSync(join(root, 'store.lock'));
    assert.equal(existsSync(join(root, 'sessions', `${s.id}.sqlite`)), false, 'nothing was exported yet');
    const again = await open(root);
    assert.equal((await again.sessions.transcript(s.id)).length, 6);
    await again.close();
    await store.close();
  });
});
