/**
 * The file side of checkpoints: reading a file's bytes before a turn changes it, hashing what the turn
 * left, and putting the old bytes back. Every path, also one read from a stored checkpoint, goes
 * through the write-path guard (`tools/path-guard.ts`): outside the workspace, through a link that
 * leads out, or at a special file, it is refused. Pure node (no vscode).
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../common/errors';
import { resolveWriteTarget, type WriteTarget } from '../tools/path-guard';
import { CHECKPOINT_LIMITS, sha256, type FileBefore } from './checkpoint-record';

/** A workspace root and its real path (links resolved), as the guard needs them. */
export interface CheckpointRoot {
  root: string;
  realRoot: () => Promise<string>;
}

export function checkpointRoot(root: string): CheckpointRoot {
  let real: Promise<string> | undefined;
  return { root, realRoot: () => (real ??= fs.realpath(root).catch(() => root)) };
}

/**
 * Where a write to `p` lands (rejects with a `HeadroomError` for a path outside the workspace).
 * `noLinks`: a link in any component is refused (what a restore writes through).
 */
export async function target(at: CheckpointRoot, p: string, opts: { noLinks?: boolean } = {}): Promise<WriteTarget> {
  return resolveWriteTarget(at.root, await at.realRoot(), p, opts);
}

/**
 * The file's content before a change, within `budget` bytes (what the turn may still keep). Never
 * throws for a file it cannot keep: that is noted with the reason.
 */
export async function captureBefore(t: WriteTarget, budget: number): Promise<FileBefore> {
  if (!t.exists) return { state: 'absent' };
  try {
    const st = await fs.stat(t.abs);
    if (!st.isFile()) return { state: 'not_kept', reason: 'not a regular file', size: st.size };
    if (st.size > CHECKPOINT_LIMITS.fileBytes)
      return { state: 'not_kept', reason: `larger than ${CHECKPOINT_LIMITS.fileBytes / 1024 / 1024} MB`, size: st.size };
    if (st.size > budget) return { state: 'not_kept', reason: "over this turn's checkpoint budget", size: st.size };
    const bytes = await fs.readFile(t.abs);
    return { state: 'content', base64: bytes.toString('base64'), sha256: sha256(bytes), size: bytes.length };
  } catch (err) {
    return { state: 'not_kept', reason: `unreadable: ${errorMessage(err)}`.slice(0, 200) };
  }
}

/** The hash and size of the file now; undefined when nothing (or no regular file) is there. */
export async function currentState(t: WriteTarget): Promise<{ sha256: string; size: number } | undefined> {
  if (!t.exists) return undefined;
  const st = await fs.stat(t.abs).catch(() => undefined);
  if (!st?.isFile()) return undefined;
  // A file too large to have been written by a tool in one piece is simply "different".
  if (st.size > 64 * 1024 * 1024) return { sha256: '', size: st.size };
  const bytes = await fs.readFile(t.abs);
  return { sha256: sha256(bytes), size: bytes.length };
}

// The target is resolved: a link appearing there since is a swap, and a FIFO must not block.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Puts `before` back at the resolved target: the old bytes, or no file for one the turn created. */
export async function putBack(t: WriteTarget, before: Exclude<FileBefore, { state: 'not_kept' }>): Promise<void> {
  if (before.state === 'absent') {
    if (!t.exists) return;
    const st = await fs.lstat(t.abs);
    if (st.isFile()) await fs.unlink(t.abs);
    return;
  }
  await fs.mkdir(path.dirname(t.abs), { recursive: true });
  const handle = await fs.open(t.abs, WRITE_FLAGS, 0o666);
  try {
    await handle.writeFile(Buffer.from(before.base64, 'base64'));
  } finally {
    await handle.close();
  }
}
