import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HeadroomError } from '../common/errors';
import { newId } from '../common/ids';
import type { SessionSpend } from '../context/cost';
import type { Message } from '../providers/types';
import type { JournaledDb } from './journaled-db';
import { OpenSessions } from './open-sessions';
import { readMessages, readPageBefore, segmentsOf } from './segments';
import { contextViewOf } from './session-context-view';
import { cleanTitle, toSummary, turnRow } from './session-rows';
import type { TurnOp } from './session-ops';
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
import { SpendRecord } from './session-spend';
import { SessionUpkeep } from './session-upkeep';
import { assertId, assertWritable, type StoreContext } from './store-context';
import type {
  AppendTurnOptions,
  AppendedTurn,
  ClearMarker,
  CompactionInput,
  CompactionRecord,
  ContextView,
  ContextWindowOptions,
  LoadedSession,
  Pin,
  SaveSnapshotInput,
  SessionSummary,
  Snapshot,
  SnapshotInfo,
  SnapshotKind,
  StoredMessage,
} from './types';

/**
 * Sessions: one database (+ journal) per session under `sessions/`, listed in the workspace index.
 * Session databases open lazily and at most `maxOpenSessions` stay open (least recently used closes).
 * Every method validates its input first and throws a HeadroomError (`not_found`, `invalid_message`,
 * `invalid_request`, `storage`) before anything is written, so a rejected call changes nothing.
 */
export class SessionStore {
  private readonly sessions: OpenSessions;
  private readonly upkeep: SessionUpkeep;

  constructor(private readonly ctx: StoreContext) {
    this.upkeep = new SessionUpkeep(ctx);
    this.sessions = new OpenSessions(ctx, async (s) => {
      await this.upkeep.reconcileStats(s);
      this.upkeep.sealIfNeeded(s);
    });
  }

  async create(title = 'New session', at = Date.now()): Promise<SessionSummary> {
    assertWritable(this.ctx);
    const id = newId('ses');
    await this.ctx.index.commit({ op: 'session_create', id, title: cleanTitle(title), at }, true);
    return this.get(id);
  }

  /** All sessions, most recently updated first. */
  list(): SessionSummary[] {
    return this.ctx.index.all('SELECT * FROM sessions ORDER BY updated_at DESC, created_at DESC').map(toSummary);
  }

  /** Throws `not_found` for an unknown id. */
  get(id: string): SessionSummary {
    assertId('session', id);
    const row = this.ctx.index.get('SELECT * FROM sessions WHERE id = ?', [id]);
    if (!row) throw new HeadroomError('not_found', `Unknown session id "${id}".`);
    return toSummary(row);
  }

  async rename(id: string, title: string): Promise<void> {
    this.get(id);
    assertWritable(this.ctx);
    await this.ctx.index.commit({ op: 'session_rename', id, title: cleanTitle(title), at: Date.now() }, true);
  }

  /** Deletes the session, its transcript, snapshots and stored results. */
  async delete(id: string): Promise<void> {
    this.get(id);
    assertWritable(this.ctx);
    const blobs = this.ctx.index.all('SELECT id, file FROM tool_result_blobs WHERE session_id = ?', [id]);
    const open = await this.sessions.get(id);
    await this.upkeep.sealOf(id); // so the list of its segments is complete
    const segments = segmentsOf(open).map((g) => g.file);
    await this.ctx.index.commit({ op: 'session_delete', id, files: segments }, true);
    await this.sessions.drop(id);
    const base = this.sessions.pathOf(id);
    for (const f of [base, `${base}.journal`, ...segments.map((g) => join(this.ctx.root, 'sessions', g))]) await unlink(f).catch(() => {});
    for (const b of blobs) if (b.file) await unlink(join(this.ctx.root, 'results', String(b.file))).catch(() => {});
  }

