import { strict as assert } from 'node:assert';
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { readFileSync } from 'node:fs';
import { SESSION_MIGRATIONS } from '../../src/store/schema';
import { cleanup, open, tempRoot, texts, WASM_PATH } from '../fixtures/store/helpers';
import { V6_MESSAGES, V6_SESSION_ID as SESSION, V6_SNAPSHOTS } from '../fixtures/store/make-v6-fixture';

const FIXTURE = join(__dirname, '../fixtures/store/v6');
const dbFile = (root: string) => join(root, 'sessions', `${SESSION}.sqlite`);

async function rows(file: string, sql: string): Promise<unknown[][]> {
  const SQL = await initSqlJs({ locateFile: () => WASM_PATH });
  const db = new SQL.Database(readFileSync(file));
  try {
    return db.exec(sql)[0]?.values ?? [];
  } finally {
    db.close();
  }
}

describe('store migration from schema v6: snapshots leave the session database', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => {
    root = tempRoot();
    cpSync(FIXTURE, root, { recursive: true });
  });
  afterEach(() => cleanup(root));

  it('opens a v6 session whose compaction snapshots are in the database, then moves them to files and shrinks it', async () => {
    assert.deepEqual(await rows(dbFile(root), 'PRAGMA user_version'), [[6]]);
    const before = statSync(dbFile(root)).size;
    const store = await open(root);
    assert.deepEqual(store.problems, []);
    const first = await store.sessions.load(SESSION);
    assert.equal(first.snapshot?.throughSeq, V6_SNAPSHOTS * 6);
    assert.match(texts(first.snapshot?.messages ?? [])[0], /^Summary 39:/);
    const oldest = (await store.sessions.listSnapshots(SESSION)).at(-1)!;
    const oldestBefore = await store.sessions.getSnapshot(SESSION, oldest.id);
    await store.sessions.settle();
    await store.close();

    // Every snapshot now has its file and an empty row; the database lost what they weighed.
    assert.deepEqual(await rows(dbFile(root), 'PRAGMA user_version'), [[SESSION_MIGRATIONS.length]]);
    assert.deepEqual(await rows(dbFile(root), "SELECT COUNT(*) FROM snapshots WHERE file IS NULL OR messages <> ''"), [[0]]);
    const files = readdirSync(join(root, 'sessions')).filter((f) => f.includes('.snap-'));
    assert.equal(files.length, V6_SNAPSHOTS);
    const after = statSync(dbFile(root)).size;
    assert.ok(after < before * 0.6, `the database went from ${before} to ${after} bytes`);

    // And everything reads back the same.
    const again = await open(root);
    const loaded = await again.sessions.load(SESSION);
    assert.deepEqual(loaded.snapshot?.messages, first.snapshot?.messages);
    assert.deepEqual((await again.sessions.getSnapshot(SESSION, oldest.id)).messages, oldestBefore.messages);
    assert.equal((await again.sessions.transcript(SESSION)).length, V6_MESSAGES);
    assert.equal((await again.sessions.listCompactions(SESSION)).length, V6_SNAPSHOTS);
    const undone = await again.sessions.undoLastCompaction(SESSION);
    assert.match(texts(undone.snapshot?.messages ?? [])[0], /^Summary 38:/);
    await again.close();
  });
});
