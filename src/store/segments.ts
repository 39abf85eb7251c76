import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlValue } from 'sql.js';
import { writeFileAtomic } from './atomic-file';
import type { OpenSession } from './open-sessions';
import type { SealOp } from './session-ops';
import { toStored } from './session-rows';
import type { StoreContext } from './store-context';
import type { StoredMessage } from './types';

/**
 * Sealed segments: a session's older messages moved out of its database into immutable JSON-lines
 * files (`sessions/<id>.seg-<firstSeq>-<lastSeq>.jsonl`, one message row per line), written once.
 *
 * Why: sql.js exports the whole database synchronously, so a database that grows with the session
 * makes every export (and every open) cost more as the session gets longer. Sealing keeps the live
 * database at about `SEAL_LIVE_BYTES` of messages (freed pages are reused, so its file stops
 * growing), while older messages are read from their segment only when a page of history needs them.
 *
 * Order of a seal: read the rows a bounded batch per event-loop turn, write the file (temp + fsync +
 * rename), then journal a durable `seal` record that lists it; then drop the rows' live copies a
 * bounded batch per turn, without journal records. Segments cover the oldest messages contiguously, so
 * a live row at or below the last sealed seq is such a copy: reads and counts skip it, and a crash at
 * any step leaves either the rows live and an unlisted file (a later seal of the same range replaces
 * it) or the segment listed with some copies left, which upkeep drops after the next open. Replaying
 * the record never reads the file. Segment files are never deleted except with their session. No
 * single synchronous step reads or drops more than `SEAL_BATCH_ROWS` rows or about `SEAL_BATCH_BYTES`
 * (one message can be larger alone), so a seal never blocks the extension host for long.
 */

/**
 * Default: seal when the live messages exceed this many bytes (`StoreLimits.sealLiveBytes`)… Every
 * export copies the whole live database and the first write after an open grows sql.js's in-memory
 * copy of it, both synchronously and in proportion to its size: 1 MiB keeps each of those a few ms.
 */
export const SEAL_LIVE_BYTES = 1024 * 1024;
/** …keeping at least this many recent messages live (`StoreLimits.keepLiveMessages`), */
export const KEEP_LIVE_MESSAGES = 200;
/** …moving at most this much per segment (read a batch per event-loop turn, written a batch per write). */
const SEGMENT_MAX_BYTES = 1024 * 1024;
const SEGMENT_MAX_MESSAGES = 2000;
/** Most rows, and about the most bytes, one synchronous step of a seal reads or drops. */
export const SEAL_BATCH_ROWS = 200;
export const SEAL_BATCH_BYTES = 128 * 1024;

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

type Row = Record<string, SqlValue>;

/** A sealed segment as listed in its session's database. */
export interface SegmentInfo {
  file: string;
  firstSeq: number;
  lastSeq: number;
  lastTurn: number;
  count: number;
  bytes: number;
}

export function segmentsOf(s: OpenSession): SegmentInfo[] {
  return s.db.all('SELECT * FROM segments ORDER BY first_seq').map((r) => ({
    file: String(r.file),
    firstSeq: Number(r.first_seq),
    lastSeq: Number(r.last_seq),
    lastTurn: Number(r.last_turn),
    count: Number(r.count),
    bytes: Number(r.bytes),
  }));
}

/** True when the live part of the session is big enough to seal some of it. */
export function needsSeal(ctx: StoreContext, s: OpenSession): boolean {
  return s.counters.liveBytes > ctx.limits.sealLiveBytes && s.counters.liveCount > ctx.limits.keepLiveMessages;
}

/**
 * Moves the oldest live messages (all but the newest `keepLiveMessages`, at most one segment's
 * worth) into a new segment. Resolves false when there was nothing to seal. Rejects when writing
 * failed (nothing changed then: the rows stay live).
 */