  /**
   * Persists one turn (or adds to the latest with `continueTurn`). Resolves when the turn is durable (its journal line fsynced).
   * Throws before writing anything for an unknown session, an invalid or unserializable message, or one over `maxMessageBytes`.
   */
  async appendTurn(id: string, messages: Message[], opts: AppendTurnOptions = {}): Promise<AppendedTurn> {
    this.get(id);
    assertWritable(this.ctx);
    if (!Array.isArray(messages) || messages.length === 0) throw new HeadroomError('invalid_message', 'A turn needs at least one message.');
    const prepared = messages.map((m, i) => turnRow(m, i, opts, this.ctx.limits.maxMessageBytes));
    const s = await this.sessions.get(id);
    const c = s.counters;
    const before = { ...c };
    const lastSeq = c.lastSeq;
    const turn = opts.continueTurn && c.lastTurn > 0 ? c.lastTurn : c.lastTurn + 1;
    const op: TurnOp = {
      op: 'turn',
      sessionId: id,
      turn,
      at: opts.at ?? Date.now(),
      messages: prepared.map((p, i) => ({ seq: lastSeq + 1 + i, ...p })),
    };
    const durable = s.db.commit(op, true);
    // Counted now, so a turn appended before this one is durable gets the next seqs.
    const added = prepared.reduce((n, p) => n + p.bytes, 0);
    Object.assign(c, {
      lastSeq: lastSeq + prepared.length,
      lastTurn: turn,
      count: c.count + prepared.length,
      bytes: c.bytes + added,
      liveCount: c.liveCount + prepared.length,
      liveBytes: c.liveBytes + added,
    });
    try {
      await durable;
    } catch (err) {
      // Not saved: give the seqs back unless a later turn took the next ones already.
      if (c.lastSeq === lastSeq + prepared.length) Object.assign(c, before);
      throw err;
    }
    void this.upkeep.updateStats(s, op.at);
    this.upkeep.sealIfNeeded(s);
    return { turn, firstSeq: lastSeq + 1, lastSeq: lastSeq + prepared.length };
  }

  /** The resume view: latest compaction/restore snapshot, the messages after it, marker and pins. */
  async load(id: string): Promise<LoadedSession> {
    return this.loadAfter(id, 0);
  }

  /** `load`, leaving out of the tail the messages up to `skipThroughSeq` (never read: e.g. before a clear). */
  private async loadAfter(id: string, skipThroughSeq: number | ((marker: ClearMarker | undefined) => number)): Promise<LoadedSession> {
    const session = this.get(id);
    const s = await this.sessions.get(id);
    const { db, counters } = s;
    const [snapshot] = readResumeViews(db, 1);
    const marker = this.markerOf(db);
    const skip = typeof skipThroughSeq === 'number' ? skipThroughSeq : skipThroughSeq(marker);
    // Only what is asked for is read: older messages may sit in sealed segment files.
    const tail = await readMessages(this.ctx, s, Math.max(snapshot?.throughSeq ?? 0, skip) + 1, Number.MAX_SAFE_INTEGER, -1);
    return { session, snapshot, tail, marker, pins: this.pinsOf(db), lastSeq: counters.lastSeq, lastTurn: counters.lastTurn };
  }

  /** The full transcript (or a page of it), oldest first. */
  async transcript(id: string, opts: { fromSeq?: number; limit?: number } = {}): Promise<StoredMessage[]> {
    this.get(id);
    const s = await this.sessions.get(id);
    return readMessages(this.ctx, s, opts.fromSeq ?? 0, Number.MAX_SAFE_INTEGER, opts.limit ?? -1);
  }

  /**
   * One page of the transcript for the panel: the newest `limit` messages before `beforeSeq` (default: the newest of all),
   * oldest first, never starting with a tool result cut from its call; `hasOlder` says whether a page before it exists.
   */
  async transcriptPage(id: string, opts: { beforeSeq?: number; limit: number }): Promise<{ messages: StoredMessage[]; hasOlder: boolean }> {
    this.get(id);
    const limit = opts.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new HeadroomError('invalid_request', `A transcript page holds 1 to 10000 messages, not ${limit}.`);
    const s = await this.sessions.get(id);
    return readPageBefore(this.ctx, s, opts.beforeSeq ?? Number.MAX_SAFE_INTEGER, limit);
  }

