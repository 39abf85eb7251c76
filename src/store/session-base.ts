import type { JournaledDb } from './journaled-db';
import { OpenSessions } from './open-sessions';
import { SessionUpkeep } from './session-upkeep';
import { assertId, type StoreContext } from './store-context';
import { HeadroomError } from '../common/errors';
import { toSummary } from './session-rows';
import type { ClearMarker, Pin, SessionSummary } from './types';

/**
 * What every part of the session store shares: the store context, the open session databases and
 * their upkeep, and the small reads each part needs (a session's row, its database, its clear marker,
 * its pins). `SessionStore` is built from one class per noun, each extending the one before it —
 * sessions (`session-catalog.ts`), transcript (`session-transcript.ts`), views (`session-views.ts`:
 * snapshots and compactions), state (`session-store.ts`: clear, pins, records) — so the public API
 * stays one object while each noun's code lives in its own file.
 */
export class SessionBase {
  protected readonly sessions: OpenSessions;
  protected readonly upkeep: SessionUpkeep;

  constructor(protected readonly ctx: StoreContext) {
    this.upkeep = new SessionUpkeep(ctx);
    this.sessions = new OpenSessions(ctx, async (s) => {
      await this.upkeep.reconcileStats(s);
      this.upkeep.sealIfNeeded(s);
    });
  }

  /** Throws `not_found` for an unknown id. */
  get(id: string): SessionSummary {
    assertId('session', id);
    const row = this.ctx.index.get('SELECT * FROM sessions WHERE id = ?', [id]);
    if (!row) throw new HeadroomError('not_found', `Unknown session id "${id}".`);
    return this.summaryOf(row);
  }

  /**
   * A session's list entry. The index's counts are written after each turn without waiting (see
   * `SessionUpkeep.updateStats`), so while the session's database is open its own counters are the
   * current ones: a summary read right after a turn counts that turn.
   */
  protected summaryOf(row: Parameters<typeof toSummary>[0]): SessionSummary {
    const summary = toSummary(row);
    const open = this.sessions.peek(summary.id);
    return open ? { ...summary, messageCount: open.counters.count } : summary;
  }

  protected async db(id: string): Promise<JournaledDb> {
    return (await this.sessions.get(id)).db;
  }

  protected markerOf(db: JournaledDb): ClearMarker | undefined {
    const r = db.get('SELECT cleared_at, after_seq FROM markers LIMIT 1');
    return r ? { clearedAt: Number(r.cleared_at), afterSeq: Number(r.after_seq) } : undefined;
  }

  protected pinsOf(db: JournaledDb): Pin[] {
    return db.all('SELECT * FROM pins ORDER BY created_at, rowid').map((r) => ({
      id: String(r.id),
      text: String(r.text),
      seq: r.seq == null ? null : Number(r.seq),
      createdAt: Number(r.created_at),
    }));
  }
}
