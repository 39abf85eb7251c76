import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { HeadroomError, errorMessage } from '../common/errors';
import type { Message } from '../providers/types';
import { writeFileAtomic } from './atomic-file';
import type { JournaledDb } from './journaled-db';
import { asMessage } from './message-schema';
import type { StoreContext } from './store-context';
import type { StoredCount } from './types';

/**
 * Snapshot files: the messages of each saved snapshot (and the token count each was stored with), one
 * immutable JSON file per snapshot (`sessions/<session>.snap-<snapshot>.json`), written before the
 * journal record that lists it. The live database keeps only each snapshot's row (kind, times, sizes,
 * the file's name), so its size — and the time of every export, which copies the whole database on the
 * extension host — stays flat however many compactions a session went through; a snapshot's messages
 * are read only when it is opened (the resume view, a restore, an undo). Files are deleted only with
 * their session. The file is read back as hostile input: messages are checked, counts validated.
 */

/** One message's stored count in a snapshot file (null: none was stored). */
const CountSchema = z
  .object({
    hash: z.string(),
    family: z.string(),
    tokens: z.number().int().nonnegative(),
    exact: z.boolean(),
    contentClass: z.string().optional(),
    repetitive: z.boolean().optional(),
  })
  .nullable();
export const SnapshotCountsSchema = z.array(CountSchema);

export interface SnapshotBody {
  messages: Message[];
  /** Parallel to `messages`; absent for snapshots saved without counts. */
  counts?: Array<StoredCount | null>;
}

export function snapshotFileName(sessionId: string, snapshotId: string): string {
  return `${sessionId}.snap-${snapshotId}.json`;
}

/** Writes a snapshot's body (`messagesJson`: its messages already as JSON) durably. */
export async function writeSnapshotFile(
  ctx: StoreContext,
  file: string,
  messagesJson: string,
  counts: ReadonlyArray<StoredCount | null> | undefined,
): Promise<void> {
  const body = `{"messages":${messagesJson},"counts":${counts ? JSON.stringify(counts) : 'null'}}\n`;
  await writeFileAtomic(join(ctx.root, 'sessions', file), body, ctx.fs);
}

/** Reads a snapshot file back; throws `storage` when it is missing or not a snapshot. */
export async function readSnapshotFile(ctx: StoreContext, file: string): Promise<SnapshotBody> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(ctx.root, 'sessions', file), 'utf8'));
  } catch (err) {
    throw new HeadroomError('storage', `The snapshot file ${file} cannot be read: ${errorMessage(err)}`, { cause: err });
  }
  const body = raw as { messages?: unknown; counts?: unknown };
  if (typeof raw !== 'object' || raw === null || !Array.isArray(body.messages))
    throw new HeadroomError('storage', `The snapshot file ${file} holds no messages.`);
  const messages = body.messages.map(asMessage);
  const counts = SnapshotCountsSchema.safeParse(body.counts);
  // Counts that do not match the messages are dropped: the meter then counts those messages again.
  return counts.success && counts.data.length === messages.length ? { messages, counts: counts.data } : { messages };
}

/** The snapshot files a session database lists. */
export function snapshotFilesOf(db: JournaledDb): string[] {
  return db.all('SELECT file FROM snapshots WHERE file IS NOT NULL').map((r) => String(r.file));
}
