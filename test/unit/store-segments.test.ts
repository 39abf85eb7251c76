import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../src/providers/types';
import { SEAL_LIVE_BYTES } from '../../src/store/segments';
import { assistant, cleanup, open, tempRoot, texts, user } from '../fixtures/store/helpers';

/** A turn of about 10 KB, so a few hundred turns cross the sealing threshold several times. */
function bigTurn(i: number): Message[] {
  return [
    user(`question ${i} ${'q'.repeat(5000)}`, 1_700_000_000_000 + i),
    assistant(`answer ${i} ${'a'.repeat(5000)}`, 1_700_000_000_000 + i),
  ];
}

const segmentFiles = (root: string) => readdirSync(join(root, 'sessions')).filter((f) => /\.seg-\d+-\d+\.jsonl$/.test(f));

describe('store: older messages sealed into segments', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('keeps the session database small however long the session gets, and reads every message back', async () => {
    const turns = Math.ceil((SEAL_LIVE_BYTES * 4) / 10_000);
    const store = await open(root);
    const s = await store.sessions.create('long');
    for (let i = 0; i < turns; i++)
      await store.sessions.appendTurn(s.id, bigTurn(i), {
        tokens: [i, i + 1],
        contentHashes: [`a${i}`, `b${i}`],
        tokenFamily: 'o200k',
        tokensExact: [true, false],
      });
    await store.sessions.settle();
    await store.close();
    assert.ok(segmentFiles(root).length >= 2, `segments: ${segmentFiles(root).join(', ')}`);
    const image = statSync(join(root, 'sessions', `${s.id}.sqlite`)).size;
    assert.ok(image < SEAL_LIVE_BYTES * 2, `the session database is ${image} bytes`);

    const again = await open(root);
    const all = await again.sessions.transcript(s.id);
    assert.equal(all.length, turns * 2);
    assert.deepEqual(
      all.map((m) => m.seq),
      all.map((_, i) => i + 1),
    );
    assert.deepEqual(texts(all.map((m) => m.message)), texts(Array.from({ length: turns }, (_, i) => bigTurn(i)).flat()));
    assert.deepEqual(
      [all[6].tokens, all[6].contentHash, all[6].tokenFamily, all[6].tokensExact, all[7].tokensExact],
      [3, 'a3', 'o200k', true, false],
    );
    // A page from the middle of the sealed history.
    const page = await again.sessions.transcript(s.id, { fromSeq: 101, limit: 5 });
    assert.deepEqual(
      page.map((m) => m.seq),
      [101, 102, 103, 104, 105],
    );
    // The counts, the last turn and the resume view do not depend on where the messages live.
    const loaded = await again.sessions.load(s.id);
    assert.deepEqual([loaded.lastSeq, loaded.lastTurn, loaded.tail.length], [turns * 2, turns, turns * 2]);
    assert.equal(again.sessions.get(s.id).messageCount, turns * 2);
    const next = await again.sessions.appendTurn(s.id, bigTurn(turns));
    assert.deepEqual(next, { turn: turns + 1, firstSeq: turns * 2 + 1, lastSeq: turns * 2 + 2 });
    await again.close();
  });

  it('opens the context after a clear without reading the sealed history before it', async () => {
    const store = await open(root);
    const s = await store.sessions.create('long');
    const turns = Math.ceil((SEAL_LIVE_BYTES * 2) / 10_000);
    for (let i = 0; i < turns; i++) await store.sessions.appendTurn(s.id, bigTurn(i));
    await store.sessions.settle();
    await store.sessions.clear(s.id);
    await store.sessions.appendTurn(s.id, bigTurn(turns));
    await store.close();
    // Take the sealed history away for a moment: opening the context must not need it.
    const aside = tempRoot();
    const moved = segmentFiles(root);
    assert.ok(moved.length >= 1);
    for (const f of moved) renameSync(join(root, 'sessions', f), join(aside, f));
    const again = await open(root);
    try {
      const view = await again.sessions.contextView(s.id);
      assert.deepEqual(texts(view.messages), texts(bigTurn(turns)));
    } finally {
      await again.close();
      for (const f of moved) renameSync(join(aside, f), join(root, 'sessions', f));
      cleanup(aside);
    }
  });

  it('deletes a session with its segments, even when the delete was cut short by a crash', async () => {
    const store = await open(root);
    const s = await store.sessions.create('long');
    for (let i = 0; i < Math.ceil((SEAL_LIVE_BYTES * 2) / 10_000); i++) await store.sessions.appendTurn(s.id, bigTurn(i));
    await store.sessions.settle();
    const segments = segmentFiles(root);
    assert.ok(segments.length >= 1);
    const saved = segments.map((f) => [f, readFileSync(join(root, 'sessions', f))] as const);
    await store.sessions.delete(s.id);
    await store.close();
    for (const f of segments) assert.ok(!existsSync(join(root, 'sessions', f)), `${f} was left behind`);
    // The crash: the delete was recorded but its segment files were still on disk.
    for (const [f, bytes] of saved) writeFileSync(join(root, 'sessions', f), bytes);
    const again = await open(root);
    assert.deepEqual(again.sessions.list(), []);
    await again.close();
    assert.deepEqual(segmentFiles(root), [], 'the segments of the deleted session are removed at the next start');
  });
});
