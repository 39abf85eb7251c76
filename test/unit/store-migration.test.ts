import { strict as assert } from 'node:assert';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { storedCompaction } from '../../src/context/compaction';
import { INDEX_MIGRATIONS, SESSION_MIGRATIONS } from '../../src/store/schema';
import { cleanup, open, tempRoot, texts, turnMessages, WASM_PATH } from '../fixtures/store/helpers';

const FIXTURE = join(__dirname, '../fixtures/store/v1');
const SESSION = 'ses_00000000000000a1';
const RESULT = 'res_00000000000000b1';

async function userVersion(file: string): Promise<number> {
  const SQL = await initSqlJs({ locateFile: () => WASM_PATH });
  const db = new SQL.Database(readFileSync(file));
  try {
    return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
  } finally {
    db.close();
  }
}

describe('store migration from schema v1', () => {
  let root: string;
  beforeEach(() => {
    root = tempRoot();
    cpSync(FIXTURE, root, { recursive: true });
  });
  afterEach(() => cleanup(root));

  it('starts from version 1 files', async () => {
    assert.equal(await userVersion(join(root, 'index.sqlite')), 1);
    assert.equal(await userVersion(join(root, 'sessions', `${SESSION}.sqlite`)), 1);
  });

  it('opens v1 files with their data intact and upgrades them on disk', async () => {
    const store = await open(root);
    assert.deepEqual(store.problems, []);
    const [s] = store.sessions.list();
    assert.equal(s.id, SESSION);
    assert.equal(s.title, 'Old session');
    assert.equal(s.messageCount, 4);
    assert.ok(s.bytes >= store.results.getMeta(RESULT).byteSize, 'bytes now include stored results');

    const loaded = await store.sessions.load(SESSION);
    assert.equal(loaded.snapshot?.kind, 'compaction');
    assert.equal(loaded.snapshot?.messageCount, 1);
    assert.deepEqual(texts(loaded.snapshot.messages), ['Summary of the old turns']);
    assert.deepEqual(texts(loaded.tail.map((m) => m.message)), ['old question 1', 'old answer 1']);
    assert.deepEqual(loaded.marker, { clearedAt: 1_700_000_001_500, afterSeq: 1 });
    assert.deepEqual(loaded.pins, []);
    const [c] = await store.sessions.listCompactions(SESSION);
    assert.deepEqual(c.strategies, ['summary']);
    assert.equal(c.firstKeptSeq, 3);
    // Recorded before compactions stored what left the context: it opens as a card without that view.
    assert.equal(c.report, null);
    assert.equal(storedCompaction(c).view, undefined);
    assert.equal(storedCompaction(c).summary, c.summary);

    // A v1 result kept its content inline; it still pages.
    const page = await store.results.page(RESULT, { grep: 'line 1\\d', limit: 57 });
    assert.equal(page.text, '10: legacy line 10\n11: legacy line 11\n12: legacy line 12');
    assert.deepEqual([page.totalMatches, page.nextOffset], [10, 3]);
    assert.equal((await store.results.page(RESULT, { offset: 0, limit: 14 })).text, 'legacy line 1\n', 'an inline result pages by bytes');
    assert.equal(store.results.getMeta(RESULT).lineCount, 30);

    // New features work on the upgraded files.
    await store.sessions.appendTurn(SESSION, turnMessages(2), { contentHashes: ['h1', 'h2'] });
    await store.sessions.pin(SESSION, 'keep the old API');
    await store.calibration.set('claude-old', 1.07, 3);
    await store.close();

    assert.equal(await userVersion(join(root, 'index.sqlite')), INDEX_MIGRATIONS.length);
    assert.equal(await userVersion(join(root, 'sessions', `${SESSION}.sqlite`)), SESSION_MIGRATIONS.length);
    const again = await open(root);
    const transcript = await again.sessions.transcript(SESSION);
    assert.equal(transcript.length, 6);
    assert.equal(transcript[4].contentHash, 'h1');
    assert.equal(transcript[0].tokens, 7);
    assert.equal((await again.sessions.pins(SESSION))[0].text, 'keep the old API');
    assert.equal(again.calibration.get('claude-old')?.factor, 1.07);
    await again.close();
  });
});
