import type { SqlValue } from 'sql.js';
import { HeadroomError } from '../common/errors';
import type { JournaledDb } from './journaled-db';
import { messageProblem } from './message-schema';
import { SNAPSHOT_COLS, toSnapshot, toSnapshotInfo } from './session-rows';
import { readSnapshotFile, SnapshotCountsSchema } from './snapshot-files';
import { mb, type StoreContext } from './store-context';
import type { CompactionInput, CompactionRecord, SaveSnapshotInput, Snapshot, SnapshotInfo, SnapshotKind, StoredCount } from './types';

/**
 * The snapshots and compactions of one session database: the checks a new one passes before anything
 * is written, the journal record it becomes, and the queries that read them back (a snapshot's messages
 * from its file, `snapshot-files.ts`). `SessionViews` decides when; this file decides what.
 */

const REF_PATTERN = /res_[0-9a-f]{16}/g;

/** A snapshot that passed its checks: its kind, its messages as the JSON that will be stored, their counts. */
export interface CheckedSnapshot {
  kind: SnapshotKind;
  json: string;
  counts: Array<StoredCount | null> | undefined;
}

/**
 * Checks a snapshot before anything is written: a known kind, valid messages, at most four times
 * `maxMessageBytes` as JSON. Throws `invalid_request` / `invalid_message`.
 */
export function checkSnapshot(ctx: StoreContext, input: SaveSnapshotInput): CheckedSnapshot {
  const kind: SnapshotKind = input.kind ?? 'named';
  if (!['compaction', 'named', 'restore'].includes(kind)) throw new HeadroomError('invalid_request', `Unknown snapshot kind "${kind}".`);
  if (!Array.isArray(input.messages)) throw new HeadroomError('invalid_message', 'A snapshot needs an array of messages.');
  input.messages.forEach((m, i) => {
    const problem = messageProblem(m);
    if (problem)
      throw new HeadroomError('invalid_message', `Snapshot message ${i} is not a valid message (${problem}); nothing was saved.`);
  });
  const json = JSON.stringify(input.messages);
  if (Buffer.byteLength(json) > ctx.limits.maxMessageBytes * 4) {
    throw new HeadroomError('invalid_message', `The snapshot is ${mb(Buffer.byteLength(json))}, too large to store; nothing was saved.`);
  }
  let counts: Array<StoredCount | null> | undefined;
  if (input.counts !== undefined) {
    const parsed = SnapshotCountsSchema.safeParse(Array.from(input.counts, (c) => c ?? null));
    if (!parsed.success || parsed.data.length !== input.messages.length)
      throw new HeadroomError('invalid_request', 'Snapshot counts must be one stored count (or null) per message; nothing was saved.');
    counts = parsed.data;
  }
  return { kind, json, counts };
}

/**
 * The journal record of a checked snapshot whose messages are in `file` (written before it); its window
 * defaults to the messages' earliest / latest time.
 */
export function snapshotOp(
  sessionId: string,
  id: string,
  file: string,
  input: SaveSnapshotInput,
  { kind }: CheckedSnapshot,
  lastSeq: number,
) {
  const times = input.messages.map((m) => m.timestamp).filter((t) => Number.isFinite(t));
  const at = Date.now();
  return {
    op: 'snapshot',
    sessionId,
    id,
    kind,
    at,
    throughSeq: input.throughSeq ?? lastSeq,
    messages: [],
    file,
    messageCount: input.messages.length,
    tokens: input.tokens ?? null,
    description: input.description ?? null,
    summary: input.summary ?? null,
    windowStart: input.windowStart ?? (times.length ? Math.floor(Math.min(...times)) : null),
    windowEnd: input.windowEnd ?? (times.length ? Math.floor(Math.max(...times)) : at),
  };
}

/** The stored results a snapshot's messages refer to (kept while the snapshot is a live view). */
export function resultRefsIn(json: string): string[] {
  return json.match(REF_PATTERN) ?? [];
}

export function readSnapshotInfo(db: JournaledDb, snapshotId: string): SnapshotInfo {
  return toSnapshotInfo(db.get(`SELECT ${SNAPSHOT_COLS} FROM snapshots WHERE id = ?`, [snapshotId])!);
}

/** Snapshots newest first, optionally only one kind. */
export function readSnapshots(db: JournaledDb, kind?: SnapshotKind): SnapshotInfo[] {
  const rows = kind
    ? db.all(`SELECT ${SNAPSHOT_COLS} FROM snapshots WHERE kind = ? ORDER BY created_at DESC, rowid DESC`, [kind])
    : db.all(`SELECT ${SNAPSHOT_COLS} FROM snapshots ORDER BY created_at DESC, rowid DESC`);
  return rows.map(toSnapshotInfo);
}

