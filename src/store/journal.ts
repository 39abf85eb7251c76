import { open, readFile, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { fsyncDir, tempNameFor } from './atomic-file';

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

/**
 * An append-only JSON-lines journal with one writer. All operations run one after another in call
 * order (a private queue), so an append never interleaves with a rewrite. `append` resolves when
 * the line is written, and with `durable` when it is fsynced. Rejections reach the caller of that
 * operation only; the queue keeps going.
 */
export class Journal {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly path: string,
    private handle: FileHandle,
  ) {}

  /** Opens `path` for appending, first cutting it to `validBytes` when a torn tail was found. */
  static async open(path: string, validBytes?: number): Promise<Journal> {
    const h = await open(path, 'a+');
    await fsyncDir(dirname(path)); // a new journal's directory entry must survive a power cut too
    if (validBytes !== undefined) {
      const { size } = await h.stat();
      if (size > validBytes) {
        await h.truncate(validBytes);
        await h.sync();
      }
    }
    return new Journal(path, h);
  }

  append(record: JournalRecord, durable: boolean): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    const line = JSON.stringify(record) + '\n';
    return this.enqueue(async () => {
      await this.handle.write(line);
      if (durable) await this.handle.datasync();
    });
  }

  /** Atomically replaces the journal's contents with `records` (used after an export made the rest redundant). */
  rewrite(records: JournalRecord[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    const text = records.map((r) => JSON.stringify(r) + '\n').join('');
    return this.enqueue(async () => {
      const tmp = tempNameFor(this.path);
      const h = await open(tmp, 'w');
      try {
        await h.writeFile(text);
        await h.sync();
      } finally {
        await h.close();
      }
      await rename(tmp, this.path);
      await fsyncDir(dirname(this.path));
      await this.handle.close();
      this.handle = await open(this.path, 'a+');
    });
  }

  /** Waits for queued work, then closes the file. Idempotent. */
  close(): Promise<void> {
    if (this.closed) return this.queue.then(() => {}, () => {});
    this.closed = true;
    return this.enqueue(() => this.handle.close());
  }

  private enqueue(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