  /** One transcript message by its seq (a `msg_<seq>` ref); undefined when there is none. Reads only its segment. */
  async message(id: string, seq: number): Promise<StoredMessage | undefined> {
    this.get(id);
    if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
    const s = await this.sessions.get(id);
    return (await readMessages(this.ctx, s, seq, seq, 1))[0];
  }

  /**
   * The context per reference 004: messages since max(last clear, now − rolling window), by the time they were stored, never
   * starting with a tool result cut from its call (`context/turns.ts`). The resume snapshot is included when newer than both.
   */
  async contextView(id: string, opts: ContextWindowOptions = {}): Promise<ContextView> {
    // Messages up to the last clear are never part of the context, so they are not read at all.
    return contextViewOf(await this.loadAfter(id, (marker) => marker?.afterSeq ?? 0), opts);
  }

  /** Saves a snapshot (default kind `named`). A compaction/restore snapshot becomes the resume view. */
  async saveSnapshot(id: string, input: SaveSnapshotInput): Promise<SnapshotInfo> {
    this.get(id);
    assertWritable(this.ctx);
    const checked = checkSnapshot(this.ctx, input);
    const { db, counters } = await this.sessions.get(id);
    const op = snapshotOp(id, input, checked, counters.lastSeq);
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
    return readSnapshot(await this.db(id), id, snapshotId);
  }

