import { strict as assert } from 'node:assert';
import { appendFileSync, cpSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreProblem } from '../../src/store';
import { cleanup, open, tempRoot, texts, turnMessages } from '../fixtures/store/helpers';

/** A store with one session of `turns` turns, closed (so everything is exported). */
async function seeded(root: string, turns = 30): Promise<string> {
  const store = await open(root);
  const s = await store.sessions.create('seeded');
  for (let i = 0; i < turns; i++) await store.sessions.appendTurn(s.id, turnMessages(i));
  await store.close();
  return s.id;
}

const damages: Record<string, (file: string) => void> = {
  'non-SQLite': (f) => writeFileSync(f, 'this is not a database, just some text\n'.repeat(100)),
  truncated: (f) => truncateSync(f, Math.floor(readFileSync(f).length / 2) + 100),
  'zero-byte': (f) => writeFileSync(f, ''),
  'garbled pages': (f) => {
    const b = readFileSync(f);
    for (let i = 100; i < b.length; i += 7) b[i] ^= 0xff;
    writeFileSync(f, b);
  },
};

describe('store corruption', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  for (const [name, damage] of Object.entries(damages)) {
    it(`quarantines a ${name} index file, reports it and starts fresh`, async () => {
      await seeded(root);
      const file = join(root, 'index.sqlite');
      damage(file);
      const damaged = readFileSync(file);
      const store = await open(root);
      try {
        const problem = store.problems.find((p) => p.kind === 'corrupt' && p.file === file);
        assert.ok(problem, `expected a corrupt-file problem, got ${JSON.stringify(store.problems)}`);
        assert.match(problem.message, /moved aside/);
        assert.ok(problem.movedTo && /index\.sqlite\.corrupt-\d{4}-\d\d-\d\dT/.test(problem.movedTo));
        assert.deepEqual(readFileSync(problem.movedTo), damaged, 'the damaged file is kept byte for byte');
        // The session files survive: they are listed again, with their transcript.
        const [recovered] = store.sessions.list();
        assert.equal(recovered.title, 'Recovered session');
        assert.equal((await store.sessions.transcript(recovered.id)).length, 60);
        const s = await store.sessions.create('after');
        await store.sessions.appendTurn(s.id, turnMessages(0));
      } finally {
        await store.close();
      }
      const again = await open(root);
      assert.deepEqual(again.problems, [], 'the fresh file opens cleanly');
      assert.deepEqual(
        again.sessions
          .list()
          .map((s) => s.title)
          .sort(),
        ['Recovered session', 'after'],
      );
      assert.equal(again.sessions.list().find((s) => s.title === 'Recovered session')?.messageCount, 60);
      await again.close();
    });

    it(`quarantines a ${name} session file when the session is opened`, async () => {
      const id = await seeded(root);
      const file = join(root, 'sessions', `${id}.sqlite`);
      damage(file);
      const store = await open(root);
      const seen: StoreProblem[] = [];
      store.onDidReportProblem((p) => seen.push(p));
      try {
        const loaded = await store.sessions.load(id);
        assert.equal(loaded.tail.length, 0);
        const problem = seen.find((p) => p.kind === 'corrupt' && p.file === file);
        assert.ok(problem, `expected a corrupt-file event, got ${JSON.stringify(seen)}`);
        assert.ok(readdirSync(join(root, 'sessions')).some((f) => f.startsWith(`${id}.sqlite.corrupt-`)));
        await store.sessions.appendTurn(id, turnMessages(0));
        assert.equal((await store.sessions.transcript(id)).length, 2);
      } finally {
        await store.close();
      }
    });
  }

  it('ignores a torn last journal line with a warning and keeps the lines before it', async () => {
    const store = await open(root, { exportDelayMs: 60_000, exportMaxWaitMs: 60_000 });
    const s = await store.sessions.create('torn');
    for (let i = 0; i < 5; i++) await store.sessions.appendTurn(s.id, turnMessages(i));
    // Simulate a crash: copy the files as they are now, before any export, into a second folder.
    const copy = tempRoot();
    try {
      cpSync(root, copy, { recursive: true });
      await store.close();
      const copied = join(copy, 'sessions', `${s.id}.sqlite.journal`);
      appendFileSync(copied, '{"seq":99,"op":"turn","sessionId":"' + s.id + '","tu');
      // The crashed writer's lock names this (live) process; a real crash leaves a dead pid instead.
      rmSync(join(copy, 'store.lock'));
      const reopened = await open(copy);
      const seen: StoreProblem[] = [];
      reopened.onDidReportProblem((p) => seen.push(p));
      const transcript = await reopened.sessions.transcript(s.id);
      assert.deepEqual(texts(transcript.map((m) => m.message)), texts([0, 1, 2, 3, 4].flatMap(turnMessages)));
      assert.ok(
        seen.some((p) => p.kind === 'journal' && /cut off/.test(p.message)),
        JSON.stringify(seen),
      );
      await reopened.sessions.appendTurn(s.id, turnMessages(5));
      await reopened.close();
      const third = await open(copy);
      assert.equal((await third.sessions.transcript(s.id)).length, 12, 'the turn after the torn line is kept');
      await third.close();
    } finally {
      cleanup(copy);
    }
  });
});
