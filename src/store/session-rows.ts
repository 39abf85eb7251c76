import type { SqlValue } from 'sql.js';
import { HeadroomError } from '../common/errors';
import { asMessage } from './message-schema';
import type { SessionSummary, Snapshot, SnapshotInfo, SnapshotKind, StoredCount, StoredMessage } from './types';

/** Conversions between session rows and the public types; input checks shared by session methods. */

type Row = Record<string, SqlValue>;

export const SNAPSHOT_COLS = 'id, kind, created_at, through_seq, tokens, description, summary, message_count, window_start, window_end';

export function cleanTitle(title: unknown): string {
  if (typeof title !== 'string' || !title.trim()) throw new HeadroomError('invalid_request', 'A session title must be non-empty text.');
  return title.trim().slice(0, 200);
}

export function toSummary(r: Row): SessionSummary {
  return {
    id: String(r.id),
    title: String(r.title),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    messageCount: Number(r.message_count),
    bytes: Number(r.bytes ?? 0),
  };
}

export function toStored(r: Row): StoredMessage {
  return {
    seq: Number(r.seq),
    turn: Number(r.turn),
    message: asMessage(JSON.parse(String(r.content))),
    tokens: r.tokens == null ? null : Number(r.tokens),
    contentHash: r.content_hash == null ? null : String(r.content_hash),
    tokenFamily: r.token_family == null ? null : String(r.token_family),
    tokensExact: r.tokens_exact == null ? null : Boolean(r.tokens_exact),
    tokenClass: r.token_class == null ? null : String(r.token_class),
    tokenRepetitive: r.token_repetitive == null ? null : Boolean(r.token_repetitive),
    createdAt: Number(r.created_at),
  };
}

/** The stored count of a message, complete enough to seed a token ledger; undefined when a part is missing. */
export function storedCount(m: StoredMessage): StoredCount | undefined {
  if (m.tokens == null || m.contentHash == null || m.tokenFamily == null) return undefined;
  const count: StoredCount = { hash: m.contentHash, family: m.tokenFamily, tokens: m.tokens, exact: m.tokensExact ?? false };
  if (m.tokenClass != null) count.contentClass = m.tokenClass;
  if (m.tokenRepetitive != null) count.repetitive = m.tokenRepetitive;
  return count;
}

export function toSnapshotInfo(r: Row): SnapshotInfo {
  const n = (v: SqlValue) => (v == null ? null : Number(v));
  return {
    id: String(r.id),
    kind: String(r.kind) as SnapshotKind,
    createdAt: Number(r.created_at),
    throughSeq: Number(r.through_seq),
    tokens: n(r.tokens),
    description: r.description == null ? null : String(r.description),
    summary: r.summary == null ? null : String(r.summary),
    messageCount: Number(r.message_count),
    windowStart: n(r.window_start),
    windowEnd: n(r.window_end),
  };
}

export function toSnapshot(r: Row): Snapshot {
  return { ...toSnapshotInfo(r), messages: (JSON.parse(String(r.messages)) as unknown[]).map(asMessage) };
}
