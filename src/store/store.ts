/**
 * Headroom's persistence: sessions, snapshots, compactions, markers, pins, calibration and offloaded
 * tool results, in sql.js databases under the workspace storage folder. Pure: no `vscode` import;
 * the folder and the wasm path are passed in.
 *
 * Layout (`root` = the workspace storage folder):
 *   store.lock                     single-writer lock: pid, host, heartbeat (second window → read-only)
 *   index.sqlite (+ .journal)      session list, result metadata, calibration, refs of live snapshots
 *   sessions/<id>.sqlite (+ .journal)  one session: transcript, snapshots, compactions, marker, pins
 *   results/<refId>.txt            one file per offloaded tool result
 *
 * Why this layout: sql.js keeps a database in memory and `export()` rewrites the whole file,
 * synchronously. Measured on these machines one database exported per turn costs 14 / 151 / 537 ms at
 * 1 / 50 / 200 MB stored, and the export blocks the extension host for most of that. So nothing that
 * grows with the total stored is ever written per turn:
 *   - Results, the bulk of the bytes, never enter a database. Each is one file written once
 *     (temp + fsync + rename + dir fsync); paging reads only that file; retention unlinks files.
 *   - The index holds only metadata rows (≈100 bytes per result), so it stays well under 1 MB.
 *   - Each session has its own small database (the large outputs are offloaded), so a turn's
 *     cost depends on that session alone, and a resumed session opens one file.
 *   - A turn is made durable by appending one JSON line to the session's journal and fsyncing it
 *     (≈1 ms); the database image is exported later, debounced (200 ms) and at most every 2 s while
 *     turns keep coming, one export per file at a time, then the journal is cut to the records the
 *     image does not hold. Open = load image + replay journal (idempotent via a stored sequence
 *     number), so a crash at any instant loses nothing that `appendTurn` reported durable.
 * A file that fails to open is moved aside as `<name>.corrupt-<time>` and reported; a torn journal
 * tail is dropped with a warning.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HeadroomError, errorMessage } from '../common/errors';
import { reconcileFiles } from './file-reconcile';
import { KEEP_LIVE_MESSAGES, SEAL_LIVE_BYTES } from './segments';
import { nodeFs, writeFailureOf, type StoreFs } from './store-fs';
import { Emitter, type Event } from '../common/emitter';
import { applyIndexOp } from './index-ops';
import { JournaledDb } from './journaled-db';
import type { StoreProblem } from './problems';
import { ResultStore } from './result-store';
import { INDEX_MIGRATIONS } from './schema';
import { SessionStore } from './session-store';
import { assertWritable, type StoreContext, type StoreLimits } from './store-context';
import { loadSqlJs } from './sqljs';
import type { CalibrationFactor } from './types';
import { WorkspaceLock, type LockOptions } from './workspace-lock';

export interface StoreOptions extends Partial<StoreLimits>, LockOptions {
  /** The workspace storage folder (created if missing). */
  root: string;
  /** Path of sql-wasm.wasm (the extension ships it next to the bundle). */
  wasmPath: string;
  /** Where files are opened for writing; tests inject a full disk here. Default: node's fs. */
  fs?: StoreFs;
  /**
   * Asked while another window on this machine waits for the store: true lets it go (this store then
   * saves what it holds and turns read-only). Without it this window keeps the store.
   */
  canHandOff?: () => boolean;
}

/** Why a window that handed the store to another one is read-only. */
export const HANDED_OFF_REASON =
  "a newer VS Code window on this workspace took over Headroom's sessions; this window can read them but not save. Reload it to take them back.";

