import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JournaledDb, type Migration } from '../../src/store/journaled-db';
import type { StoreProblem } from '../../src/store/problems';
import { loadSqlJs } from '../../src/store/sqljs';
import { cleanup, open, tempRoot, turnMessages, WASM_PATH } from '../fixtures/store/helpers';

const migrations: Migration[] = [(db) => db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)')];

async function openKv(dir: string, problems: StoreProblem[] = [], exportDelayMs = 60_000): Promise<JournaledDb> {
  return JournaledDb.open({
    sql: await loadSqlJs(WASM_PATH),
    path: join(dir, 'kv.sqlite'),
    readOnly: false,
    migrations,
    apply: (db, r) => db.run('INSERT INTO kv (k, v) VALUES (?, ?)', [String(r.k), String(r.v)]),
    onProblem: (p) => problems.push(p),
    exportDelayMs,
    exportMaxWaitMs: exportDelayMs,
  });
}

describe('store atomic writes', () => {
  let dir: string;
  beforeEach(() => (dir = tempRoot()));
  afterEach(() => cleanup(dir));

  it('coalesces a burst of changes into one export and cuts the journal after it', async () => {
    const kv = await openKv(dir);
    await kv.flush(); // the fresh schema
    const base = kv.stats.exports;
    const writes = Array.from({ length: 50 }, (_, i) => kv.commit({ op: 'set', k: `k${i}`, v: `v${i}` }, true));
    await Promise.all(writes);
    assert.equal(kv.stats.exports, base, 'durable writes go to the journal, not to a full export');
    assert.equal(readFileSync(join(dir, 'kv.sqlite.journal'), 'utf8').trim().split('\n').length, 50);
    await kv.flush();
    assert.equal(kv.stats.exports, base + 1);
    assert.equal(readFileSync(join(dir, 'kv.sqlite.journal'), 'utf8'), '', 'the image holds everything, the journal is empty');
    assert.deepEqual(readdirSync(dir).sort(), ['kv.sqlite', 'kv.sqlite.journal'], 'no temp file is left behind');
    await kv.close();
    const again = await openKv(dir);
    assert.equal(again.get('SELECT COUNT(*) AS n FROM kv')?.n, 50);
    await again.close();
  });

  it('never runs two exports of one file at once, however flushes and timers interleave', async () => {
    const kv = await openKv(dir, [], 0);
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      work.push(kv.commit({ op: 'set', k: `k${i}`, v: 'x'.repeat(1000) }, i % 2 === 0));
      if (i % 5 === 0) work.push(kv.flush());
      if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(work);
    await kv.flush();
    assert.ok(kv.stats.exports >= 2);
    assert.equal(kv.stats.maxConcurrent, 1);
    await kv.close();
    const again = await openKv(dir);
    assert.equal(again.get('SELECT COUNT(*) AS n FROM kv')?.n, 40);
    await again.close();
  });

  it('replays a journal idempotently when a crash hit between the export and the journal cut', async () => {
    const problems: StoreProblem[] = [];
    const kv = await openKv(dir, problems);
    for (let i = 0; i < 3; i++) await kv.commit({ op: 'set', k: `k${i}`, v: 'v' }, true);
    const journalBefore = readFileSync(join(dir, 'kv.sqlite.journal'));
    await kv.flush();
    await kv.close();
    writeFileSync(join(dir, 'kv.sqlite.journal'), journalBefore); // as if the cut never happened
    const again = await openKv(dir, problems);
    assert.equal(again.get('SELECT COUNT(*) AS n FROM kv')?.n, 3);
    await again.commit({ op: 'set', k: 'k3', v: 'v' }, true);
    await again.close();
    assert.deepEqual(problems, [], 'already-applied records are skipped, not re-applied');
  });

  it('rejects a change it cannot apply without changing anything', async () => {
    const kv = await openKv(dir);
    await kv.commit({ op: 'set', k: 'a', v: '1' }, true);
    assert.throws(() => kv.commit({ op: 'set', k: 'a', v: '2' }, true), /UNIQUE/);
    assert.throws(() => kv.commit({ op: 'set', seq: 5, k: 'b', v: '2' }, true), /seq/);
    await kv.commit({ op: 'set', k: 'b', v: '3' }, true);
    await kv.close();
    const again = await openKv(dir);
    assert.deepEqual(again.all('SELECT k, v FROM kv ORDER BY k'), [
      { k: 'a', v: '1' },
      { k: 'b', v: '3' },
    ]);
    await again.close();
  });

  it('flushes on demand and on close, removes temp files left by a crash and keeps files it cannot prove are garbage', async () => {
    const store = await open(dir, { exportDelayMs: 60_000, exportMaxWaitMs: 60_000 });
    const s = await store.sessions.create('flush');
    await store.sessions.appendTurn(s.id, turnMessages(0));
    assert.ok(!readdirSync(join(dir, 'sessions')).includes(`${s.id}.sqlite`));
    await store.flush();
    assert.ok(readdirSync(join(dir, 'sessions')).includes(`${s.id}.sqlite`));
    assert.equal(readFileSync(join(dir, 'sessions', `${s.id}.sqlite.journal`), 'utf8'), '');
    await store.sessions.appendTurn(s.id, turnMessages(1));
    await store.close();
    assert.equal(readFileSync(join(dir, 'sessions', `${s.id}.sqlite.journal`), 'utf8'), '', 'close exported the last turn');
    writeFileSync(join(dir, 'sessions', `.${s.id}.sqlite.tmp-123-abcdef01`), 'half an export');
    writeFileSync(join(dir, 'sessions', 'ses_00000000000000ff.sqlite.journal'), '');
    mkdirSync(join(dir, 'results'));
    writeFileSync(join(dir, 'results', `.res_0123456789abcdef.txt.tmp-123-abcdef01`), 'half a result');
    writeFileSync(join(dir, 'results', 'res_0123456789abcdef.txt'), 'a result the index does not know\n');
    const again = await open(dir);
    const left = readdirSync(join(dir, 'sessions'));
    assert.ok(!left.some((f) => f.includes('.tmp-')), 'the temp file of an interrupted export is removed');
    for (const f of [`${s.id}.sqlite`, `${s.id}.sqlite.journal`, 'ses_00000000000000ff.sqlite.journal'])
      assert.ok(left.includes(f), `${f} is kept`);
    assert.deepEqual(readdirSync(join(dir, 'results')), ['res_0123456789abcdef.txt'], 'temp files are removed, unknown results kept');
    // Nothing proves these are garbage (the index may have lost them), so they are listed again.
    assert.deepEqual(
      again.sessions
        .list()
        .map((x) => x.title)
        .sort(),
      ['Recovered session', 'flush'],
    );
    assert.equal(await again.results.read('res_0123456789abcdef'), 'a result the index does not know\n');
    assert.ok(
      again.problems.some((p) => p.kind === 'recovered'),
      JSON.stringify(again.problems),
    );
    assert.equal((await again.sessions.transcript(s.id)).length, 4);
    await again.close();
  });
});
