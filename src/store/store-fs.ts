import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { HeadroomError, errorMessage } from '../common/errors';

/** The subset of an open file the store writes through (node's `FileHandle` satisfies it). */
export interface StoreFile {
  /**
   * Writes `buffer` (or `length` bytes of it from `offset`) at `position`, or at the end for a file
   * opened with 'a+', else at the current position. May write fewer bytes than asked.
   */
  write(buffer: Uint8Array, offset?: number, length?: number, position?: number | null): Promise<{ bytesWritten: number }>;
  writeFile(data: Uint8Array | string): Promise<void>;
  /** Reads up to `length` bytes at `position` into `buffer` from `offset`; fewer at the end of the file. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  truncate(len?: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/**
 * Where the store opens the files it writes (journals, database images, result files) and the stored
 * results it pages ('r'). The one seam through which tests inject a full disk, short writes or a
 * read-only file system, and benches count the bytes a page reads; production uses `nodeFs`. Other
 * reads, renames and unlinks go to node directly.
 */
export interface StoreFs {
  open(path: string, flags: 'a+' | 'w' | 'r+' | 'r'): Promise<StoreFile>;
}

export const nodeFs: StoreFs = { open: (path, flags) => open(path, flags) };

/** Why a write failed, in the store's words: the disk is full, the folder cannot be written, or something else. */
export type WriteFailure = 'disk_full' | 'not_writable' | 'io';

export function writeFailureOf(err: unknown): WriteFailure {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' || code === 'ESHORTWRITE') return 'disk_full';
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return 'not_writable';
  if (err instanceof HeadroomError && err.cause) return writeFailureOf(err.cause);
  return 'io';
}

/**
 * A `storage` HeadroomError saying plainly why writing `file` failed and that what was saved before is
 * kept. `what` names the change ("the turn", "the database image").
 */
export function writeError(err: unknown, file: string, what: string): HeadroomError {
  if (err instanceof HeadroomError) return err;
  const name = basename(file);
  switch (writeFailureOf(err)) {
    case 'disk_full':
      return new HeadroomError(
        'storage',
        `The disk is full: ${what} could not be written to ${name} and was not saved. Everything saved before is kept; free some disk space and try again.`,
        { cause: err },
      );
    case 'not_writable':
      return new HeadroomError(
        'storage',
        `Headroom's storage folder cannot be written (${(err as NodeJS.ErrnoException).code}): ${what} was not saved to ${name}. Everything saved before is kept.`,
        { cause: err },
      );
    default:
      return new HeadroomError(
        'storage',
        `Writing ${name} failed (${errorMessage(err)}): ${what} was not saved. Everything saved before is kept.`,
        { cause: err },
      );
  }
}

/** The error a write that stored fewer bytes than asked ends with (a disk that filled up mid-write). */
export function shortWriteError(file: string, wrote: number, wanted: number): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`short write to ${basename(file)}: ${wrote} of ${wanted} bytes`);
  err.code = 'ESHORTWRITE';
  return err;
}
