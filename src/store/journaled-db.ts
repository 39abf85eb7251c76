import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { basename } from 'node:path';
import { z } from 'zod';
import { HeadroomError, errorMessage } from '../common/errors';
import { writeFileAtomic } from './atomic-file';
import { applyInTransaction, metaSeq, type Applier, type Migration } from './db-apply';
import { openImage } from './db-image';
import { reclaimStep, worthReclaiming } from './db-space';
import { Journal, readJournal, type JournalRecord } from './journal';
import { lockLostError, problemKindOf } from './journal-errors';
import { writeError, type StoreFs } from './store-fs';
import type { StoreProblem } from './problems';

export type { Applier, Migration } from './db-apply';

export interface JournaledDbOptions {
  sql: SqlJsStatic;
  /** The database file; its journal is `<path>.journal`. */
  path: string;
  readOnly: boolean;
  migrations: readonly Migration[];
  apply: Applier;
  /** Quiet time after the last change before the file is exported. Default 200 ms. */
  exportDelayMs?: number;
  /** Longest a change waits for an export while changes keep coming. Default 2000 ms. */
  exportMaxWaitMs?: number;
  onProblem: (p: StoreProblem) => void;
  /**
   * Proves this window still holds the workspace lock (reads the lock file). Called before every
   * journal write, again before a write is reported done, and before every export; false stops
   * writing for good.
   */
  verifyOwner?: () => Promise<boolean>;
  /** Where files are opened for writing; tests inject a full disk here. Default: node's fs. */
  fs?: StoreFs;
}

type Row = Record<string, SqlValue>;

/**
 * One sql.js database made durable by an append-only journal.
 *
 * Every change is a JSON record: it is checked against the in-memory database (applied in a
 * transaction that is rolled back), appended to `<path>.journal` (fsynced when durable), and only then
 * applied in memory, in journal order. So a change whose write failed (disk full, lock lost) is never
 * in memory, never exported, never replayed: what the caller was told failed stays failed. The database image is exported to `path`
 * atomically, debounced and coalesced, at most one export at a time; after an export the journal is
 * rewritten to hold only records newer than the image. The image stores the last sequence number it
 * contains, so replaying a journal is idempotent whatever instant a crash hit.
 */
export class JournaledDb {
  /** Last seq handed out (records in flight included). */
  private nextSeq: number;
  /** Last seq applied in memory: every record up to it is written to the journal or the image. */
  private appliedSeq: number;
  /** Applied records not yet in the exported image. */
  private pending: JournalRecord[] = [];
  /** Set once this window lost the workspace lock: nothing is written any more. */
  private lockLost = false;
  private dirty = false;
  private firstDirtyAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private exporting: Promise<void> | undefined;
  private closed = false;
  private readonly exportDelayMs: number;
  private readonly exportMaxWaitMs: number;

  private constructor(
    private readonly opts: JournaledDbOptions,
    readonly db: Database,
    private readonly journal: Journal | undefined,
    seq: number,
    pending: JournalRecord[],
  ) {
    this.nextSeq = seq;
    this.appliedSeq = seq;
    this.pending = pending;
    this.exportDelayMs = opts.exportDelayMs ?? 200;
    this.exportMaxWaitMs = opts.exportMaxWaitMs ?? 2000;
  }

  get path(): string {
    return this.opts.path;
  }

  get readOnly(): boolean {
    return this.opts.readOnly;
  }

