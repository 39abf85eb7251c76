import { z } from 'zod';
import type { Database } from 'sql.js';
import type { JournalRecord } from './journal';
import { SpendRecord } from './session-spend';

/**
 * The journaled operations of the workspace index and how each one is applied (live and on replay alike).
 *
 * `doomed_files` is the store's only proof that a file is garbage: a file is deleted at start-up only
 * when a row here names it (a deleted session's or result's file whose removal a crash cut short, or a
 * result file whose `put` never finished). A file the index does not know and no row dooms is listed
 * again instead, so a lost or damaged index never costs a session or a stored result.
 */

const int = z.number().int();

export const IndexOp = z.discriminatedUnion('op', [
  z.object({ op: z.literal('session_create'), id: z.string(), title: z.string(), at: int }),
  z.object({ op: z.literal('session_rename'), id: z.string(), title: z.string(), at: int }),
  // `files`: the session's sealed segments (since 0.2), doomed with its database.
  z.object({ op: z.literal('session_delete'), id: z.string(), files: z.array(z.string()).optional() }),
  z.object({ op: z.literal('session_stats'), id: z.string(), messageCount: int, messageBytes: int, at: int }),
  // What the session spent so far, replacing the previous record (since index v4).
  z.object({ op: z.literal('session_spend'), id: z.string(), spend: SpendRecord }),
  z.object({
    op: z.literal('blob_put'),
    id: z.string(),
    sessionId: z.string(),
    toolName: z.string(),
    byteSize: int,
    lineCount: int,
    file: z.string(),
    at: int,
  }),
  z.object({ op: z.literal('blob_delete'), ids: z.array(z.string()) }),
  // A result file is about to be written: garbage if found on disk without the blob_put that follows.
  z.object({ op: z.literal('blob_intent'), id: z.string(), file: z.string(), at: int }),
  z.object({ op: z.literal('doomed_clear'), files: z.array(z.string()) }),
  z.object({ op: z.literal('snapshot_refs'), sessionId: z.string(), refIds: z.array(z.string()) }),
  z.object({ op: z.literal('calibration'), model: z.string(), factor: z.number(), samples: int, at: int }),
]);
export type IndexOp = z.infer<typeof IndexOp>;

/** `sessions.bytes` = bytes of the transcript + bytes of the session's stored results. */
const REFRESH_BYTES = `UPDATE sessions SET bytes = ? + (SELECT COALESCE(SUM(byte_size), 0) FROM tool_result_blobs WHERE session_id = sessions.id) WHERE id = ?`;

export function applyIndexOp(db: Database, record: JournalRecord): void {
  const r = IndexOp.parse(record);
  switch (r.op) {
    case 'session_create':
      db.run('INSERT INTO sessions (id, title, created_at, updated_at, message_count, bytes) VALUES (?,?,?,?,0,0)', [
        r.id,
        r.title,
        r.at,
        r.at,
      ]);
      return;
    case 'session_rename':
      db.run('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?', [r.title, r.at, r.id]);
      return;
    case 'session_delete':
      doom(db, [`sessions/${r.id}.sqlite`, `sessions/${r.id}.sqlite.journal`, ...(r.files ?? []).map((f) => `sessions/${f}`)], 0);
      db.run(
        "INSERT OR IGNORE INTO doomed_files (file, at) SELECT 'results/' || file, 0 FROM tool_result_blobs WHERE session_id = ? AND file IS NOT NULL",
        [r.id],
      );
      db.run('DELETE FROM tool_result_blobs WHERE session_id = ?', [r.id]);
      db.run('DELETE FROM snapshot_refs WHERE session_id = ?', [r.id]);
      db.run('DELETE FROM sessions WHERE id = ?', [r.id]);
      return;
    case 'session_stats':
      db.run('UPDATE sessions SET message_count = ?, updated_at = MAX(updated_at, ?) WHERE id = ?', [r.messageCount, r.at, r.id]);
      db.run(REFRESH_BYTES, [r.messageBytes, r.id]);
      return;
    case 'session_spend':
      db.run('UPDATE sessions SET spend = ? WHERE id = ?', [JSON.stringify(r.spend), r.id]);
      return;
    case 'blob_put':
      db.run(
        'INSERT INTO tool_result_blobs (id, session_id, tool_name, content, byte_size, created_at, file, line_count) VALUES (?,?,?,NULL,?,?,?,?)',
        [r.id, r.sessionId, r.toolName, r.byteSize, r.at, r.file, r.lineCount],
      );
      db.run('UPDATE sessions SET bytes = bytes + ?, updated_at = MAX(updated_at, ?) WHERE id = ?', [r.byteSize, r.at, r.sessionId]);
      db.run('DELETE FROM doomed_files WHERE file = ?', [`results/${r.file}`]);
      return;
    case 'blob_intent':
      doom(db, [`results/${r.file}`], r.at);
      return;
    case 'doomed_clear':
      for (const f of r.files) db.run('DELETE FROM doomed_files WHERE file = ?', [f]);
      return;
    case 'blob_delete':
      for (const id of r.ids) {
        const row = db.exec('SELECT session_id, byte_size, file FROM tool_result_blobs WHERE id = ?', [id])[0]?.values[0];
        if (!row) continue;
        if (row[2] != null) doom(db, [`results/${String(row[2])}`], 0);
        db.run('DELETE FROM tool_result_blobs WHERE id = ?', [id]);
        db.run('UPDATE sessions SET bytes = MAX(0, bytes - ?) WHERE id = ?', [row[1], row[0]]);
      }
      return;
    case 'snapshot_refs':
      db.run('DELETE FROM snapshot_refs WHERE session_id = ?', [r.sessionId]);
      for (const ref of new Set(r.refIds)) db.run('INSERT INTO snapshot_refs (session_id, ref_id) VALUES (?,?)', [r.sessionId, ref]);
      return;
    case 'calibration':
      db.run(
        'INSERT INTO calibration (model, factor, samples, updated_at) VALUES (?,?,?,?) ON CONFLICT(model) DO UPDATE SET factor = excluded.factor, samples = excluded.samples, updated_at = excluded.updated_at',
        [r.model, r.factor, r.samples, r.at],
      );
      return;
  }
}

function doom(db: Database, files: string[], at: number): void {
  for (const f of files) db.run('INSERT OR IGNORE INTO doomed_files (file, at) VALUES (?, ?)', [f, at]);
}
