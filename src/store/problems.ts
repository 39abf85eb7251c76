/**
 * Something the store hit that the user should hear about. The store never throws these at the
 * caller's unrelated operations; it reports them (returned from open, and through `onDidReportProblem`)
 * and keeps working.
 * - `corrupt`: a file failed to open; it was moved aside to `movedTo` and a fresh one created.
 * - `journal`: a journal line was torn or invalid and was skipped (earlier and later lines kept).
 * - `export_failed`: writing a database file failed; the journal still holds the changes, retried later.
 * - `newer_version`: the file was written by a newer Headroom; it is opened read-only.
 * - `read_only`: another window holds the workspace lock (or took it over); writes are rejected.
 * - `recovered`: files the index did not list (it was missing or damaged) were listed again.
 * - `disk_full` / `not_writable`: saving failed because the disk is full or the folder cannot be
 *   written; what was saved before is kept, and the failed change was not saved.
 */
export interface StoreProblem {
  kind: 'corrupt' | 'journal' | 'export_failed' | 'newer_version' | 'read_only' | 'recovered' | 'disk_full' | 'not_writable';
  file: string;
  message: string;
  movedTo?: string;
}

/** A timestamp that is safe in file names on every platform: `2026-11-22T10-14-47-123Z`. */
export function fileSafeIsoTime(d = new Date()): string {
  return d.toISOString().replace(/[:.]/g, '-');
}