  /** Makes a saved snapshot's messages the resume view again (new messages continue after them). */
  async restoreSnapshot(id: string, snapshotId: string): Promise<Snapshot> {
    const snap = await this.getSnapshot(id, snapshotId);
    const info = await this.saveSnapshot(id, {
      kind: 'restore',
      messages: snap.messages,
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

  /** Whether `undoLastCompaction` can work: the newest view change is a compaction (not a restore or an undo). */
  async canUndoCompaction(id: string): Promise<boolean> {
    this.get(id);
    const db = await this.db(id);
    const newest = db.all(`SELECT kind FROM snapshots WHERE kind IN ('compaction','restore') ORDER BY created_at DESC, rowid DESC LIMIT 1`);
    return newest[0]?.kind === 'compaction';
  }

  /** Undoes the last compaction (resume view back to the snapshot before it, or the whole transcript); `not_found` if none. */
  async undoLastCompaction(id: string): Promise<LoadedSession> {
    this.get(id);
    const db = await this.db(id);
    const views = readResumeViews(db, 2);
    if (!views[0] || views[0].kind !== 'compaction') throw new HeadroomError('not_found', 'There is no compaction to undo.');
    const prev = views[1];
    await this.saveSnapshot(id, {
      kind: 'restore',
      messages: prev?.messages ?? [],
      throughSeq: prev?.throughSeq ?? 0,
      tokens: prev?.tokens ?? undefined,
      description: 'Undo of the last compaction',
    });
    return this.load(id);
  }

  /** The last clear, undefined when the session was never cleared. */
  async clearMarker(id: string): Promise<ClearMarker | undefined> {
    this.get(id);
    return this.markerOf(await this.db(id));
  }

  /** Advances the clear marker to now (after the last message). Deletes nothing. */
  async clear(id: string, at = Date.now()): Promise<ClearMarker> {
    this.get(id);
    assertWritable(this.ctx);
    const { db, counters } = await this.sessions.get(id);
    const afterSeq = counters.lastSeq;
    await db.commit({ op: 'clear', sessionId: id, at, afterSeq }, true);
    return { clearedAt: at, afterSeq };
  }

  async pin(id: string, text: string, seq?: number): Promise<Pin> {
    this.get(id);
    assertWritable(this.ctx);
    if (typeof text !== 'string' || !text.trim()) throw new HeadroomError('invalid_request', 'A pin needs some text.');
    const db = await this.db(id);
    const pin = { id: newId('pin'), text, seq: seq ?? null, createdAt: Date.now() };
    await db.commit({ op: 'pin', sessionId: id, id: pin.id, at: pin.createdAt, messageSeq: pin.seq, text }, true);
    return pin;
  }

  async unpin(id: string, pinId: string): Promise<void> {
    this.get(id);
    assertWritable(this.ctx);
    const db = await this.db(id);
    if (!db.get('SELECT 1 AS x FROM pins WHERE id = ?', [pinId]))
      throw new HeadroomError('not_found', `Session "${id}" has no pin "${pinId}".`);
    await db.commit({ op: 'unpin', id: pinId }, true);
  }

  /** Opens the session's database (creating it if needed). Used by start-up recovery to correct counts. */
  async touch(id: string): Promise<void> {
    await this.sessions.get(id);
  }

  async pins(id: string): Promise<Pin[]> {
    this.get(id);
    return this.pinsOf(await this.db(id));
  }

  /** Resolves once no background work (sealing older messages into segments) is running. */
  async settle(): Promise<void> {
    await this.upkeep.settle();
  }

  /** A small record the agent keeps with the session (`ledger`, `summary_count`); undefined when never set. */
  async getState(id: string, key: string): Promise<string | undefined> {
    this.get(id);
    const row = (await this.db(id)).get('SELECT value FROM session_state WHERE key = ?', [key]);
    return row ? String(row.value) : undefined;
  }

  /** Sets such a record (replacing it); durable when resolved. Values are limited to `maxMessageBytes`. */
  async setState(id: string, key: string, value: string): Promise<void> {
    this.get(id);
    assertWritable(this.ctx);
    if (!/^[a-z][a-z0-9_]{0,39}$/.test(key)) throw new HeadroomError('invalid_request', `"${key}" is not a session state key.`);
    if (typeof value !== 'string' || Buffer.byteLength(value) > this.ctx.limits.maxMessageBytes)
      throw new HeadroomError('invalid_request', `The "${key}" record is too large to store.`);
    await (await this.db(id)).commit({ op: 'state', key, value, at: Date.now() }, true);
  }

  /** The number of the session's latest stored turn (0 before the first). */
  async lastTurn(id: string): Promise<number> {
    this.get(id);
    return (await this.sessions.get(id)).counters.lastTurn;
  }

  /** Records what the session spent (replacing the last record) in the index, so listing opens no session database. */
  async setSpend(id: string, spend: SessionSpend): Promise<void> {
    this.get(id);
    assertWritable(this.ctx);
    const checked = SpendRecord.safeParse(spend);
    if (!checked.success) throw new HeadroomError('invalid_request', 'A session spend must be finite, non-negative amounts.');
    await this.ctx.index.commit({ op: 'session_spend', id, spend: checked.data }, true);
  }

  /** Exports every open session database now. */
  async flush(): Promise<void> {
    await this.sessions.flush();
  }

  /** Closes every open session database (flushing first). Never rejects. */
  async close(): Promise<void> {
    await this.settle();
    await this.sessions.close();
  }

  private async db(id: string): Promise<JournaledDb> {
    return (await this.sessions.get(id)).db;
  }

  private markerOf(db: JournaledDb): ClearMarker | undefined {
    const r = db.get('SELECT cleared_at, after_seq FROM markers LIMIT 1');
    return r ? { clearedAt: Number(r.cleared_at), afterSeq: Number(r.after_seq) } : undefined;
  }

  private pinsOf(db: JournaledDb): Pin[] {
    return db.all('SELECT * FROM pins ORDER BY created_at, rowid').map((r) => ({
      id: String(r.id),
      text: String(r.text),
      seq: r.seq == null ? null : Number(r.seq),
      createdAt: Number(r.created_at),
    }));
  }
}