/** The store of one workspace. Obtain with `openStore`; `close()` on deactivate. */
export interface HeadroomStore {
  /**
   * True when another window holds the workspace; every write then throws a `storage` HeadroomError.
   * A writable store turns read-only once it hands the workspace to a newer window (`canHandOff`).
   */
  readonly readOnly: boolean;
  /** Why the store is read-only, for the user; undefined when writable. */
  readonly readOnlyReason: string | undefined;
  /** Problems found while opening (corrupt files moved aside, torn journal lines, read-only). Show them. */
  readonly problems: readonly StoreProblem[];
  /** Problems found later (a session file quarantined when first opened, a failed export). */
  readonly onDidReportProblem: Event<StoreProblem>;
  readonly sessions: SessionStore;
  readonly results: ResultStore;
  readonly calibration: CalibrationStore;
  /** Exports every changed database now. */
  flush(): Promise<void>;
  /** Flushes, closes every file, stops the heartbeat and releases the lock. Idempotent; never rejects. */
  close(): Promise<void>;
}

/** Per-model token calibration factors. */
export class CalibrationStore {
  constructor(private readonly ctx: StoreContext) {}

  get(model: string): CalibrationFactor | undefined {
    const r = this.ctx.index.get('SELECT * FROM calibration WHERE model = ?', [model]);
    return r
      ? { model: String(r.model), factor: Number(r.factor), samples: Number(r.samples), updatedAt: Number(r.updated_at) }
      : undefined;
  }

  all(): CalibrationFactor[] {
    return this.ctx.index.all('SELECT * FROM calibration ORDER BY model').map((r) => ({
      model: String(r.model),
      factor: Number(r.factor),
      samples: Number(r.samples),
      updatedAt: Number(r.updated_at),
    }));
  }

  /** Saves a factor (not fsynced per call: losing the last update to a power cut only costs precision). */
  async set(model: string, factor: number, samples: number): Promise<void> {
    assertWritable(this.ctx);
    if (typeof model !== 'string' || !model) throw new HeadroomError('invalid_request', 'A calibration needs a model name.');
    if (!Number.isFinite(factor) || factor <= 0)
      throw new HeadroomError('invalid_request', `Calibration factor ${factor} must be a positive number.`);
    if (!Number.isInteger(samples) || samples < 0)
      throw new HeadroomError('invalid_request', `Calibration samples ${samples} must be a non-negative integer.`);
    await this.ctx.index.commit({ op: 'calibration', model, factor, samples, at: Date.now() }, false);
  }
}

export const DEFAULT_LIMITS: StoreLimits = {
  resultCapBytes: 500 * 1024 * 1024,
  maxMessageBytes: 4 * 1024 * 1024,
  maxResultBytes: 64 * 1024 * 1024,
  maxOpenSessions: 4,
  exportDelayMs: 200,
  exportMaxWaitMs: 2000,
  sealLiveBytes: SEAL_LIVE_BYTES,
  keepLiveMessages: KEEP_LIVE_MESSAGES,
};

/**
 * Opens the store of the workspace at `opts.root`. Rejects only when the folder cannot be created or
 * the SQLite engine cannot be loaded; corrupt files and a held lock are reported, not thrown.
 */
