/**
 * What a turn's checkpoint holds: for every file the turn changed, its content
 * before the turn (raw bytes, so any file restores byte for byte), or that it did not exist, or why
 * it was not kept; and the hash of what the turn left there, so a later change by the person is
 * noticed before a restore overwrites it. Stored with the session as one record per turn; a stored
 * record is hostile input: `parseCheckpoint` validates it (paths are checked again on restore). Pure.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** Bounds of one checkpoint: larger files are noted as not restorable, never silently skipped. */
export const CHECKPOINT_LIMITS = {
  /** A file larger than this before the turn is not kept. */
  fileBytes: 1024 * 1024,
  /** Bytes kept per turn, all files together; past it a file is noted as not kept. */
  turnBytes: 2 * 1024 * 1024,
  /** Checkpoints kept per session (the oldest are dropped). */
  kept: 20,
} as const;

const Sha = z.string().regex(/^[0-9a-f]{64}$/);
const Size = z.number().int().nonnegative();

export const FileBefore = z.discriminatedUnion('state', [
  z.object({ state: z.literal('absent') }),
  z.object({ state: z.literal('content'), base64: z.string().max(4 * CHECKPOINT_LIMITS.fileBytes), sha256: Sha, size: Size }),
  /** Not kept (too large, over the turn's budget, unreadable): this file cannot be restored. */
  z.object({ state: z.literal('not_kept'), reason: z.string().max(500), size: Size.optional() }),
]);
export type FileBefore = z.infer<typeof FileBefore>;

export const CheckpointFile = z.object({
  path: z.string().min(1).max(4096),
  before: FileBefore,
  /** What the turn left in the file (undefined until its write finished). */
  after: z.object({ sha256: Sha, size: Size }).optional(),
  added: Size.optional(),
  removed: Size.optional(),
});
export type CheckpointFile = z.infer<typeof CheckpointFile>;

export const Checkpoint = z.object({
  version: z.literal(1),
  turn: z.number().int().positive(),
  createdAt: z.number(),
  files: z.array(CheckpointFile).max(10_000),
  /** Set once restored (or made moot by the restore of an earlier turn): it cannot be restored again. */
  restoredAt: z.number().optional(),
  /** The seq of its turn's last message, set when the turn ends: where a reopened session shows its card. */
  throughSeq: z.number().int().nonnegative().optional(),
  /**
   * The work ledger ("Work so far") as it was when the turn began, as JSON: a restore rewinds it with
   * the files and the conversation. Validated again (`parseLedgerState`) before it is used.
   */
  ledgerBefore: z.string().max(2_000_000).optional(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

/** What a turn changed, for the panel's "Changes in this turn". */
export interface TurnChanges {
  turn: number;
  files: Array<{ path: string; change: 'created' | 'modified'; added?: number; removed?: number; restorable: boolean }>;
}

export function changesOf(cp: Checkpoint): TurnChanges {
  return {
    turn: cp.turn,
    files: cp.files.map((f) => ({
      path: f.path,
      change: f.before.state === 'absent' ? 'created' : 'modified',
      added: f.added,
      removed: f.removed,
      restorable: f.before.state !== 'not_kept',
    })),
  };
}

/** The session-state key of turn `turn`'s checkpoint, and of the list of turns that have one. */
export const checkpointKey = (turn: number) => `checkpoint_${turn}`;
export const CHECKPOINT_INDEX_KEY = 'checkpoints';

/** A stored checkpoint, validated; undefined for anything that is not one (never throws). */
export function parseCheckpoint(raw: string | undefined): Checkpoint | undefined {
  if (!raw) return undefined;
  try {
    const r = Checkpoint.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** The stored list of turns with a checkpoint, oldest first (never throws). */
export function parseIndex(raw: string | undefined): number[] {
  try {
    const r = z
      .array(z.number().int().positive())
      .max(1000)
      .safeParse(JSON.parse(raw ?? '[]'));
    return r.success ? r.data : [];
  } catch {
    return [];
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The before side as text for a diff: empty for a new file, a note for one not kept or not text. */
export function beforeText(before: FileBefore): string {
  if (before.state === 'absent') return '';
  if (before.state === 'not_kept') return `(not kept: ${before.reason})`;
  const bytes = Buffer.from(before.base64, 'base64');
  if (bytes.includes(0)) return `(binary file, ${bytes.length} bytes)`;
  return bytes.toString('utf8');
}
