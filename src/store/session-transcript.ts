import { HeadroomError } from '../common/errors';
import type { Message } from '../providers/types';
import { SessionCatalog } from './session-catalog';
import { readMessages, readPageBefore } from './segments';
import { contextViewOf } from './session-context-view';
import { turnRow } from './session-rows';
import type { TurnOp } from './session-ops';
import { readResumeViews } from './session-snapshots';
import { assertWritable } from './store-context';
import type {
  AppendTurnOptions,
  AppendedTurn,
  ClearMarker,
  ContextView,
  ContextWindowOptions,
  LoadedSession,
  StoredMessage,
} from './types';

/**
 * A session's transcript: turns appended (durable when resolved), read back whole, by page or by seq,
 * and the resume view (the latest compaction or restore snapshot and the messages after it). Older
 * messages live in sealed segment files (`segments.ts`); only what is asked for is read.
 */
export class SessionTranscript extends SessionCatalog {
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
      // Not saved: give the seqs back unless a later turn took the next ones already. Only what this
      // turn added is taken back (a seal may have moved older rows out meanwhile).
      if (c.lastSeq === lastSeq + prepared.length)
        Object.assign(c, {
          lastSeq,
          lastTurn: before.lastTurn,
          count: c.count - prepared.length,
          bytes: c.bytes - added,
          liveCount: c.liveCount - prepared.length,
          liveBytes: c.liveBytes - added,
        });
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
    const [snapshot] = await readResumeViews(this.ctx, db, 1);
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
   * The full transcript, oldest first, read without taking a place among the open sessions: a session
   * not open is opened read-only for this read and closed after it, so a search over every session
   * never closes the ones in use.
   */
  async transcriptOnce(id: string): Promise<StoredMessage[]> {
    this.get(id);
    return this.sessions.read(id, (s) => readMessages(this.ctx, s, 0, Number.MAX_SAFE_INTEGER, -1));
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
}
