/**
 * The one way Headroom opens a workspace file for reading: only regular files, checked before the
 * open (a FIFO, device or socket is never opened, so no thread is left blocked on it), opened without
 * blocking and re-checked on the open handle (a file swapped for a FIFO between the check and the
 * open is still refused), and read up to a byte cap (a 300 MB file or `/dev/zero` costs at most the
 * cap). Callers confine the path to the workspace first (`path-guard.ts`).
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import { HeadroomError } from '../common/errors';

/** What was read: at most `maxBytes` of the file, and the file's full size. */
export interface BoundedRead {
  bytes: Buffer;
  /** Size of the whole file on disk. */
  size: number;
  mtimeMs: number;
  /** True when the file is larger than what was read. */
  truncated: boolean;
}

/** A short name for what a non-regular file is, for messages. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

export function notRegularError(displayPath: string, st: Stats): HeadroomError {
  return new HeadroomError(
    'invalid_tool_input',
    `"${displayPath}" is ${fileKind(st)}, not a regular file; it was not opened. Only regular files can be read.`,
  );
}

// O_NONBLOCK: opening a FIFO that was swapped in after the check returns at once instead of waiting
// for a writer. O_NOFOLLOW: the path given is already resolved, so a symbolic link there is a swap.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Reads at most `maxBytes` of the regular file at `realPath` (a path already resolved with
 * `fs.realpath`). Rejects with a `HeadroomError` ('not_found' or 'invalid_tool_input') when nothing
 * is there or it is not a regular file; never opens a special file.
 */
export async function readRegularFile(realPath: string, maxBytes: number, displayPath: string = realPath): Promise<BoundedRead> {
  const before = await fs.stat(realPath).catch(() => undefined);
  if (!before) throw new HeadroomError('not_found', `File not found: "${displayPath}".`);
  if (!before.isFile()) throw notRegularError(displayPath, before);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(realPath, OPEN_FLAGS);
  } catch (err) {
    throw new HeadroomError(
      'invalid_tool_input',
      `"${displayPath}" could not be opened (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
      { cause: err },
    );
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.ino !== before.ino || st.dev !== before.dev) throw notRegularError(displayPath, st);
    const cap = Math.max(0, Math.min(maxBytes, st.size));
    const bytes = Buffer.alloc(cap);
    let filled = 0;
    while (filled < cap) {
      const { bytesRead } = await handle.read(bytes, filled, cap - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: bytes.subarray(0, filled), size: st.size, mtimeMs: st.mtimeMs, truncated: st.size > filled };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** `bytes` decoded as UTF-8, dropping a character cut in half at the end. */
export function decodeUtf8Prefix(bytes: Buffer, truncated: boolean): string {
  if (!truncated) return bytes.toString('utf8');
  let end = bytes.length;
  // Step back over continuation bytes to the lead byte of the last character, then drop it if incomplete.
  let lead = end - 1;
  while (lead > 0 && lead > end - 4 && (bytes[lead] & 0xc0) === 0x80) lead--;
  if (lead >= 0 && lead < end) {
    const b = bytes[lead];
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (lead + need > end) end = lead;
  }
  return bytes.subarray(0, end).toString('utf8');
}
