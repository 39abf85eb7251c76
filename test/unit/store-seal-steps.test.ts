import { strict as assert } from 'node:assert';
import { cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import type { Message } from '../../src/providers/types';
import { RECLAIM_STEP_PAGES } from '../../src/store/db-space';
import { SEAL_BATCH_BYTES, SEAL_BATCH_ROWS } from '../../src/store/segments';
import { loadSqlJs } from '../../src/store/sqljs';
import { nodeFs, type StoreFs } from '../../src/store/store-fs';
import { assistant, cleanup, open, tempRoot, texts, user, WASM_PATH } from '../fixtures/store/helpers';

/** A turn of about 1.4 KB. */
function smallTurn(i: number): Message[] {
  return [
    user(`question ${i} ${'q'.repeat(600)}`, 1_700_000_000_000 + i),
    assistant(`answer ${i} ${'a'.repeat(600)}`, 1_700_000_000_000 + i),
  ];
}

const TURNS = 700;
/** Small limits, so reopening the session seals most of it (several batches) in one go. */
const SEAL_LIMITS = { sealLiveBytes: 100_000, keepLiveMessages: 20 };

/** Writes a session of `TURNS` turns (never sealed while written) with a compaction whose snapshot carries counts. */
async function buildUnsealed(root: string): Promise<string> {
  const store = await open(root, { sealLiveBytes: 1e12 });
  const s = await store.sessions.create('long');
  for (let i = 0; i < TURNS; i++) {
    if (i === TURNS - 10) {
      const kept = smallTurn(i - 1);
      await store.sessions.recordCompaction(s.id, {
        beforeTokens: 9000,
        afterTokens: 900,
        beforeMessages: i * 2,
        afterMessages: kept.length,
        strategies: ['summary'],
        snapshot: {
          messages: kept,
          counts: kept.map((m, k) => ({ hash: `snap${k}`, family: 'o200k', tokens: 300 + k, exact: true })),
          throughSeq: i * 2,
        },
      });
    }
    await store.sessions.appendTurn(s.id, smallTurn(i), {
      tokens: [i, i + 1],
      contentHashes: [`a${i}`, `b${i}`],
      tokenFamily: 'o200k',
      tokensExact: [true, true],
    });
  }
  await store.close();
  return s.id;
}

/**
 * Calls `onTick` once per event-loop turn (setImmediate chain) until stopped, with every sql.js
 * database the store has used (found by wrapping `Database.prototype.exec`) and the number of rows
 * sql.js statements stepped through since the last turn.
 */
async function everyTurn(onTick: (dbs: Set<Database>, stepped: number) => void): Promise<() => void> {
  const SQL = await loadSqlJs(WASM_PATH);
  const dbs = new Set<Database>();
  const proto = SQL.Database.prototype as { exec: (this: Database, ...args: Parameters<Database['exec']>) => ReturnType<Database['exec']> };
  const exec = proto.exec;
  // sql.js does not export its Statement class: reach its prototype through a statement.
  const probe = new SQL.Database();
  const statement = probe.prepare('SELECT 1');
  const Statement = Object.getPrototypeOf(statement) as { step: (this: unknown) => boolean };
  statement.free();
  probe.close();
  const step = Statement.step;
  let stepped = 0;
  proto.exec = function (this: Database, ...args: Parameters<Database['exec']>) {
    dbs.add(this);
    return exec.apply(this, args);
  };
  Statement.step = function (this: unknown) {
    stepped++;
    return step.apply(this);
  };
  let running = true;
  const tick = () => {
    if (!running) return;
    onTick(dbs, stepped);
    stepped = 0;
    setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    running = false;
    proto.exec = exec;
    Statement.step = step;
  };
}

/** The live messages table's row count and bytes, and the file's pages, of the session database (undefined for others). */
function shape(db: Database): { rows: number; bytes: number; pages: number } | undefined {
  try {
    const r = db.exec('SELECT COUNT(*), COALESCE(SUM(bytes), 0), (SELECT page_count FROM pragma_page_count()) FROM messages')[0].values[0];
    return { rows: Number(r[0]), bytes: Number(r[1]), pages: Number(r[2]) };
  } catch {
    return undefined; // the index database, or a closed one
  }
}

describe('store: a seal in bounded steps', function () {
  this.timeout(300_000);
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('reads, drops and gives back space a bounded batch per event-loop turn', async () => {
    const id = await buildUnsealed(root);
    const store = await open(root, SEAL_LIMITS);
    const last = new Map<Database, { rows: number; bytes: number; pages: number }>();
    const worst = { rows: 0, bytes: 0, pages: 0, stepped: 0, turnsWithWork: 0 };
    const stop = await everyTurn((dbs, stepped) => {
      worst.stepped = Math.max(worst.stepped, stepped);
      for (const db of dbs) {
        const now = shape(db);
        if (!now) continue;
        const before = last.get(db);
        last.set(db, now);
        if (!before) continue;
        const drop = { rows: before.rows - now.rows, bytes: before.bytes - now.bytes, pages: before.pages - now.pages };
        if (drop.rows > 0 || drop.pages > 0) worst.turnsWithWork++;
        worst.rows = Math.max(worst.rows, drop.rows);
        worst.bytes = Math.max(worst.bytes, drop.bytes);
        worst.pages = Math.max(worst.pages, drop.pages);
      }
    });
    try {
      await store.sessions.load(id); // opening it starts the seal
      await store.sessions.settle();
      await store.flush();
    } finally {
      stop();
    }
    const live = [...last.values()][0];
    assert.ok(live && live.rows < 100, `the seal ran: ${live?.rows} rows left live`);
    const sealed = TURNS * 2 - live.rows;
    // Without steps, one turn dropped every sealed row and one VACUUM gave every page back.
    assert.ok(worst.rows <= SEAL_BATCH_ROWS, `one turn dropped ${worst.rows} of ${sealed} rows`);
    assert.ok(worst.bytes <= SEAL_BATCH_BYTES, `one turn dropped ${worst.bytes} bytes`);
    assert.ok(worst.pages <= RECLAIM_STEP_PAGES, `one turn gave back ${worst.pages} pages`);
    // One batch, plus the few rows other work read in the same turn (opening the session, its view).
    assert.ok(worst.stepped <= 2 * SEAL_BATCH_ROWS, `one turn stepped through ${worst.stepped} of ${sealed} rows`);
    assert.ok(worst.turnsWithWork >= Math.ceil(sealed / SEAL_BATCH_ROWS), `${worst.turnsWithWork} turns did the work`);
    const all = await store.sessions.transcript(id);
    assert.deepEqual(
      all.map((m) => m.seq),
      all.map((_, i) => i + 1),
    );
    await store.close();
  });

  it('writes a segment file a batch at a time, never as one string built on the host thread', async () => {
    const id = await buildUnsealed(root);
    // Every write into a segment file, by size: the store hands the file to the disk through this seam.
    const writes: number[] = [];
    const fs: StoreFs = {
      async open(path, flags) {
        const h = await nodeFs.open(path, flags);
        if (!path.includes('.seg-')) return h;
        return {
          write: (...args: Parameters<typeof h.write>) => h.write(...args),
          read: (...args: Parameters<typeof h.read>) => h.read(...args),
          writeFile: (data: Uint8Array | string) => {
            writes.push(Buffer.byteLength(data));
            return h.writeFile(data);
          },
          sync: () => h.sync(),
          datasync: () => h.datasync(),
          truncate: (len?: number) => h.truncate(len),
          stat: () => h.stat(),
          close: () => h.close(),
        };
      },
    };
    const store = await open(root, { ...SEAL_LIMITS, fs });
    await store.sessions.load(id); // opening it starts the seal
    await store.sessions.settle();
    await store.close();
    const segmentBytes = readdirSync(join(root, 'sessions'))
      .filter((f) => f.includes('.seg-'))
      .map((f) => statSync(join(root, 'sessions', f)).size);
    assert.ok(segmentBytes.length > 0 && Math.max(...segmentBytes) > 2 * SEAL_BATCH_BYTES, `segments of ${segmentBytes.join(', ')} bytes`);
    // A batch is at most SEAL_BATCH_BYTES of messages; its rows' other columns add a little.
    assert.ok(Math.max(...writes) <= 1.5 * SEAL_BATCH_BYTES, `one write of ${Math.max(...writes)} bytes`);
    assert.equal(
      writes.reduce((a, b) => a + b, 0),
      segmentBytes.reduce((a, b) => a + b, 0),
    );
  });

  it('loses nothing, duplicates nothing and keeps the snapshot counts when a seal is cut short at any step', async () => {
    const id = await buildUnsealed(root);
    const expected = texts(Array.from({ length: TURNS }, (_, i) => smallTurn(i)).flat());
    const copies: string[] = [];
    const copiesDir = tempRoot('headroom-seal-copies-');
    const store = await open(root, SEAL_LIMITS);
    // What a crash at this instant leaves on disk: every file as it is now (the lock is the dead window's),
    // copied whenever a file changed since the last copy.
    let seen = '';
    const stop = await everyTurn(() => {
      const dir = join(root, 'sessions');
      const to = join(copiesDir, String(copies.length));
      try {
        const state = readdirSync(dir)
          .map((f) => `${f}:${statSync(join(dir, f)).size}:${statSync(join(dir, f)).mtimeMs}`)
          .join('|');
        if (state === seen) return;
        mkdirSync(to);
        cpSync(dir, join(to, 'sessions'), { recursive: true });
        for (const f of readdirSync(root))
          if (f !== 'sessions' && f !== 'store.lock') cpSync(join(root, f), join(to, f), { recursive: true });
        seen = state;
        copies.push(to);
      } catch (err) {
        // A temp file renamed away between listing and copying: take this state at the next turn.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        cleanup(to);
      }
    });
    try {
      await store.sessions.load(id);
      await store.sessions.settle();
      await store.flush();
    } finally {
      stop();
    }
    await store.close();
    try {
      assert.ok(copies.length >= 4, `${copies.length} states on disk during the seal`);
      const segmentsAt = copies.map((c) => readdirSync(join(c, 'sessions')).filter((f) => f.includes('.seg-')).length);
      assert.ok(segmentsAt.includes(0) && segmentsAt.some((n) => n > 0), `copies before and after the segment: ${segmentsAt.join(',')}`);
      for (const [k, copy] of copies.entries()) {
        for (let reopen = 0; reopen < 2; reopen++) {
          const again = await open(copy, SEAL_LIMITS);
          const all = await again.sessions.transcript(id);
          assert.deepEqual(
            all.map((m) => m.seq),
            expected.map((_, i) => i + 1),
            `copy ${k}, open ${reopen}: every message once, in order`,
          );
          assert.deepEqual(texts(all.map((m) => m.message)), expected, `copy ${k}, open ${reopen}`);
          assert.equal(again.sessions.get(id).messageCount, expected.length);
          const view = await again.sessions.contextView(id);
          const counted = new Set(view.counts.map((c) => c.message));
          assert.ok(view.snapshot, `copy ${k}: the compaction's snapshot is the resume view`);
          assert.deepEqual(
            view.messages.filter((m) => !counted.has(m)).length,
            0,
            `copy ${k}, open ${reopen}: every message of the reopened view has its stored count`,
          );
          assert.ok(view.counts.some((c) => c.hash === 'snap0' && c.tokens === 300));
          await again.sessions.settle(); // the first open finishes the cut-short seal; the second reads its result
          await again.close();
        }
      }
    } finally {
      cleanup(copiesDir);
    }
  });

  it('converts a database file written without incremental vacuum once, when it is opened for writing', async () => {
    let store = await open(root);
    const s = await store.sessions.create('old');
    await store.sessions.appendTurn(s.id, smallTurn(1));
    await store.close();
    const SQL = await loadSqlJs(WASM_PATH);
    const file = join(root, 'sessions', `${s.id}.sqlite`);
    const autoVacuum = () => {
      const db = new SQL.Database(readFileSync(file));
      try {
        return Number(db.exec('PRAGMA auto_vacuum')[0].values[0][0]);
      } finally {
        db.close();
      }
    };
    assert.equal(autoVacuum(), 2, 'a new database is created with incremental vacuum');
    const old = new SQL.Database(readFileSync(file));
    old.exec('PRAGMA auto_vacuum = NONE; VACUUM');
    writeFileSync(file, old.export());
    old.close();
    assert.equal(autoVacuum(), 0);
    store = await open(root);
    assert.deepEqual(texts((await store.sessions.transcript(s.id)).map((m) => m.message)), texts(smallTurn(1)));
    await store.close();
    assert.equal(autoVacuum(), 2, 'the reopened file was converted and saved');
  });
});
