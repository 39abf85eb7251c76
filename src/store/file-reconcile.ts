import { readFile, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isTempName } from './atomic-file';
import type { StoreContext } from './store-context';

const SESSION_FILE = /^(ses_[0-9a-f]{16})\.sqlite(\.journal)?$/;
const RESULT_FILE = /^(res_[0-9a-f]{16})\.txt$/;

/** What `reconcileFiles` did. */
export interface ReconcileReport {
  /** Sessions found on disk that the index did not list, listed again as "Recovered session". */
  recoveredSessions: number;
  /** Result files the index did not know, listed again (their session unknown) so their refs still resolve. */
  adoptedResults: number;
  /** Files removed: temp leftovers and files the index proves are garbage (`doomed_files`). */
  removed: number;
}

/**
 * Start-up reconciliation of `sessions/` and `results/` with the index, in a window that holds the
 * lock. It never deletes a file it cannot prove is garbage: only temp leftovers of interrupted writes
 * and files named in `doomed_files` (see index-ops.ts) go. Every other file the index does not know
 * (the index was missing, quarantined, or lost the journal line that listed it) is listed again, so
 * nothing the user had is ever swept away as an "orphan". `openSession` opens a recovered session once
 * so its counts are corrected.
 */
export async function reconcileFiles(ctx: StoreContext, openSession: (id: string) => Promise<unknown>): Promise<ReconcileReport> {
  const report: ReconcileReport = { recoveredSessions: 0, adoptedResults: 0, removed: 0 };
  const doomed = new Set(ctx.index.all('SELECT file FROM doomed_files').map((r) => String(r.file)));
  const remove = async (path: string) => {
    await unlink(path).catch(() => {});
    report.removed++;
  };

  const sessionsDir = join(ctx.root, 'sessions');
  const unlisted = new Set<string>();
  for (const f of await readdir(sessionsDir).catch(() => [] as string[])) {
    const m = SESSION_FILE.exec(f);
    // Doomed: a deleted session's database, journal or sealed segment (ids are never reused).
    if (isTempName(f) || doomed.has(`sessions/${f}`)) await remove(join(sessionsDir, f));
    else if (!m || ctx.index.get('SELECT 1 AS x FROM sessions WHERE id = ?', [m[1]])) continue;
    else unlisted.add(m[1]);
  }
  for (const id of unlisted) {
    await ctx.index.commit({ op: 'session_create', id, title: 'Recovered session', at: Date.now() }, true);
    await openSession(id);
    report.recoveredSessions++;
  }

  const resultsDir = join(ctx.root, 'results');
  for (const f of await readdir(resultsDir).catch(() => [] as string[])) {
    const m = RESULT_FILE.exec(f);
    if (isTempName(f)) await remove(join(resultsDir, f));
    else if (!m || ctx.index.get('SELECT 1 AS x FROM tool_result_blobs WHERE id = ?', [m[1]])) continue;
    else if (doomed.has(`results/${f}`)) await remove(join(resultsDir, f));
    else if (await adoptResult(ctx, m[1], join(resultsDir, f))) report.adoptedResults++;
  }

  // Rows whose file is gone have done their job.
  const done: string[] = [];
  for (const f of doomed) if (!(await stat(join(ctx.root, f)).catch(() => undefined))) done.push(f);
  if (done.length) await ctx.index.commit({ op: 'doomed_clear', files: done }, false);
  return report;
}

/** Lists a result file the index lost, as a result of no known session (its ref still reads). */
async function adoptResult(ctx: StoreContext, refId: string, path: string): Promise<boolean> {
  let text: string;
  let at: number;
  try {
    at = Math.floor((await stat(path)).mtimeMs);
    text = await readFile(path, 'utf8');
  } catch {
    return false;
  }
  const lines = text ? text.split(/\r?\n/).length - (/\r?\n$/.test(text) ? 1 : 0) : 0;
  await ctx.index.commit(
    {
      op: 'blob_put',
      id: refId,
      sessionId: '',
      toolName: 'recovered',
      byteSize: Buffer.byteLength(text),
      lineCount: lines,
      file: `${refId}.txt`,
      at,
    },
    true,
  );
  return true;
}