  /**
   * Opens (or creates) the database, quarantining a file that fails to open, migrating it to the
   * latest schema and replaying its journal. Problems found are reported through `onProblem`.
   * Rejects only on I/O errors that leave nothing usable (e.g. a folder that cannot be written).
   */
  static async open(opts: JournaledDbOptions): Promise<JournaledDb> {
    const { path, onProblem } = opts;
    const journalPath = `${path}.journal`;
    const { db, readOnly: ro, changed } = await openImage(opts);
    let seq = metaSeq(db);
    const contents = await readJournal(journalPath);
    for (const w of contents.warnings) onProblem({ kind: 'journal', file: journalPath, message: w });
    const pending: JournalRecord[] = [];
    for (const r of contents.records) {
      if (r.seq <= seq) continue;
      try {
        applyInTransaction(db, opts.apply, r);
        seq = r.seq;
        pending.push(r);
      } catch (err) {
        onProblem({
          kind: 'journal',
          file: journalPath,
          message: `journal record ${r.seq} (${r.op}) could not be applied and was skipped: ${errorMessage(err)}`,
        });
      }
    }
    let journal: Journal | undefined;
    try {
      journal = ro ? undefined : await Journal.open(journalPath, contents.validBytes, opts.fs);
    } catch (err) {
      db.close();
      throw writeError(err, journalPath, 'the change');
    }
    const jdb = new JournaledDb({ ...opts, readOnly: ro }, db, journal, seq, pending);
    // Migrated, converted or replayed data is written back soon, so the journal stays short.
    if (!ro && (changed || pending.length > 0)) jdb.markDirty();
    return jdb;
  }

  /**
   * Journals `record` (without seq; one is assigned), then applies it. Throws synchronously, changing
   * nothing, when the store is read-only or the record cannot be applied. The returned promise
   * resolves when the record is on disk (fsynced when `durable`) and applied in memory; it rejects
   * with a `storage` HeadroomError, the change not applied and not in the journal, when the write
   * failed (disk full, read-only folder) or another window took the workspace over.
   */
  commit(record: { op: string; [field: string]: unknown }, durable: boolean): Promise<void> {
    if (this.closed) throw new HeadroomError('storage', `${basename(this.path)} is closed.`);
    if (this.readOnly || !this.journal) {
      throw new HeadroomError('storage', `${basename(this.path)} is open read-only; the change was not saved.`);
    }
    if (this.lockLost) throw lockLostError();
    if ('seq' in record) throw new Error('a journal record may not carry its own "seq" field; it is assigned here');
    const full: JournalRecord = { ...record, seq: this.nextSeq + 1 };
    try {
      applyInTransaction(this.db, this.opts.apply, full, { dryRun: true });
    } catch (err) {
      if (err instanceof HeadroomError) throw err;
      const detail = err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : errorMessage(err);
      throw new HeadroomError('invalid_request', `The change (${record.op}) could not be saved: ${detail}. Nothing was changed.`, {
        cause: err,
      });
    }
    this.nextSeq = full.seq;
    return this.journal.append(full, durable, {
      beforeWrite: () => this.assertOwner(),
      afterWrite: async () => {
        await this.assertOwner();
        this.applyWritten(full);
      },
    });
  }

  /** Rejects (and stops all writing) once the workspace lock is proven lost. */
  private async assertOwner(): Promise<void> {
    if (!this.lockLost && this.opts.verifyOwner && !(await this.opts.verifyOwner())) this.lockLost = true;
    if (this.lockLost) throw lockLostError();
  }

  /** Applies a record that is now in the journal (in journal order: called from the journal's queue). */
  private applyWritten(record: JournalRecord): void {
    try {
      applyInTransaction(this.db, this.opts.apply, record);
    } catch (err) {
      // It passed the dry run, so only a record written before it (and failed since) can explain this;
      // replay will skip it the same way.
      this.opts.onProblem({
        kind: 'journal',
        file: `${this.path}.journal`,
        message: `journal record ${record.seq} (${record.op}) could not be applied and was skipped: ${errorMessage(err)}`,
      });
      return;
    }
    this.appliedSeq = record.seq;
    this.pending.push(record);
    this.markDirty();
  }

  /**
   * Gives free pages back when at least `minFreeShare` of the file is free (e.g. after most rows moved
   * out to sealed segments or snapshot files), one bounded step per event-loop turn (db-space.ts); the
   * smaller image is exported soon. Resolves whether it did.
   */
  async reclaimSpace(minFreeShare = 0.5): Promise<boolean> {
    if (this.readOnly || this.closed || !worthReclaiming(this.db, minFreeShare)) return false;
    for (let more = true; more && !this.closed;) {
      more = reclaimStep(this.db);
      this.markDirty();
      if (more) await new Promise((r) => setImmediate(r));
    }
    return true;
  }

