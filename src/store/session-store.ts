import { HeadroomError } from '../common/errors';
import { newId } from '../common/ids';
import { SessionViews } from './session-views';
import { assertWritable } from './store-context';
import type { ClearMarker, Pin } from './types';

/**
 * Sessions: the list, the transcript, the views (snapshots and compactions) and the state kept with each
 * session (its clear marker, pins and small records), one noun a file (see `session-base.ts`). Session
 * databases open lazily and at most `maxOpenSessions` stay open (least recently used closes). Every
 * method validates its input first and throws a HeadroomError (`not_found`, `invalid_message`,
 * `invalid_request`, `storage`) before anything is written, so a rejected call changes nothing.
 */
export class SessionStore extends SessionViews {
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
  async pins(id: string): Promise<Pin[]> {
    this.get(id);
    return this.pinsOf(await this.db(id));
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
  /** Resolves once no background work (sealing older messages into segments) is running. */
  async settle(): Promise<void> {
    await this.upkeep.settle();
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
}
