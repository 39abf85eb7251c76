import { HeadroomError } from '../common/errors';
import { newId } from '../common/ids';
import { SessionTranscript } from './session-transcript';
import {
  checkCompaction,
  checkSnapshot,
  compactionOp,
  readCompactions,
  readResumeViews,
  readSnapshot,
  readSnapshotInfo,
  readSnapshots,
  resultRefsIn,
  snapshotOp,
} from './session-snapshots';
import { snapshotFileName, writeSnapshotFile } from './snapshot-files';
import { assertWritable } from './store-context';
import type { CompactionInput, CompactionRecord, LoadedSession, SaveSnapshotInput, Snapshot, SnapshotInfo, SnapshotKind } from './types';

/**
 * A session's views of its context: snapshots (named, restore, compaction), the compaction records, and
 * undoing the last compaction. A compaction or restore snapshot becomes the resume view.
 */
export class SessionViews extends SessionTranscript {
  /** Saves a snapshot (default kind `named`). A compaction/restore snapshot becomes the resume view. */
  async saveSnapshot(id: string, input: SaveSnapshotInput): Promise<SnapshotInfo> {
    this.get(id);
    assertWritable(this.ctx);
    const checked = checkSnapshot(this.ctx, input);
    const { db, counters } = await this.sessions.get(id);
    const snapshotId = newId('snap');
    const file = snapshotFileName(id, snapshotId);
    // The file first: a crash before the record leaves an unlisted file, never a row without its messages.
    await writeSnapshotFile(this.ctx, file, checked.json, checked.counts);
    const op = snapshotOp(id, snapshotId, file, input, checked, counters.lastSeq);
    const done = db.commit(op, true);
    if (checked.kind !== 'named') {
      await this.ctx.index.commit({ op: 'snapshot_refs', sessionId: id, refIds: resultRefsIn(checked.json) }, true);
    }
    await done;
    return readSnapshotInfo(db, op.id);
  }
  /** Snapshots newest first, optionally only one kind. */
  async listSnapshots(id: string, kind?: SnapshotKind): Promise<SnapshotInfo[]> {
    this.get(id);
    return readSnapshots(await this.db(id), kind);
  }
  async getSnapshot(id: string, snapshotId: string): Promise<Snapshot> {
    this.get(id);
    return readSnapshot(this.ctx, await this.db(id), id, snapshotId);
  }
  /** Makes a saved snapshot's messages the resume view again (new messages continue after them). */
  async restoreSnapshot(id: string, snapshotId: string): Promise<Snapshot> {
    const snap = await this.getSnapshot(id, snapshotId);
    const info = await this.saveSnapshot(id, {
      kind: 'restore',
      messages: snap.messages,
      counts: snap.counts,
      tokens: snap.tokens ?? undefined,
      description: snap.description ?? undefined,
      summary: snap.summary ?? undefined,
    });
    return this.getSnapshot(id, info.id);
  }
  /** Saves the compacted view as the resume snapshot and records the compaction. */
  async recordCompaction(id: string, input: CompactionInput): Promise<CompactionRecord> {
    this.get(id);
    assertWritable(this.ctx);
    checkCompaction(input);
    const snap = await this.saveSnapshot(id, { kind: 'compaction', summary: input.summary, ...input.snapshot });
    const db = await this.db(id);
    const cid = newId('cmp');
    await db.commit(compactionOp(id, cid, input, snap.id), true);
    return (await this.listCompactions(id)).find((c) => c.id === cid)!;
  }
  /** Compactions newest first; `sinceClear`: only those after the last clear (the ones the context went through). */
  async listCompactions(id: string, opts: { sinceClear?: boolean } = {}): Promise<CompactionRecord[]> {
    this.get(id);
    const db = await this.db(id);
    const marker = opts.sinceClear ? this.markerOf(db) : undefined;
    const all = readCompactions(db);
    return marker ? all.filter((c) => c.createdAt > marker.clearedAt) : all;
  }
  /**
   * Whether `undoLastCompaction` can work: the newest view change is a compaction (not a restore or an
   * undo), made after the last clear (undoing an older one would bring back what the clear took away).
   */
  async canUndoCompaction(id: string): Promise<boolean> {
    this.get(id);
    const db = await this.db(id);
    const newest = db.all(
      `SELECT kind, created_at FROM snapshots WHERE kind IN ('compaction','restore') ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    );
    const clearedAt = this.markerOf(db)?.clearedAt ?? -Infinity;
    return newest[0]?.kind === 'compaction' && Number(newest[0].created_at) >= clearedAt;
  }
  /** Undoes the last compaction (resume view back to the snapshot before it, or the whole transcript); `not_found` if none. */
  async undoLastCompaction(id: string): Promise<LoadedSession> {
    this.get(id);
    const db = await this.db(id);
    const views = await readResumeViews(this.ctx, db, 2);
    if (!views[0] || views[0].kind !== 'compaction' || !(await this.canUndoCompaction(id)))
      throw new HeadroomError('not_found', 'There is no compaction to undo.');
    const prev = views[1];
    await this.saveSnapshot(id, {
      kind: 'restore',
      messages: prev?.messages ?? [],
      counts: prev?.counts,
      throughSeq: prev?.throughSeq ?? 0,
      tokens: prev?.tokens ?? undefined,
      description: 'Undo of the last compaction',
    });
    return this.load(id);
  }
}
