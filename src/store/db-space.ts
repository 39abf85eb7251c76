import type { Database } from 'sql.js';

/**
 * How a sql.js database gives space back without blocking the extension host.
 *
 * A plain `VACUUM` rebuilds the whole file in one synchronous call (hundreds of ms for a few MB in
 * sql.js), so databases use `auto_vacuum = INCREMENTAL` instead: free pages are handed back a bounded
 * number at a time with `PRAGMA incremental_vacuum(N)`, one step per event-loop turn
 * (https://www.sqlite.org/pragma.html#pragma_incremental_vacuum). The mode can only be chosen before
 * the first table exists, or by one `VACUUM`: a database written before it is converted once, when
 * it is opened for writing (part of that open's cost, never of a later save).
 *
 * The engine's rollback journal is kept in memory (`journal_mode = MEMORY`): the database itself lives
 * in memory and is made durable by our own journal and atomic image (journaled-db.ts), so a journal
 * file in sql.js's in-memory file system buys nothing and costs a file copy on every change that
 * grows it (https://www.sqlite.org/pragma.html#pragma_journal_mode).
 */

/** Pages handed back per step (512 KiB at SQLite's default 4 KiB page): the work bound of one step. */
export const RECLAIM_STEP_PAGES = 128;
/** Below this many pages a database is not worth a step. */
const MIN_PAGES = 64;
const INCREMENTAL = 2;

function pragma(db: Database, name: string): number {
  return Number(db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0] ?? 0);
}

/**
 * Sets the engine up for a database just opened; `writable`: an older file is converted to incremental
 * vacuum. Returns whether the database's contents changed (a converted file is exported again soon).
 */
export function tuneDatabase(db: Database, writable: boolean): boolean {
  db.exec('PRAGMA journal_mode = MEMORY');
  if (!writable || pragma(db, 'auto_vacuum') === INCREMENTAL) return false;
  db.exec(`PRAGMA auto_vacuum = ${INCREMENTAL}`);
  // A database with no table yet takes the mode as it is; an older file needs one rebuild.
  if (pragma(db, 'page_count') === 0) return false;
  db.exec('VACUUM');
  return true;
}

/** True when at least `minFreeShare` of the file is free pages and it is big enough to bother. */
export function worthReclaiming(db: Database, minFreeShare: number): boolean {
  const pages = pragma(db, 'page_count');
  const free = pragma(db, 'freelist_count');
  return pragma(db, 'auto_vacuum') === INCREMENTAL && pages >= MIN_PAGES && free > 0 && free >= pages * minFreeShare;
}

/** Hands back at most `RECLAIM_STEP_PAGES` free pages; returns whether free pages remain. */
export function reclaimStep(db: Database): boolean {
  db.exec(`PRAGMA incremental_vacuum(${RECLAIM_STEP_PAGES})`);
  return pragma(db, 'freelist_count') > 0;
}
