import { errorMessage } from '../common/errors';
import type { OpenSession } from './open-sessions';
import { dropSealedCopies, hasSealedCopies, needsSeal, sealOnce } from './segments';
import { snapshotFileName, writeSnapshotFile } from './snapshot-files';
import type { StoreContext } from './store-context';

/**
 * The work that keeps an open session in shape after a write, off the write's path: sealing older
 * messages into segment files when the live database grew big (see segments.ts), and the session
 * list's counts. Nothing here rejects: a failure is reported and leaves the data where it was.
 */
export class SessionUpkeep {
  /** Seals running in the background, per session id (one at a time per session). */
  private readonly sealing = new Map<string, Promise<void>>();

  constructor(private readonly ctx: StoreContext) {}

  /** The seal running for this session, if any (so a caller can wait until its segment list is complete). */
  sealOf(id: string): Promise<void> | undefined {
    return this.sealing.get(id);
  }

  /** Resolves once no seal is running. */
  async settle(): Promise<void> {
    while (this.sealing.size) await Promise.all([...this.sealing.values()]);
  }

  /**
   * Moves older messages into sealed segments in the background when the live part grew big (dropping
   * the rows' live copies afterwards, also those a crash left behind), and the messages of snapshots
   * saved before snapshot files existed into their files (one a tick), so an old session's database
   * shrinks to its live part too. Every step is bounded and yields to the event loop (segments.ts,
   * db-space.ts), so none blocks the extension host for long.
   */
  sealIfNeeded(s: OpenSession): void {
    if (this.sealing.has(s.id) || s.db.readOnly) return;
    if (!(needsSeal(this.ctx, s) || hasSealedCopies(s) || hasSnapshotInRow(s))) return;
    const run = (async () => {
      try {
        await dropSealedCopies(s);
        while (needsSeal(this.ctx, s) && (await sealOnce(this.ctx, s))) await dropSealedCopies(s);
        let moved = false;
        while (!s.db.isClosed && (await moveSnapshotOut(this.ctx, s))) {
          moved = true;
          await new Promise((r) => setImmediate(r));
        }
        // Snapshots moved out of an old database free a large share of it once: give it back.
        if (!s.db.isClosed) await s.db.reclaimSpace(moved ? 0.25 : 0.5);
      } catch (err) {
        this.ctx.report({
          kind: 'export_failed',
          file: s.db.path,
          message: `Moving older messages to a segment file failed; they stay in the session database: ${errorMessage(err)}`,
        });
      } finally {
        this.sealing.delete(s.id);
      }
    })();
    this.sealing.set(s.id, run);
  }

  /** The index's counts are written without fsync; after a crash they are corrected from the session. */
  async reconcileStats(s: OpenSession): Promise<void> {
    if (s.db.readOnly) return;
    const row = this.ctx.index.get('SELECT message_count FROM sessions WHERE id = ?', [s.id]);
    if (row && Number(row.message_count) !== s.counters.count) await this.updateStats(s, 0);
  }

  /** Writes the session's counts to the list (not fsynced). Never rejects. */
  updateStats(s: OpenSession, at: number): Promise<void> {
    // The turn itself is already saved; a failure here only leaves the list's counts stale until reopen.
    const fail = (err: unknown) =>
      this.ctx.report({
        kind: 'export_failed',
        file: this.ctx.index.path,
        message: `Updating the session list failed: ${errorMessage(err)}`,
      });
    try {
      const { count, bytes } = s.counters;
      return this.ctx.index.commit({ op: 'session_stats', id: s.id, messageCount: count, messageBytes: bytes, at }, false).catch(fail);
    } catch (err) {
      fail(err);
      return Promise.resolve();
    }
  }
}

/** True when a snapshot's messages are still in its row (saved before snapshot files). */
function hasSnapshotInRow(s: OpenSession): boolean {
  return !!s.db.get("SELECT 1 AS x FROM snapshots WHERE file IS NULL AND messages <> '' LIMIT 1");
}

/** Moves the oldest such snapshot's messages to its file; resolves false when none is left. */
async function moveSnapshotOut(ctx: StoreContext, s: OpenSession): Promise<boolean> {
  const row = s.db.get("SELECT id, messages FROM snapshots WHERE file IS NULL AND messages <> '' ORDER BY created_at, rowid LIMIT 1");
  if (!row) return false;
  const id = String(row.id);
  const file = snapshotFileName(s.id, id);
  // The stored JSON goes to the file as it is (it was checked when saved); no counts were kept then.
  await writeSnapshotFile(ctx, file, String(row.messages), undefined);
  await s.db.commit({ op: 'snapshot_file', id, file }, true);
  return true;
}