export async function openStore(opts: StoreOptions): Promise<HeadroomStore> {
  const limits: StoreLimits = {
    resultCapBytes: opts.resultCapBytes ?? DEFAULT_LIMITS.resultCapBytes,
    maxMessageBytes: opts.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes,
    maxResultBytes: opts.maxResultBytes ?? DEFAULT_LIMITS.maxResultBytes,
    maxOpenSessions: opts.maxOpenSessions ?? DEFAULT_LIMITS.maxOpenSessions,
    exportDelayMs: opts.exportDelayMs ?? DEFAULT_LIMITS.exportDelayMs,
    exportMaxWaitMs: opts.exportMaxWaitMs ?? DEFAULT_LIMITS.exportMaxWaitMs,
    sealLiveBytes: opts.sealLiveBytes ?? DEFAULT_LIMITS.sealLiveBytes,
    keepLiveMessages: opts.keepLiveMessages ?? DEFAULT_LIMITS.keepLiveMessages,
  };
  try {
    await mkdir(opts.root, { recursive: true });
  } catch (err) {
    throw new HeadroomError('storage', `Cannot create the Headroom storage folder ${opts.root}.`, { cause: err });
  }
  const sql = await loadSqlJs(opts.wasmPath);
  const fs = opts.fs ?? nodeFs;
  const lockPath = join(opts.root, 'store.lock');
  let lock: WorkspaceLock;
  let folderReason: string | undefined;
  try {
    lock = await WorkspaceLock.acquire(lockPath, opts);
  } catch (err) {
    if (writeFailureOf(err) === 'io')
      throw new HeadroomError('storage', `Cannot lock the Headroom storage folder ${opts.root}: ${errorMessage(err)}`, { cause: err });
    lock = WorkspaceLock.notAcquired();
    folderReason =
      writeFailureOf(err) === 'disk_full'
        ? 'the disk is full, so this window cannot take the workspace lock; sessions can be read but not saved until space is freed.'
        : `the storage folder ${opts.root} cannot be written (${(err as NodeJS.ErrnoException).code}); sessions can be read but not saved.`;
  }
  const problems: StoreProblem[] = [];
  const emitter = new Emitter<StoreProblem>();
  let opened = false;
  const report = (p: StoreProblem) => (opened ? emitter.fire(p) : problems.push(p));
  const readOnlyReason = lock.owned
    ? undefined
    : (folderReason ??
      `another VS Code window (process ${lock.holder?.pid ?? 'unknown'}) is using this workspace's Headroom sessions; this window can read them but not save.`);
  if (readOnlyReason) {
    const kind = folderReason ? (folderReason.startsWith('the disk is full') ? 'disk_full' : 'not_writable') : 'read_only';
    report({ kind, file: lockPath, message: `Headroom storage is read-only: ${readOnlyReason}` });
  }
  let index: JournaledDb;
  try {
    index = await JournaledDb.open({
      sql,
      path: join(opts.root, 'index.sqlite'),
      readOnly: !!readOnlyReason,
      migrations: INDEX_MIGRATIONS,
      apply: applyIndexOp,
      onProblem: report,
      exportDelayMs: limits.exportDelayMs,
      exportMaxWaitMs: limits.exportMaxWaitMs,
      verifyOwner: () => lock.verify(),
      fs,
    });
  } catch (err) {
    await lock.release();
    throw err;
  }
  const ctx: StoreContext = { root: opts.root, sql, index, lock, fs, limits, readOnlyReason, report };
  const sessions = new SessionStore(ctx);
  const results = new ResultStore(ctx);
  if (!readOnlyReason) {
    const r = await reconcileFiles(ctx, (id) => sessions.touch(id));
    if (r.recoveredSessions || r.adoptedResults) {
      report({
        kind: 'recovered',
        file: index.path,
        message: `The session list did not know ${r.recoveredSessions} session(s) and ${r.adoptedResults} stored result(s) found on disk (it was missing or damaged); they were listed again${r.recoveredSessions ? ' as "Recovered session"' : ''}. Nothing was deleted.`,
      });
    }
  }
  opened = true;
  if (lock.owned && opts.canHandOff) {
    const canHandOff = opts.canHandOff;
    lock.handOffWhenAsked(async () => {
      if (ctx.readOnlyReason || !canHandOff()) return false;
      // Writes are refused from here on; what was written is saved before the lock is let go.
      ctx.readOnlyReason = HANDED_OFF_REASON;
      await sessions.flush().catch(() => {});
      await index.flush().catch(() => {});
      report({ kind: 'read_only', file: lockPath, message: `Headroom storage is read-only: ${HANDED_OFF_REASON}` });
      return true;
    });
  }
  let closing: Promise<void> | undefined;
  return {
    get readOnly() {
      return !!ctx.readOnlyReason;
    },
    get readOnlyReason() {
      return ctx.readOnlyReason;
    },
    problems,
    onDidReportProblem: emitter.event,
    sessions,
    results,
    calibration: new CalibrationStore(ctx),
    async flush() {
      await sessions.flush();
      await index.flush();
    },
    close() {
      closing ??= (async () => {
        await sessions.close();
        await index.close();
        await lock.release();
        emitter.dispose();
      })();
      return closing;
    },
  };
}
