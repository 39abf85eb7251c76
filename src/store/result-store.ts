import { mkdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlValue } from 'sql.js';
import { HeadroomError, errorMessage } from '../common/errors';
import { newId } from '../common/ids';
import { writeFileAtomic } from './atomic-file';
import { writeError } from './store-fs';
import { assertId, assertWritable, mb, type StoreContext } from './store-context';
import type { PageOptions, ResultMeta, ResultPage, RetentionReport } from './types';

type Row = Record<string, SqlValue>;
const MAX_PAGE = 5000;

/**
 * Offloaded tool results. Each result's text is its own file under `results/` (written atomically
 * and fsynced before `put` resolves), so storing or deleting one costs the same whatever else is
 * stored; the index database keeps only metadata. Retention keeps the total under a cap, oldest
 * first, never deleting a result the latest snapshot of a live session refers to.
 */
export class ResultStore {
  private readonly cache = new Map<string, string[]>();
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
    const lineCount = splitLines(content).length;
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

  /** The whole text of a result. */
  async read(refId: string): Promise<string> {
    const row = this.row(refId);
    if (row.file == null) return String(row.content ?? '');
    try {
      return await readFile(join(this.ctx.root, 'results', String(row.file)), 'utf8');
    } catch (err) {
      throw new HeadroomError('not_found', `The stored result "${refId}" is missing from disk (${errorMessage(err)}).`);
    }
  }

  /** A page of a result's lines, optionally only the lines matching `grep`, with 1-based line numbers. */
  async page(refId: string, opts: PageOptions = {}): Promise<ResultPage> {
    const offset = opts.offset ?? 0;
    const limit = opts.limit ?? 200;
    if (!Number.isInteger(offset) || offset < 0)
      throw new HeadroomError('invalid_request', `offset must be a non-negative integer, got ${offset}.`);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
      throw new HeadroomError('invalid_request', `limit must be an integer from 1 to ${MAX_PAGE}, got ${limit}.`);
    const lines = await this.lines(refId);
    let numbered = lines.map((text, i) => ({ n: i + 1, text }));
    if (opts.grep) {
      const test = matcher(opts.grep);
      numbered = numbered.filter((l) => test(l.text));
    }
    const page = numbered.slice(offset, offset + limit);
    return {
      refId,
      lines: page,
      total: numbered.length,
      totalLines: lines.length,
      offset,
      hasMore: offset + page.length < numbered.length,
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
        this.cache.delete(String(v.id));
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

  private async lines(refId: string): Promise<string[]> {
    const hit = this.cache.get(refId);
    if (hit) return hit;
    const lines = splitLines(await this.read(refId));
    this.cache.set(refId, lines);
    while (this.cache.size > 2) this.cache.delete(this.cache.keys().next().value!);
    return lines;
  }
}

function splitLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function matcher(grep: string): (line: string) => boolean {
  try {
    const re = new RegExp(grep, 'i');
    return (l) => re.test(l);
  } catch {
    const needle = grep.toLowerCase();
    return (l) => l.toLowerCase().includes(needle);
  }
}

function toMeta(r: Row): ResultMeta {
  return {
    refId: String(r.id),
    sessionId: String(r.session_id),
    toolName: String(r.tool_name),
    byteSize: Number(r.byte_size),
    lineCount: r.line_count == null ? splitLines(String(r.content ?? '')).length : Number(r.line_count),
    createdAt: Number(r.created_at),
  };
}
