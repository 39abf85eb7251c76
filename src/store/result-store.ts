import { mkdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlValue } from 'sql.js';
import { HeadroomError, errorMessage } from '../common/errors';
import { newId } from '../common/ids';
import { countLines } from '../tools/admission';
import type { ResultPage, ResultPageOptions, ResultPort } from '../tools/ports';
import { bufferSource, pageSource, type ResultSource } from '../tools/result-port';
import { writeFileAtomic } from './atomic-file';
import { writeError } from './store-fs';
import { assertId, assertWritable, mb, type StoreContext } from './store-context';
import type { ResultMeta, RetentionReport } from './types';

type Row = Record<string, SqlValue>;
/** A page when no limit is given: about what read_result returns by default. */
const DEFAULT_PAGE_BYTES = 4000;

/**
 * Offloaded tool results. Each result's text is its own file under `results/` (written atomically
 * and fsynced before `put` resolves), so storing or deleting one costs the same whatever else is
 * stored; the index database keeps only metadata (byte size, line count). A page reads only its own
 * bytes from the file (`page`). Retention keeps the total under a cap, oldest first, never deleting
 * a result the latest snapshot of a live session refers to.
 */
export class ResultStore {
  private retention: Promise<RetentionReport> | undefined;
  private retentionAgain = false;

  constructor(private readonly ctx: StoreContext) {}

  /**
   * Stores `content` for `sessionId` and resolves with its metadata (`refId`) once it is durable.
   * Throws `not_found` for an unknown session and `invalid_request` for non-text or oversized content.
   */
  async put(sessionId: string, toolName: string, content: string): Promise<ResultMeta> {
    assertId('session', sessionId);
    if (!this.ctx.index.get('SELECT 1 AS x FROM sessions WHERE id = ?', [sessionId])) {
      throw new HeadroomError('not_found', `Unknown session id "${sessionId}".`);
    }
    assertWritable(this.ctx);
    if (typeof toolName !== 'string' || !toolName)
      throw new HeadroomError('invalid_request', 'A stored result needs the name of the tool that produced it.');
    if (typeof content !== 'string') throw new HeadroomError('invalid_request', 'A stored result must be text.');
    const byteSize = Buffer.byteLength(content);
    if (byteSize > this.ctx.limits.maxResultBytes) {
      throw new HeadroomError(
        'invalid_request',
        `The result of "${toolName}" is ${mb(byteSize)}, over the ${mb(this.ctx.limits.maxResultBytes)} limit for one stored result; it was not stored.`,
      );
    }
    const refId = newId('res');
    const file = `${refId}.txt`;
    const dir = join(this.ctx.root, 'results');
    await mkdir(dir, { recursive: true });
    const at = Date.now();
    // Written before the file exists (durable with the blob_put below): a file whose put a crash cut
    // short is then provably garbage, and only such a file is removed at start-up.
    await this.ctx.index.commit({ op: 'blob_intent', id: refId, file, at }, false);
    try {
      await writeFileAtomic(join(dir, file), content, this.ctx.fs);
    } catch (err) {
      throw writeError(err, join(dir, file), `the result of "${toolName}"`);
    }
    const lineCount = countLines(content);
    await this.ctx.index.commit({ op: 'blob_put', id: refId, sessionId, toolName, byteSize, lineCount, file, at }, true);
    void this.enforceRetention().catch((err) =>
      this.ctx.report({ kind: 'export_failed', file: dir, message: `Cleaning old stored results failed: ${errorMessage(err)}` }),
    );
    return { refId, sessionId, toolName, byteSize, lineCount, createdAt: at };
  }

  /** Throws `not_found` for an unknown (or deleted) ref id. */
  getMeta(refId: string): ResultMeta {
    return toMeta(this.row(refId));
  }

  /** Results of one session, oldest first. */
  list(sessionId: string): ResultMeta[] {
    return this.ctx.index.all('SELECT * FROM tool_result_blobs WHERE session_id = ? ORDER BY created_at, rowid', [sessionId]).map(toMeta);
  }

  /** Total bytes of stored results in the workspace. */
  totalBytes(): number {
    return Number(this.ctx.index.get('SELECT COALESCE(SUM(byte_size), 0) AS b FROM tool_result_blobs')!.b);
  }

  /** The whole text of a result (for an editor); `page` reads less. */
  async read(refId: string): Promise<string> {
    const row = this.row(refId);
    if (row.file == null) return String(row.content ?? '');
    try {
      return await readFile(this.fileOf(row), 'utf8');
    } catch (err) {
      throw new HeadroomError('not_found', `The stored result "${refId}" is missing from disk (${errorMessage(err)}).`);
    }
  }

