import { strict as assert } from 'node:assert';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { INDEX_MIGRATIONS, SESSION_MIGRATIONS } from '../../src/store/schema';
import { cleanup, open, tempRoot, texts, turnMessages, WASM_PATH } from '../fixtures/store/helpers';

/** Written by Headroom 0.1.0's own store (see make-v010-fixture.ts): images plus unexported journal records. */
const FIXTURE = join(__dirname, '../fixtures/store/v0.1.0');
const MAIN = 'ses_aac7d27f4026050b';
const JOURNAL_ONLY = 'ses_240d0831eefe4c84';
const RESULT = 'res_70e9d64716057f16';

async function userVersion(file: string): Promise<number> {
  const SQL = await initSqlJs({ locateFile: () => WASM_PATH });
  const db = new SQL.Database(readFileSync(file));
  try {
    return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
  } finally {
    db.close();
  }
}

describe('store migration from 0.1.0', () => {
  let root: string;
  beforeEach(() => {
    root = tempRoot();
    cpSync(FIXTURE, root, { recursive: true });
  });
  afterEach(() => cleanup(root));

  it('opens a 0.1.0 store with everything in it, journals replayed, and upgrades it on disk', async () => {
    const store = await open(root);
    assert.deepEqual(store.problems, []);
    assert.deepEqual(
      store.sessions
        .list()
        .map((s) => s.title)
        .sort(),
      ['Journal only', 'Written by 0.1.0'],
    );
    const transcript = await store.sessions.transcript(MAIN);
    assert.equal(transcript.length, 12);
    assert.deepEqual(texts(transcript.slice(0, 8).map((m) => m.message)), texts([0, 1, 2, 3].flatMap(turnMessages)));
    assert.deepEqual(texts(transcript.slice(10).map((m) => m.message)), texts(turnMessages(5)), 'the journal-only turn is replayed');
    assert.deepEqual([transcript[0].tokens, transcript[1].tokens, transcript[0].contentHash], [11, 22, 'h0a']);
    assert.equal(transcript[0].tokenFamily, null, '0.1.0 did not store the family');
    const loaded = await store.sessions.load(MAIN);
    assert.equal(loaded.snapshot?.kind, 'compaction');
    assert.equal(loaded.snapshot?.summary, 'turns 0-3 summarized');
    assert.deepEqual(texts(loaded.tail.map((m) => m.message)), texts(turnMessages(5)));
    assert.deepEqual([loaded.lastSeq, loaded.lastTurn], [12, 6]);
    assert.equal(loaded.pins[0].text, 'keep the 0.1.0 API');
    assert.equal(store.calibration.get('claude-old')?.factor, 1.05);
    assert.equal((await store.results.page(RESULT, { grep: '^old output 40$' })).text, '40: old output 40');
    const whole = await store.results.read(RESULT);
    const at = Buffer.byteLength(whole.slice(0, whole.indexOf('old output 40')));
    assert.equal((await store.results.page(RESULT, { offset: at, limit: 13 })).text, 'old output 40', 'a 0.1.0 result file pages by bytes');
    assert.equal((await store.sessions.transcript(JOURNAL_ONLY)).length, 2);

    const added = await store.sessions.appendTurn(MAIN, turnMessages(6), {
      tokens: [5, 6],
      contentHashes: ['x', 'y'],
      tokenFamily: 'o200k',
      tokensExact: [true, true],
    });
    assert.deepEqual(added, { turn: 7, firstSeq: 13, lastSeq: 14 });
    await store.close();

    assert.equal(await userVersion(join(root, 'index.sqlite')), INDEX_MIGRATIONS.length);
    assert.equal(await userVersion(join(root, 'sessions', `${MAIN}.sqlite`)), SESSION_MIGRATIONS.length);
    assert.ok(existsSync(join(root, 'results', `${RESULT}.txt`)));
    const again = await open(root);
    assert.deepEqual(again.problems, []);
    const view = await again.sessions.contextView(MAIN);
    assert.deepEqual(
      view.counts.slice(-2).map(({ message: _m, ...c }) => c),
      [
        { hash: 'x', family: 'o200k', tokens: 5, exact: true },
        { hash: 'y', family: 'o200k', tokens: 6, exact: true },
      ],
    );
    assert.equal(again.sessions.get(MAIN).messageCount, 14);
    await again.close();
  });
});