  /**
   * Runs a change that needs no journal record because replaying the journal onto any image already
   * makes it redundant (dropping rows that a listed segment holds a copy of); it is saved with the
   * next export. Does nothing on a read-only or closed database.
   */
  tidy(sqlText: string, params: SqlValue[] = []): void {
    if (this.readOnly || this.closed) return;
    this.db.run(sqlText, params);
    this.markDirty();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  all(sqlText: string, params: SqlValue[] = []): Row[] {
    const stmt = this.db.prepare(sqlText);
    try {
      stmt.bind(params);
      const rows: Row[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject());
      return rows;
    } finally {
      stmt.free();
    }
  }

  get(sqlText: string, params: SqlValue[] = []): Row | undefined {
    return this.all(sqlText, params)[0];
  }

  /** Exports now if anything changed, waiting for an export in progress first. Rejects if writing fails. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (;;) {
      if (this.exporting) {
        await this.exporting.catch(() => {});
        continue; // a timer may have started another export meanwhile
      }
      if (!this.dirty || this.readOnly) return;
      await this.startExport();
    }
  }

  /** Flushes, then closes the journal and frees the database. Idempotent; never rejects. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } catch (err) {
      this.opts.onProblem({
        kind: problemKindOf(err),
        file: this.path,
        message: `Saving ${basename(this.path)} on close failed (the journal keeps the changes): ${errorMessage(err)}`,
      });
    }
    this.closed = true;
    clearTimeout(this.timer);
    await this.journal?.close().catch(() => {});
    this.db.close();
  }

  private markDirty(): void {
    if (!this.dirty) this.firstDirtyAt = Date.now();
    this.dirty = true;
    if (this.exporting) return; // re-armed when the running export ends
    this.arm();
  }

  private arm(): void {
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.exportDelayMs, this.firstDirtyAt + this.exportMaxWaitMs - Date.now()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.exporting || this.closed) return;
      this.startExport().catch((err) => {
        this.opts.onProblem({
          kind: problemKindOf(err),
          file: this.path,
          message: `Saving ${basename(this.path)} failed (the journal keeps the changes): ${errorMessage(err)}`,
        });
      });
    }, wait);
    this.timer.unref?.();
  }

  /** Counters for tests and benches: exports done, and the most ever running at once (must stay 1). */
  readonly stats = { exports: 0, maxConcurrent: 0, running: 0 };

  /** The only way an export starts: records it in `exporting`, so there is never a second one. */
  private startExport(): Promise<void> {
    const p = this.exportOnce();
    this.exporting = p;
    const settle = () => {
      if (this.exporting === p) this.exporting = undefined;
      if (this.dirty && !this.closed) this.arm();
    };
    p.then(settle, settle);
    return p;
  }

  private async exportOnce(): Promise<void> {
    this.stats.running++;
    this.stats.maxConcurrent = Math.max(this.stats.maxConcurrent, this.stats.running);
    try {
      this.dirty = false;
      if (this.opts.verifyOwner && !(await this.opts.verifyOwner())) this.lockLost = true;
      if (this.lockLost) {
        this.opts.onProblem({
          kind: 'read_only',
          file: this.path,
          message: `${basename(this.path)} was not saved: another window took over this workspace. Its journal keeps the changes.`,
        });
        return;
      }
      const seqInImage = this.appliedSeq;
      const image = this.db.export(); // synchronous; the image holds every applied record up to seqInImage
      await writeFileAtomic(this.path, image, this.opts.fs);
      // Runs after every append queued before it, so `pending` then holds all that was applied.
      await this.journal!.rewrite(() => (this.pending = this.pending.filter((r) => r.seq > seqInImage)));
      this.stats.exports++;
    } catch (err) {
      this.dirty = true;
      throw writeError(err, this.path, 'the database image');
    } finally {
      this.stats.running--;
    }
  }
}