export async function sealOnce(ctx: StoreContext, s: OpenSession): Promise<boolean> {
  const sealed = s.counters.sealedSeq;
  const keepFrom = s.db.get('SELECT seq FROM messages WHERE seq > ? ORDER BY seq DESC LIMIT 1 OFFSET ?', [
    sealed,
    ctx.limits.keepLiveMessages - 1,
  ]);
  if (!keepFrom) return false;
  // The segment file's text, one chunk per batch: never joined into one string on the host thread.
  const chunks: Buffer[] = [];
  let count = 0;
  let bytes = 0;
  let first: Row | undefined;
  let last: Row | undefined;
  while (count < SEGMENT_MAX_MESSAGES && bytes < SEGMENT_MAX_BYTES) {
    if (s.db.isClosed) return false;
    const room = { rows: SEGMENT_MAX_MESSAGES - count, bytes: SEGMENT_MAX_BYTES - bytes };
    const batch = readBatch(s, Number(last?.seq ?? sealed), Number(keepFrom.seq), room);
    if (batch.length) chunks.push(Buffer.from(batch.map((row) => JSON.stringify(row) + '\n').join('')));
    for (const row of batch) {
      first ??= row;
      last = row;
      bytes += Number(row.bytes);
    }
    count += batch.length;
    if (batch.length === 0 || bytes >= SEGMENT_MAX_BYTES) break;
    await nextTurn();
  }
  if (!first || !last) return false;
  const file = `${s.id}.seg-${Number(first.seq)}-${Number(last.seq)}.jsonl`;
  await writeFileAtomic(join(ctx.root, 'sessions', file), chunks, ctx.fs);
  const op: SealOp = {
    op: 'seal',
    sessionId: s.id,
    file,
    firstSeq: Number(first.seq),
    lastSeq: Number(last.seq),
    lastTurn: Number(last.turn),
    count,
    bytes,
    at: Date.now(),
  };
  await s.db.commit(op, true);
  s.counters.sealedSeq = op.lastSeq;
  s.counters.liveCount -= count;
  s.counters.liveBytes -= bytes;
  return true;
}

/**
 * The next rows after seq `after` and before `before`, oldest first: at most `SEAL_BATCH_ROWS` and the
 * segment's `room` in rows, stopping once about `SEAL_BATCH_BYTES` or the room in bytes is reached.
 */
function readBatch(s: OpenSession, after: number, before: number, room: { rows: number; bytes: number }): Row[] {
  const rows: Row[] = [];
  let bytes = 0;
  const maxBytes = Math.min(SEAL_BATCH_BYTES, room.bytes);
  const stmt = s.db.db.prepare('SELECT * FROM messages WHERE seq > ? AND seq < ? ORDER BY seq LIMIT ?');
  try {
    stmt.bind([after, before, Math.min(room.rows, SEAL_BATCH_ROWS)]);
    while (bytes < maxBytes && stmt.step()) {
      const row = stmt.getAsObject();
      rows.push(row);
      bytes += Number(row.bytes);
    }
  } finally {
    stmt.free();
  }
  return rows;
}

/** True when the live database still holds copies of sealed rows (a seal just listed, or one cut short by a crash). */
export function hasSealedCopies(s: OpenSession): boolean {
  return !!s.db.get('SELECT 1 AS x FROM messages WHERE seq <= ? LIMIT 1', [s.counters.sealedSeq]);
}

/**
 * Drops the live copies of sealed rows, one batch (at most `SEAL_BATCH_ROWS` rows and about
 * `SEAL_BATCH_BYTES`) per event-loop turn. No journal record: replaying the journal onto any image
 * lists the same segments, and the copies are skipped by every read until dropped.
 */
