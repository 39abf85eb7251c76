import { strict as assert } from 'node:assert';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, open, tempRoot, texts, turnMessages } from '../fixtures/store/helpers';

/** Every file under `sessions/` and `results/`. */
function dataFiles(root: string): string[] {
  return ['sessions', 'results']
    .flatMap((d) => (existsSync(join(root, d)) ? readdirSync(join(root, d)).map((f) => `${d}/${f}`) : []))
    .sort();
}

/** A store with two sessions of three turns each and one stored result per session, closed. */
async function seeded(root: string): Promise<{ ids: string[]; refs: string[] }> {
  const store = await open(root);
  const ids: string[] = [];
  const refs: string[] = [];
  for (const title of ['first', 'second']) {
    const s = await store.sessions.create(title);
    for (let i = 0; i < 3; i++) await store.sessions.appendTurn(s.id, turnMessages(i));
    refs.push((await store.results.put(s.id, 'run_command', `output of ${title}\n`.repeat(100))).refId);
    ids.push(s.id);
  }
  await store.close();
  return { ids, refs };
}

describe('store without a trustworthy index', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('rebuilds a missing index from the session files and deletes nothing', async () => {
    const { ids, refs } = await seeded(root);
    const files = dataFiles(root);
    rmSync(join(root, 'index.sqlite'));
    rmSync(join(root, 'index.sqlite.journal'), { force: true });
    const store = await open(root);
    try {
      for (const f of files) assert.ok(existsSync(join(root, f)), `${f} was deleted`);
      assert.deepEqual(
        store.sessions
          .list()
          .map((s) => s.id)
          .sort(),
        [...ids].sort(),
      );
      for (const id of ids) {
        assert.equal(store.sessions.get(id).title, 'Recovered session');
        assert.equal(store.sessions.get(id).messageCount, 6);
        assert.deepEqual(texts((await store.sessions.transcript(id)).map((m) => m.message)), texts([0, 1, 2].flatMap(turnMessages)));
      }
      for (const ref of refs) assert.match(await store.results.read(ref), /^output of (first|second)\n/);
      assert.ok(
        store.problems.some((p) => p.kind === 'recovered' && /2 session\(s\) and 2 stored result\(s\)/.test(p.message)),
        JSON.stringify(store.problems),
      );
    } finally {
      await store.close();
    }
    const again = await open(root);
    assert.deepEqual(again.problems, [], 'the rebuilt index opens cleanly');
    assert.equal(again.sessions.list().length, 2);
    await again.close();
    for (const f of files) assert.ok(existsSync(join(root, f)), `${f} was deleted on the second open`);
  });

  it('keeps a session whose session_create line in the index journal was damaged', async () => {
    // Long export delays: everything is still only in the journals when the "crash" copy is taken.
    const store = await open(root, { exportDelayMs: 60_000, exportMaxWaitMs: 60_000 });
    const kept = await store.sessions.create('kept');
    const damaged = await store.sessions.create('damaged');
    for (let i = 0; i < 3; i++) await store.sessions.appendTurn(damaged.id, turnMessages(i));
    const ref = (await store.results.put(damaged.id, 'run_command', 'precious output\n')).refId;
    const copy = tempRoot();
    try {
      cpSync(root, copy, { recursive: true });
      await store.close();
      rmSync(join(copy, 'store.lock')); // the "crashed" writer was this live process
      const journal = join(copy, 'index.sqlite.journal');
      const lines = readFileSync(journal, 'utf8').split('\n');
      const i = lines.findIndex((l) => l.includes('"session_create"') && l.includes(damaged.id));
      assert.ok(i >= 0, 'the session_create line is in the journal');
      lines[i] = lines[i].replace('"op"', '"o\u0000p"').slice(0, -3) + '#!?'; // same length, no longer a record
      writeFileSync(journal, lines.join('\n'));
      const filesBefore = dataFiles(copy);
      const reopened = await open(copy);
      try {
        for (const f of filesBefore) assert.ok(existsSync(join(copy, f)), `${f} was deleted`);
        assert.ok(
          reopened.problems.some((p) => p.kind === 'journal'),
          'the damaged line is reported',
        );
        assert.equal(reopened.sessions.get(kept.id).title, 'kept');
        assert.equal(reopened.sessions.get(damaged.id).title, 'Recovered session');
        assert.equal((await reopened.sessions.transcript(damaged.id)).length, 6);
        assert.equal(await reopened.results.read(ref), 'precious output\n');
      } finally {
        await reopened.close();
      }
    } finally {
      cleanup(copy);
    }
  });

  it('still removes the files of a deleted session whose removal a crash cut short', async () => {
    const { ids, refs } = await seeded(root);
    const saved = new Map(dataFiles(root).map((f) => [f, readFileSync(join(root, f))]));
    const store = await open(root);
    await store.sessions.delete(ids[0]);
    await store.close();
    // The crash: the delete was recorded, but its files were still on disk.
    for (const [f, bytes] of saved) if (!existsSync(join(root, f))) writeFileSync(join(root, f), bytes);
    assert.ok(existsSync(join(root, 'sessions', `${ids[0]}.sqlite`)));
    const again = await open(root);
    try {
      assert.deepEqual(
        again.sessions.list().map((s) => s.id),
        [ids[1]],
        'the deleted session does not come back',
      );
      assert.ok(!dataFiles(root).some((f) => f.includes(ids[0]) || f.includes(refs[0])), `left: ${dataFiles(root).join(', ')}`);
      assert.equal((await again.sessions.transcript(ids[1])).length, 6);
      assert.ok(existsSync(join(root, 'results', `${refs[1]}.txt`)));
    } finally {
      await again.close();
    }
  });
});
