import type { Database, SqlJsStatic } from 'sql.js';
import { readFile, rename, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { HeadroomError, errorMessage } from '../common/errors';
import { migrate, userVersion, type Migration } from './db-apply';
import { tuneDatabase } from './db-space';
import { fileSafeIsoTime, type StoreProblem } from './problems';

/**
 * The exported image of a database on disk, as it is opened: read and integrity-checked, or moved
 * aside as `<name>.corrupt-<time>` (and reported) so a fresh database can take its place.
 */

/** What opening an image needs: the file, whether this window may move it, and where problems go. */
export interface ImageOptions {
  sql: SqlJsStatic;
  path: string;
  /** A read-only window leaves a bad file in place (another window owns it). */
  readOnly: boolean;
  onProblem: (p: StoreProblem) => void;
}

/**
 * The image as a database ready for use: loaded (a corrupt one moved aside with its journal, whose
 * changes since that image would leave a hole), tuned (db-space.ts) and migrated to the latest schema.
 * A file written by a newer schema is opened read-only (`readOnly` in the result); `changed`: the
 * database differs from its file (migrated or converted) and should be exported soon.
 */
export async function openImage(
  opts: ImageOptions & { migrations: readonly Migration[] },
): Promise<{ db: Database; readOnly: boolean; changed: boolean }> {
  const { sql, path, onProblem } = opts;
  let db = await loadImage(opts);
  if (!db) {
    db = new sql.Database();
    if (!opts.readOnly) {
      const journalPath = `${path}.journal`;
      const movedTo = await quarantine(journalPath);
      if (movedTo)
        onProblem({
          kind: 'journal',
          file: journalPath,
          movedTo,
          message: `The journal of a corrupt database was moved aside to ${basename(movedTo)}.`,
        });
    }
  }
  const version = userVersion(db);
  const latest = opts.migrations.length;
  let readOnly = opts.readOnly;
  if (version > latest) {
    readOnly = true;
    onProblem({
      kind: 'newer_version',
      file: path,
      message: `${basename(path)} was written by a newer Headroom (schema ${version}, this one knows ${latest}); it is opened read-only.`,
    });
  }
  const converted = tuneDatabase(db, !readOnly);
  if (version < latest) migrate(db, opts.migrations, version);
  return { db, readOnly, changed: converted || version < latest };
}

/** Reads and checks the image; on failure moves it aside and returns undefined. Missing file → empty database. */
export async function loadImage(opts: ImageOptions): Promise<Database | undefined> {
  const { sql, path, readOnly, onProblem } = opts;
  let bytes: Uint8Array;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new Error('not a regular file');
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new sql.Database();
    return fail(`cannot be read: ${errorMessage(err)}`);
  }
  if (bytes.length === 0) return fail('is empty (zero bytes)');
  let db: Database | undefined;
  try {
    db = new sql.Database(bytes);
    const check = db.exec('PRAGMA quick_check');
    const verdict = String(check[0]?.values[0]?.[0] ?? '');
    if (verdict !== 'ok') throw new Error(`integrity check says: ${verdict}`);
    return db;
  } catch (err) {
    db?.close();
    return fail(`is not a readable SQLite database (${errorMessage(err)})`);
  }

  async function fail(why: string): Promise<undefined> {
    if (readOnly) {
      onProblem({
        kind: 'corrupt',
        file: path,
        message: `${basename(path)} ${why}. Another window owns it, so it was left in place and an empty view is shown.`,
      });
      return undefined;
    }
    const movedTo = await quarantine(path);
    onProblem({
      kind: 'corrupt',
      file: path,
      movedTo,
      message: `${basename(path)} ${why}. It was moved aside to ${movedTo ? basename(movedTo) : '(could not move)'} and a fresh one was created.`,
    });
    return undefined;
  }
}

/** Renames `path` to `<path>.corrupt-<time>`; returns the new path, or undefined when there was nothing to move. */
export async function quarantine(path: string): Promise<string | undefined> {
  const movedTo = `${path}.corrupt-${fileSafeIsoTime()}`;
  try {
    await rename(path, movedTo);
    return movedTo;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HeadroomError('storage', `Could not move the corrupt file ${path} aside: ${errorMessage(err)}`, { cause: err });
  }
}
