import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HeadroomError } from '../common/errors';
import { newId } from '../common/ids';
import type { SessionSpend } from '../context/cost';
import { SessionBase } from './session-base';
import { segmentsOf } from './segments';
import { cleanTitle } from './session-rows';
import { SpendRecord } from './session-spend';
import { snapshotFilesOf } from './snapshot-files';
import { assertWritable } from './store-context';
import type { SessionSummary } from './types';

/**
 * Sessions as a list: one database (+ journal) per session under `sessions/`, listed in the workspace
 * index with its title, counts and spend. Every method validates its input first and throws a
 * HeadroomError (`not_found`, `invalid_request`, `storage`) before anything is written.
 */
export class SessionCatalog extends SessionBase {
  async create(title = 'New session', at = Date.now()): Promise<SessionSummary> {
    assertWritable(this.ctx);
    const id = newId('ses');
    await this.ctx.index.commit({ op: 'session_create', id, title: cleanTitle(title), at }, true);
    return this.get(id);
  }
  /** All sessions, most recently updated first. */
  list(): SessionSummary[] {
    return this.ctx.index.all('SELECT * FROM sessions ORDER BY updated_at DESC, created_at DESC').map((r) => this.summaryOf(r));
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
    const segments = [...segmentsOf(open).map((g) => g.file), ...snapshotFilesOf(open.db)];
    await this.ctx.index.commit({ op: 'session_delete', id, files: segments }, true);
    await this.sessions.drop(id);
    const base = this.sessions.pathOf(id);
    for (const f of [base, `${base}.journal`, ...segments.map((g) => join(this.ctx.root, 'sessions', g))]) await unlink(f).catch(() => {});
    for (const b of blobs) if (b.file) await unlink(join(this.ctx.root, 'results', String(b.file))).catch(() => {});
  }
  /** Opens the session's database (creating it if needed). Used by start-up recovery to correct counts. */
  async touch(id: string): Promise<void> {
    await this.sessions.get(id);
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
}
