import { z } from 'zod';
import type { Database } from 'sql.js';
import type { JournalRecord } from './journal';

/**
 * The journaled operations of a session database and how each one is applied. The same code runs
 * for a live change and for a journal replay, so both produce the same rows.
 */

const Obj = z.record(z.string(), z.unknown());
const int = z.number().int();

const TurnOp = z.object({
  op: z.literal('turn'),
  sessionId: z.string(),
  turn: int,
  at: int,
  messages: z.array(
    z.object({
      seq: int,
      message: Obj,
      tokens: int.nullable(),
      hash: z.string().nullable(),
      bytes: int,
      // Since schema v3; absent in records journaled by 0.1.0.
      family: z.string().nullable().optional(),
      exact: z.boolean().nullable().optional(),
      // Since schema v5.
      cls: z.string().nullable().optional(),
      repetitive: z.boolean().nullable().optional(),
    }),
  ),
});
const SnapshotOp = z.object({
  op: z.literal('snapshot'),
  sessionId: z.string(),
  id: z.string(),
  kind: z.enum(['compaction', 'named', 'restore']),
  at: int,
  throughSeq: int,
  messages: z.array(Obj),
  tokens: int.nullable(),
  description: z.string().nullable(),
  summary: z.string().nullable(),
  windowStart: int.nullable(),
  windowEnd: int.nullable(),
  /** Since schema v7: the file holding the messages (written before this record; `messages` is then empty). */
  file: z.string().nullable().optional(),
  messageCount: int.optional(),
});
/** An older snapshot's messages now live in `file` (written and fsynced before this record): drop them from the row. */
const SnapshotFileOp = z.object({ op: z.literal('snapshot_file'), id: z.string(), file: z.string() });
const CompactionOp = z.object({
  op: z.literal('compaction'),
  sessionId: z.string(),
  id: z.string(),
  at: int,
  beforeTokens: int,
  afterTokens: int,
  beforeMessages: int,
  afterMessages: int,
  strategies: z.array(z.string()),
  summary: z.string().nullable(),
  firstKeptSeq: int.nullable(),
  durationMs: z.number().nullable(),
  snapshotId: z.string().nullable(),
  /** JSON of what the compaction did to the context; absent in records written before v6. */
  report: z.string().nullable().optional(),
});
/**
 * Messages first_seq..last_seq now live in `file` (written and fsynced before this record). Applying it
 * only lists the segment: the live copies of those rows are no longer read, and are dropped afterwards
 * a bounded batch at a time (segments.ts), so no single step of a seal deletes a whole segment's rows.
 */
const SealOp = z.object({
  op: z.literal('seal'),
  sessionId: z.string(),
  file: z.string(),
  firstSeq: int,
  lastSeq: int,
  lastTurn: int,
  count: int,
  bytes: int,
  at: int,
});
const ClearOp = z.object({ op: z.literal('clear'), sessionId: z.string(), at: int, afterSeq: int });
const PinOp = z.object({
  op: z.literal('pin'),
  sessionId: z.string(),
  id: z.string(),
  at: int,
  messageSeq: int.nullable(),
  text: z.string(),
});
const UnpinOp = z.object({ op: z.literal('unpin'), id: z.string() });
const StateOp = z.object({ op: z.literal('state'), key: z.string(), value: z.string(), at: int });

export const SessionOp = z.discriminatedUnion('op', [
  TurnOp,
  SnapshotOp,
  SnapshotFileOp,
  CompactionOp,
  SealOp,
  ClearOp,
  PinOp,
  UnpinOp,
  StateOp,
]);
export type SealOp = z.infer<typeof SealOp>;
export type SessionOp = z.infer<typeof SessionOp>;
export type TurnOp = z.infer<typeof TurnOp>;
export type SnapshotOp = z.infer<typeof SnapshotOp>;
export type CompactionOp = z.infer<typeof CompactionOp>;

/** Applies one session record. Throws on a malformed record or a constraint violation (e.g. a reused seq). */
export function applySessionOp(db: Database, record: JournalRecord): void {
  const r = SessionOp.parse(record);
  switch (r.op) {
    case 'turn': {
      const stmt = db.prepare(
        `INSERT INTO messages (seq, session_id, turn, role, content, tokens, content_hash, bytes, created_at, token_family,
          tokens_exact, token_class, token_repetitive) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      );
      try {
        for (const m of r.messages) {
          const exact = m.exact == null ? null : Number(m.exact);
          stmt.run([
            m.seq,
            r.sessionId,
            r.turn,
            String(m.message.role),
            JSON.stringify(m.message),
            m.tokens,
            m.hash,
            m.bytes,
            r.at,
            m.family ?? null,
            exact,
            m.cls ?? null,
            m.repetitive == null ? null : Number(m.repetitive),
          ]);
        }
      } finally {
        stmt.free();
      }
      return;
    }
    case 'snapshot':
      db.run(
        `INSERT INTO snapshots (id, session_id, created_at, through_seq, messages, tokens, kind, description, summary,
          message_count, window_start, window_end, file) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
        [
          r.id,
          r.sessionId,
          r.at,
          r.throughSeq,
          r.file ? '' : JSON.stringify(r.messages),
          r.tokens,
          r.kind,
          r.description,
          r.summary,
          r.messageCount ?? r.messages.length,
          r.windowStart,
          r.windowEnd,
          r.file ?? null,
        ],
      );
      return;
    case 'snapshot_file':
      db.run("UPDATE snapshots SET file = ?, messages = '' WHERE id = ?", [r.file, r.id]);
      return;
    case 'compaction':
      db.run(
        `INSERT INTO compactions (id, session_id, created_at, before_tokens, after_tokens, before_messages, after_messages,
          strategies, summary, first_kept_seq, duration_ms, snapshot_id, report) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
        [
          r.id,
          r.sessionId,
          r.at,
          r.beforeTokens,
          r.afterTokens,
          r.beforeMessages,
          r.afterMessages,
          JSON.stringify(r.strategies),
          r.summary,
          r.firstKeptSeq,
          r.durationMs,
          r.snapshotId,
          r.report ?? null,
        ],
      );
      return;
    case 'seal':
      db.run('INSERT INTO segments (file, first_seq, last_seq, last_turn, count, bytes, created_at) VALUES (?,?,?,?,?,?,?)', [
        r.file,
        r.firstSeq,
        r.lastSeq,
        r.lastTurn,
        r.count,
        r.bytes,
        r.at,
      ]);
      return;
    case 'clear':
      db.run(
        'INSERT INTO markers (session_id, cleared_at, after_seq) VALUES (?,?,?) ON CONFLICT(session_id) DO UPDATE SET cleared_at = excluded.cleared_at, after_seq = excluded.after_seq',
        [r.sessionId, r.at, r.afterSeq],
      );
      return;
    case 'pin':
      db.run('INSERT INTO pins (id, session_id, seq, text, created_at) VALUES (?,?,?,?,?)', [
        r.id,
        r.sessionId,
        r.messageSeq,
        r.text,
        r.at,
      ]);
      return;
    case 'unpin':
      db.run('DELETE FROM pins WHERE id = ?', [r.id]);
      return;
    case 'state':
      db.run(
        'INSERT INTO session_state (key, value, updated_at) VALUES (?,?,?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        [r.key, r.value, r.at],
      );
      return;
  }
}
