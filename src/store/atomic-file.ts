import { open, rename, unlink } from 'node:fs/promises';
import { nodeFs, type StoreFs } from './store-fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Fsyncs a directory so a rename or unlink inside it survives power loss. Platforms that cannot
 * open a directory (Windows) are tolerated: there the rename itself is the best available.
 */
export async function fsyncDir(dir: string): Promise<void> {
  let h;
  try {
    h = await open(dir, 'r');
    await h.sync();
  } catch {
    // EISDIR/EPERM on Windows: directory fsync is not supported there.
  } finally {
    await h?.close().catch(() => {});
  }
}

/** Name of the temporary sibling used while writing `path`; recognisable so leftovers can be removed. */
export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** True for a leftover temporary file created by `writeFileAtomic`. */
export function isTempName(name: string): boolean {
  return /^\..+\.tmp-\d+-[0-9a-f]{8}$/.test(name);
}

/**
 * Replaces `path` with `data` atomically and durably: write a temp sibling, fsync it, rename it over
 * the target, fsync the directory. A crash at any instant leaves either the old or the new file,
 * never a torn one. Rejects on I/O failure (the temp file is removed, the old file untouched). `data`
 * may be a list of chunks, written one after another (one await each), so a large file made of parts
 * is never first joined into one string or buffer on the caller's thread.
 */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string | readonly Uint8Array[],
  fs: StoreFs = nodeFs,
): Promise<void> {
  const tmp = tempNameFor(path);
  let h;
  try {
    h = await fs.open(tmp, 'w');
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  try {
    // A handle's writeFile writes from its current position, so chunks follow one another.
    if (typeof data === 'string' || data instanceof Uint8Array) await h.writeFile(data);
    else for (const chunk of data) await h.writeFile(chunk);
    await h.sync();
  } catch (err) {
    await h.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await h.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fsyncDir(dirname(path));
}