  /**
   * One page of a result with `ResultPort.page` semantics (byte offsets; with grep, matching lines).
   * A byte page reads only its own bytes (plus a few to find character boundaries) from the file.
   * Throws `not_found` for an unknown ref id or a missing file, `invalid_request` for a bad offset or limit.
   */
  async page(refId: string, options: Partial<ResultPageOptions> = {}, signal?: AbortSignal): Promise<ResultPage> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? DEFAULT_PAGE_BYTES;
    if (!Number.isInteger(offset) || offset < 0)
      throw new HeadroomError('invalid_request', `offset must be a non-negative integer, got ${offset}.`);
    if (!(limit >= 1)) throw new HeadroomError('invalid_request', `limit must be at least 1, got ${limit}.`);
    return pageSource(this.source(this.row(refId)), { offset, limit, grep: options.grep }, { signal });
  }

  /**
   * The `ResultPort` of one session: `put` stores (throws as `put` does), `page` resolves to undefined
   * for a ref id that is unknown or whose file is gone.
   */
  port(sessionId: string): ResultPort {
    return {
      put: async ({ toolName, content }) => (await this.put(sessionId, toolName, content)).refId,
      page: async (refId, options, signal) => {
        try {
          return await this.page(refId, options, signal);
        } catch (err) {
          if (err instanceof HeadroomError && err.kind === 'not_found') return undefined;
          throw err;
        }
      },
    };
  }

  /**
   * Deletes the oldest results until the total is under the cap, skipping results referenced by the
   * latest snapshot of a live session and the newest result. Runs one at a time (calls coalesce).
   */
  enforceRetention(): Promise<RetentionReport> {
    if (this.retention) {
      this.retentionAgain = true;
      return this.retention;
    }
    const run = async (): Promise<RetentionReport> => {
      let report: RetentionReport;
      do {
        this.retentionAgain = false;
        report = await this.retentionPass();
      } while (this.retentionAgain);
      return report;
    };
    this.retention = run().finally(() => (this.retention = undefined));
    return this.retention;
  }

  private async retentionPass(): Promise<RetentionReport> {
    const cap = this.ctx.limits.resultCapBytes;
    let total = this.totalBytes();
    const report = { deleted: [] as string[], freedBytes: 0, totalBytes: total, capBytes: cap, overCap: false };
    if (total <= cap) return report;
    if (this.ctx.readOnlyReason || !this.ctx.lock.stillOwned) return { ...report, overCap: true };
    const candidates = this.ctx.index.all(
      `SELECT id, file, byte_size FROM tool_result_blobs
        WHERE id NOT IN (SELECT r.ref_id FROM snapshot_refs r JOIN sessions s ON s.id = r.session_id)
          AND id <> (SELECT id FROM tool_result_blobs ORDER BY created_at DESC, rowid DESC LIMIT 1)
        ORDER BY created_at, rowid`,
    );
    const victims: Row[] = [];
    for (const c of candidates) {
      if (total <= cap) break;
      victims.push(c);
      total -= Number(c.byte_size);
    }
    if (victims.length) {
      await this.ctx.index.commit({ op: 'blob_delete', ids: victims.map((v) => String(v.id)) }, true);
      for (const v of victims) {
        if (v.file != null) await unlink(join(this.ctx.root, 'results', String(v.file))).catch(() => {});
      }
    }
    report.deleted = victims.map((v) => String(v.id));
    report.freedBytes = victims.reduce((s, v) => s + Number(v.byte_size), 0);
    report.totalBytes = total;
    report.overCap = total > cap;
    return report;
  }

  private row(refId: string): Row {
    assertId('result', refId);
    const row = this.ctx.index.get('SELECT * FROM tool_result_blobs WHERE id = ?', [refId]);
    if (!row)
      throw new HeadroomError(
        'not_found',
        `Unknown stored result "${refId}" (it may have been removed by the size cap or with its session).`,
      );
    return row;
  }

  private fileOf(row: Row): string {
    return join(this.ctx.root, 'results', String(row.file));
  }

  /** Reads a result by range through the store's fs seam; a result of schema v1 kept its text in the row. */
  private source(row: Row): ResultSource {
    const toolName = String(row.tool_name);
    if (row.file == null) return bufferSource(Buffer.from(String(row.content ?? ''), 'utf8'), toolName);
    const path = this.fileOf(row);
    const refId = String(row.id);
    return {
      toolName,
      totalBytes: Number(row.byte_size),
      read: async (start, end) => {
        try {
          const file = await this.ctx.fs.open(path, 'r');
          try {
            const buf = Buffer.alloc(end - start);
            let got = 0;
            while (got < buf.length) {
              const { bytesRead } = await file.read(buf, got, buf.length - got, start + got);
              if (bytesRead === 0) throw new Error(`the file ends at byte ${start + got}, before ${end}`);
              got += bytesRead;
            }
            return buf;
          } finally {
            await file.close();
          }
        } catch (err) {
          throw new HeadroomError('not_found', `The stored result "${refId}" is missing from disk (${errorMessage(err)}).`);
        }
      },
    };
  }
}

function toMeta(r: Row): ResultMeta {
  return {
    refId: String(r.id),
    sessionId: String(r.session_id),
    toolName: String(r.tool_name),
    byteSize: Number(r.byte_size),
    lineCount: r.line_count == null ? countLines(String(r.content ?? '')) : Number(r.line_count),
    createdAt: Number(r.created_at),
  };
}