/** Throws `not_found` when the session has no such snapshot. */
export async function readSnapshot(ctx: StoreContext, db: JournaledDb, sessionId: string, snapshotId: string): Promise<Snapshot> {
  const row = db.get(`SELECT ${SNAPSHOT_COLS}, file FROM snapshots WHERE id = ?`, [snapshotId]);
  if (!row) throw new HeadroomError('not_found', `Session "${sessionId}" has no snapshot "${snapshotId}".`);
  return withBody(ctx, db, row);
}

/** The latest resume views (compaction or restore snapshots), newest first. */
export async function readResumeViews(ctx: StoreContext, db: JournaledDb, limit: number): Promise<Snapshot[]> {
  const rows = db.all(
    `SELECT ${SNAPSHOT_COLS}, file FROM snapshots WHERE kind IN ('compaction','restore') ORDER BY created_at DESC, rowid DESC LIMIT ?`,
    [limit],
  );
  const out: Snapshot[] = [];
  for (const row of rows) out.push(await withBody(ctx, db, row));
  return out;
}

/** A snapshot row with its messages: from its file, or (older snapshots) from the row itself. */
async function withBody(ctx: StoreContext, db: JournaledDb, row: Record<string, SqlValue>): Promise<Snapshot> {
  if (row.file != null) return { ...toSnapshotInfo(row), ...(await readSnapshotFile(ctx, String(row.file))) };
  const legacy = db.get('SELECT messages FROM snapshots WHERE id = ?', [String(row.id)]);
  return toSnapshot({ ...row, messages: legacy?.messages ?? '[]' });
}

/** Throws `invalid_request` for counts that are not non-negative integers or strategies that are not names. */
export function checkCompaction(input: CompactionInput): void {
  for (const k of ['beforeTokens', 'afterTokens', 'beforeMessages', 'afterMessages'] as const) {
    if (!Number.isInteger(input[k]) || input[k] < 0)
      throw new HeadroomError('invalid_request', `Compaction ${k} must be a non-negative integer.`);
  }
  if (!Array.isArray(input.strategies) || input.strategies.some((s) => typeof s !== 'string')) {
    throw new HeadroomError('invalid_request', 'Compaction strategies must be a list of names.');
  }
}

/** The journal record of a checked compaction whose resume snapshot is `snapshotId`. */
export function compactionOp(sessionId: string, id: string, input: CompactionInput, snapshotId: string) {
  return {
    op: 'compaction',
    sessionId,
    id,
    at: Date.now(),
    beforeTokens: input.beforeTokens,
    afterTokens: input.afterTokens,
    beforeMessages: input.beforeMessages,
    afterMessages: input.afterMessages,
    strategies: input.strategies,
    summary: input.summary ?? null,
    firstKeptSeq: input.firstKeptSeq ?? null,
    durationMs: input.durationMs ?? null,
    snapshotId,
    report: reportJson(input.report),
  };
}

/** Longest report stored (a view is bounded well below this; a larger one is not stored). */
const REPORT_CHARS = 2_000_000;

function reportJson(report: unknown): string | null {
  if (report === undefined) return null;
  try {
    const json = JSON.stringify(report);
    return typeof json === 'string' && json.length <= REPORT_CHARS ? json : null;
  } catch {
    return null;
  }
}

/** Compactions newest first. */
export function readCompactions(db: JournaledDb): CompactionRecord[] {
  return db.all('SELECT * FROM compactions ORDER BY created_at DESC, rowid DESC').map((r) => ({
    id: String(r.id),
    createdAt: Number(r.created_at),
    beforeTokens: Number(r.before_tokens),
    afterTokens: Number(r.after_tokens),
    beforeMessages: Number(r.before_messages),
    afterMessages: Number(r.after_messages),
    strategies: JSON.parse(String(r.strategies)) as string[],
    summary: r.summary == null ? null : String(r.summary),
    firstKeptSeq: r.first_kept_seq == null ? null : Number(r.first_kept_seq),
    durationMs: r.duration_ms == null ? null : Number(r.duration_ms),
    snapshotId: r.snapshot_id == null ? null : String(r.snapshot_id),
    report: parseReport(r.report),
  }));
}

/** A stored report read back: its JSON value, or null when there is none or it does not parse. */
function parseReport(raw: unknown): unknown {
  if (typeof raw !== 'string') return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}