export async function dropSealedCopies(s: OpenSession): Promise<void> {
  for (;;) {
    if (s.db.isClosed || s.db.readOnly) return;
    const rows = s.db.all('SELECT seq, bytes FROM messages WHERE seq <= ? ORDER BY seq LIMIT ?', [s.counters.sealedSeq, SEAL_BATCH_ROWS]);
    if (!rows.length) return;
    let bytes = 0;
    let upTo = Number(rows[0].seq);
    for (const r of rows) {
      if (bytes > 0 && bytes + Number(r.bytes) > SEAL_BATCH_BYTES) break;
      bytes += Number(r.bytes);
      upTo = Number(r.seq);
    }
    s.db.tidy('DELETE FROM messages WHERE seq <= ?', [upTo]);
    await nextTurn();
  }
}

/**
 * Messages with seq in [fromSeq, toSeq] (inclusive), oldest first, at most `limit` of them (-1: all):
 * from the segments that hold them, then from the live database.
 */
export async function readMessages(
  ctx: StoreContext,
  s: OpenSession,
  fromSeq: number,
  toSeq: number,
  limit: number,
): Promise<StoredMessage[]> {
  const out: StoredMessage[] = [];
  const full = () => limit >= 0 && out.length >= limit;
  for (const seg of segmentsOf(s)) {
    if (full()) return out;
    if (seg.lastSeq < fromSeq || seg.firstSeq > toSeq) continue;
    const text = await readFile(join(ctx.root, 'sessions', seg.file), 'utf8');
    for (const line of text.split('\n')) {
      if (!line || full()) continue;
      const row = JSON.parse(line) as Row;
      const seq = Number(row.seq);
      if (seq >= fromSeq && seq <= toSeq) out.push(toStored(row));
    }
  }
  if (full()) return out;
  const rest = limit < 0 ? -1 : limit - out.length;
  const from = Math.max(fromSeq, s.counters.sealedSeq + 1);
  out.push(...s.db.all('SELECT * FROM messages WHERE seq BETWEEN ? AND ? ORDER BY seq LIMIT ?', [from, toSeq, rest]).map(toStored));
  return out;
}

/**
 * The newest `limit` messages with seq < `beforeSeq`, oldest first, and whether any message is older
 * than the first of them. Reads the live database through its primary key and, when it holds too few,
 * the segments before it one file at a time, newest first: the cost depends on the page, not on the
 * session's length. A page never starts with a tool result (its call would be on the page before, a
 * broken card): leading tool results are left for the older page, unless the page is nothing else.
 */
export async function readPageBefore(
  ctx: StoreContext,
  s: OpenSession,
  beforeSeq: number,
  limit: number,
): Promise<{ messages: StoredMessage[]; hasOlder: boolean }> {
  const sealed = s.counters.sealedSeq;
  const newestFirst = s.db
    .all('SELECT * FROM messages WHERE seq < ? AND seq > ? ORDER BY seq DESC LIMIT ?', [beforeSeq, sealed, limit])
    .map(toStored);
  const segments = segmentsOf(s).filter((g) => g.firstSeq < beforeSeq);
  for (let i = segments.length - 1; i >= 0 && newestFirst.length < limit; i--) {
    // Every row taken so far is newer than this segment's rows: take them below the oldest taken.
    const bound = newestFirst.at(-1)?.seq ?? beforeSeq;
    const rows = (await readFile(join(ctx.root, 'sessions', segments[i].file), 'utf8')).split('\n').filter(Boolean);
    for (let j = rows.length - 1; j >= 0 && newestFirst.length < limit; j--) {
      const row = JSON.parse(rows[j]) as Row;
      if (Number(row.seq) < bound) newestFirst.push(toStored(row));
    }
  }
  const messages = newestFirst.reverse();
  let cut = 0;
  while (cut < messages.length && messages[cut].message.role === 'toolResult') cut++;
  const page = cut < messages.length ? messages.slice(cut) : messages;
  const first = page[0]?.seq ?? beforeSeq;
  const hasOlder =
    !!s.db.get('SELECT 1 AS x FROM messages WHERE seq < ? AND seq > ? LIMIT 1', [first, sealed]) ||
    segmentsOf(s).some((g) => g.firstSeq < first);
  return { messages: page, hasOlder };
}
