import type { Database } from 'sql.js';
import { HeadroomError, errorMessage } from '../common/errors';
import type { JournalRecord } from './journal';

/**
 * Changing a sql.js database atomically: a journal record together with the seq it brings the
 * database to (stored in `headroom_meta`, so a replay can skip what the image already holds), and the
 * schema migrations, all or none.
 */

/** Brings a database from version `index` to `index + 1`; run inside a transaction. */
export type Migration = (db: Database) => void;

/** Applies one journaled operation to the database. Throws (any error) for a record it cannot apply. */
export type Applier = (db: Database, record: JournalRecord) => void;

/** The schema version the database is at (`PRAGMA user_version`). */
export function userVersion(db: Database): number {
  return Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
}

/** The seq of the last journal record the database holds; 0 for a database that never had one. */
export function metaSeq(db: Database): number {
  const has = db.exec("SELECT 1 FROM sqlite_master WHERE type='table' AND name='headroom_meta'");
  if (!has.length) return 0;
  const r = db.exec("SELECT value FROM headroom_meta WHERE key='journal_seq'");
  return Number(r[0]?.values[0]?.[0] ?? 0);
}

/** Runs the migrations from version `from` to the latest in one transaction; throws `storage`, changing nothing, if one fails. */
export function migrate(db: Database, migrations: readonly Migration[], from: number): void {
  db.exec('BEGIN');
  try {
    db.exec('CREATE TABLE IF NOT EXISTS headroom_meta (key TEXT PRIMARY KEY, value)');
    for (let v = from; v < migrations.length; v++) migrations[v](db);
    db.exec(`PRAGMA user_version = ${migrations.length}`);
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw new HeadroomError('storage', `Upgrading the database schema from version ${from} failed: ${errorMessage(err)}`, { cause: err });
  }
}

/** Applies `record` and its seq atomically; with `dryRun` only checks that it applies (rolled back either way). */
export function applyInTransaction(db: Database, apply: Applier, record: JournalRecord, opts: { dryRun?: boolean } = {}): void {
  db.exec('SAVEPOINT rec');
  try {
    apply(db, record);
    db.run("INSERT INTO headroom_meta (key, value) VALUES ('journal_seq', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [
      record.seq,
    ]);
  } catch (err) {
    db.exec('ROLLBACK TO rec');
    db.exec('RELEASE rec');
    throw err;
  }
  if (opts.dryRun) db.exec('ROLLBACK TO rec');
  db.exec('RELEASE rec');
}
