import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { HeadroomError } from '../common/errors';
import { fsyncDir, writeFileAtomic } from './atomic-file';
import { nodeFs, shortWriteError, writeError, type StoreFile, type StoreFs } from './store-fs';

/** One journaled change: a sequence number, an operation name and its JSON payload. */
export interface JournalRecord {
  seq: number;
  op: string;
  [field: string]: unknown;
}

const RecordSchema = z.looseObject({ seq: z.number().int().positive(), op: z.string().min(1) });

/** What reading a journal found: its good records in order, and a warning per line it had to skip. */
export interface JournalContents {
  records: JournalRecord[];
  warnings: string[];
  /** Byte length of the prefix that ends with the last good line; shorter than the file after a torn write. */
  validBytes: number;
  totalBytes: number;
}

/**
 * Reads a JSON-lines journal. Never throws for bad content: a torn last line (a write cut by a
 * crash) or an unparsable line is skipped with a warning and every other line is kept. A missing
 * file is an empty journal.
 */
export async function readJournal(path: string): Promise<JournalContents> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], warnings: [], validBytes: 0, totalBytes: 0 };
    throw err;
  }
  const records: JournalRecord[] = [];
  const warnings: string[] = [];
  let start = 0;
  let validBytes = 0;
  let lineNo = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl;
    lineNo++;
    const text = buf.subarray(start, end).toString('utf8');
    const complete = nl !== -1;
    if (text.trim()) {
      let parsed: unknown;
      let ok: boolean;
      try {
        parsed = JSON.parse(text);
        ok = complete && RecordSchema.safeParse(parsed).success;
      } catch {
        ok = false;
      }
      if (ok) {
        records.push(parsed as JournalRecord);
        validBytes = end + 1;
      } else {
        warnings.push(
          complete
            ? `journal ${path}: line ${lineNo} is not a valid record and was skipped`
            : `journal ${path}: the last line was cut off by a crash (${end - start} bytes) and was ignored`,
        );
      }
    } else if (complete) {
      validBytes = end + 1;
    }
    start = end + 1;
  }
  return { records, warnings, validBytes, totalBytes: buf.length };
}

/** Called by `Journal.append` before writing (may refuse by throwing) and once the line is on disk. */
export interface AppendHooks {
  /** Runs first, in queue order; a rejection refuses the write (nothing is written). */
  beforeWrite?: () => Promise<void>;
  /** Runs once the line is written (and fsynced when durable), before `append` resolves; a rejection fails the append but leaves the line. */
  afterWrite?: () => Promise<void> | void;
}

/**
 * An append-only JSON-lines journal with one writer. All operations run one after another in call
 * order (a private queue), so an append never interleaves with a rewrite. `append` resolves when
 * the line is written, and with `durable` when it is fsynced. Rejections reach the caller of that
 * operation only; the queue keeps going.
 *
 * A failed append leaves no trace: a short write (disk full), or a write or fsync error, cuts the file
 * back to the end of the last good line before the append rejects, and if that cut fails it is tried
 * again before the next append, which is refused until it succeeds. So a line the caller was told
 * failed is never followed by (or glued to) another one, and is not replayed.
 */
export class Journal {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The file's length up to the end of the last line known good. */
  private goodBytes: number;
  /** True while bytes past `goodBytes` may be in the file (a failed append not yet cut off). */
  private torn = false;
  private handle: StoreFile | undefined;

  private constructor(
    private readonly path: string,
    handle: StoreFile,
    goodBytes: number,
    private readonly fs: StoreFs,
  ) {
    this.handle = handle;
    this.goodBytes = goodBytes;
  }

  /** Opens `path` for appending, first cutting it to `validBytes` when a torn tail was found. */
  static async open(path: string, validBytes?: number, fs: StoreFs = nodeFs): Promise<Journal> {
    const h = await fs.open(path, 'a+');
    try {
      await fsyncDir(dirname(path)); // a new journal's directory entry must survive a power cut too
      let { size } = await h.stat();
      if (validBytes !== undefined && size > validBytes) {
        await h.truncate(validBytes);
        await h.sync();
        size = validBytes;
      }
      return new Journal(path, h, size, fs);
    } catch (err) {
      await h.close().catch(() => {});
      throw err;
    }
  }

  append(record: JournalRecord, durable: boolean, hooks: AppendHooks = {}): Promise<void> {
    if (this.closed) return Promise.reject(new HeadroomError('storage', `journal ${basename(this.path)} is closed`));
    const line = Buffer.from(JSON.stringify(record) + '\n');
    return this.enqueue(async () => {
      await hooks.beforeWrite?.();
      const h = await this.writable();
      try {
        const { bytesWritten } = await h.write(line);
        if (bytesWritten !== line.length) throw shortWriteError(this.path, bytesWritten, line.length);
        if (durable) await h.datasync();
      } catch (err) {
        this.torn = true;
        await this.cutTornTail().catch(() => {}); // retried before the next append
        throw writeError(err, this.path, `the change (${record.op})`);
      }
      this.goodBytes += line.length;
      await hooks.afterWrite?.();
    });
  }

  /**
   * Atomically replaces the journal's contents with the records `keep()` returns when the rewrite
   * runs (after every append queued before it), used after an export made the rest redundant.
   */
  rewrite(keep: () => JournalRecord[]): Promise<void> {
    if (this.closed) return Promise.reject(new HeadroomError('storage', `journal ${basename(this.path)} is closed`));
    return this.enqueue(async () => {
      const text = Buffer.from(
        keep()
          .map((r) => JSON.stringify(r) + '\n')
          .join(''),
      );
      await writeFileAtomic(this.path, text, this.fs);
      // The old handle now points at the replaced file: until the new one is open, appends must fail.
      const old = this.handle;
      this.handle = undefined;
      this.goodBytes = text.length;
      this.torn = false;
      await old?.close().catch(() => {});
      this.handle = await this.fs.open(this.path, 'a+'); // if this fails, the next append tries again
    });
  }

  /** Waits for queued work, then closes the file. Idempotent. */
  close(): Promise<void> {
    if (this.closed)
      return this.queue.then(
        () => {},
        () => {},
      );
    this.closed = true;
    return this.enqueue(async () => {
      await this.handle?.close();
      this.handle = undefined;
    });
  }

  /** The handle to append through, after cutting off what a failed append left. */
  private async writable(): Promise<StoreFile> {
    try {
      this.handle ??= await this.fs.open(this.path, 'a+');
      await this.cutTornTail();
      return this.handle;
    } catch (err) {
      throw writeError(err, this.path, 'the change (the journal could not be made ready for it)');
    }
  }

  private async cutTornTail(): Promise<void> {
    if (!this.torn || !this.handle) return;
    await this.handle.truncate(this.goodBytes);
    await this.handle.datasync();
    this.torn = false;
  }

  private enqueue(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
