import type { SqlValue } from 'sql.js';
import { HeadroomError, errorMessage } from '../common/errors';
import type { Message } from '../providers/types';
import { asMessage, messageProblem } from './message-schema';
import { parseSpend } from './session-spend';
import type { TurnOp } from './session-ops';
import { mb } from './store-context';
import type { AppendTurnOptions, SessionSummary, Snapshot, SnapshotInfo, SnapshotKind, StoredCount, StoredMessage } from './types';

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
    spend: parseSpend(r.spend),
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

/**
 * One message of a turn as a journal row, checked: throws `invalid_message` for a message that is not
 * valid, not JSON, over `maxMessageBytes`, or with a bad token count. Counts are kept with their
 * family, exactness and class only when a count is given.
 */
export function turnRow(m: Message, i: number, opts: AppendTurnOptions, maxMessageBytes: number): Omit<TurnOp['messages'][number], 'seq'> {
  const problem = messageProblem(m);
  if (problem)
    throw new HeadroomError('invalid_message', `Message ${i} of the turn is not a valid message (${problem}); the turn was not saved.`);
  let json: string;
  try {
    json = JSON.stringify(m);
  } catch (err) {
    throw new HeadroomError(
      'invalid_message',
      `Message ${i} of the turn cannot be stored as JSON (${errorMessage(err)}); the turn was not saved.`,
    );
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > maxMessageBytes) {
    throw new HeadroomError(
      'invalid_message',
      `Message ${i} of the turn is ${mb(bytes)}, over the ${mb(maxMessageBytes)} limit per message; offload large tool output to the result store. The turn was not saved.`,
    );
  }
  const tokens = opts.tokens?.[i];
  if (tokens != null && (!Number.isInteger(tokens) || tokens < 0))
    throw new HeadroomError('invalid_message', `Token count ${tokens} of message ${i} is not a non-negative integer.`);
  // Round-trip through JSON so what is applied now is exactly what a replay will apply.
  const exact = opts.tokensExact?.[i];
  const cls = opts.tokenClasses?.[i];
  const repetitive = opts.tokensRepetitive?.[i];
  return {
    message: JSON.parse(json) as Record<string, unknown>,
    tokens: tokens ?? null,
    hash: opts.contentHashes?.[i] ?? null,
    bytes,
    family: tokens != null && typeof opts.tokenFamily === 'string' ? opts.tokenFamily : null,
    exact: typeof exact === 'boolean' ? exact : null,
    cls: tokens != null && typeof cls === 'string' ? cls : null,
    repetitive: tokens != null && typeof repetitive === 'boolean' ? repetitive : null,
  };
}
