import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JournaledDb } from './journaled-db';
import { SESSION_MIGRATIONS } from './schema';
import { applySessionOp } from './session-ops';
import { writeError } from './store-fs';
import type { StoreContext } from './store-context';

/**
 * What is kept about an open session's transcript so that a turn needs no query over it: the last
 * seq and turn handed out (turns in flight included) and the message count and bytes.
 */
export interface TranscriptCounters {
  lastSeq: number;
  lastTurn: number;
  /** Whole transcript (sealed segments + live database). */
  count: number;
  bytes: number;
  /** Messages still in the live database (see segments.ts). */
  liveCount: number;
  liveBytes: number;
  /**
   * The last seq held by a sealed segment (0: none). Live rows at or below it are copies left to be
   * dropped (segments.ts), never read and never counted.
   */
  sealedSeq: number;
}

/** One open session database and its counters. */
export interface OpenSession {
  readonly id: string;
  readonly db: JournaledDb;
  readonly counters: TranscriptCounters;
}

/**
 * The session databases currently open: opened lazily, at most `maxOpenSessions` at once (the least
 * recently used is closed, after flushing). `onOpened` runs once per open, before anyone uses it;
 * it must not reject.
 */
export class OpenSessions {
  private readonly open = new Map<string, Promise<OpenSession>>();
  /** The same sessions once loaded, for synchronous reads of their counters (`peek`). */
  private readonly loaded = new Map<string, OpenSession>();

  constructor(
    private readonly ctx: StoreContext,
    private readonly onOpened: (s: OpenSession) => Promise<void>,
  ) {}

  get(id: string): Promise<OpenSession> {
    const p = this.open.get(id);
    if (p) {
      this.open.delete(id);
      this.open.set(id, p); // most recently used last
      return p;
    }
    const loading = this.load(id);
    this.open.set(id, loading);
    loading.then(
      (s) => {
        if (this.open.get(id) === loading) this.loaded.set(id, s);
      },
      () => this.open.delete(id),
    );
    this.evict();
    return loading;
  }

  /** The session if its database is open and loaded (its counters are current); never opens one. */
  peek(id: string): OpenSession | undefined {
    return this.loaded.get(id);
  }

  /**
   * Runs `read` over the session: the open database when it is open, else one opened read-only for
   * this read and closed after it. The set of open sessions is left as it was, so a read over many
   * sessions (a search of the workspace) never closes the ones in use to make room.
   */
  async read<T>(id: string, read: (s: OpenSession) => Promise<T>): Promise<T> {
    const open = this.open.get(id);
    if (open) return read(await open);
    const s = await this.loadUnchecked(id, true);
    try {
      return await read(s);
    } finally {
      await s.db.close();
    }
  }

  /** Closes the session's database if it is open and forgets it (used by delete). */
  async drop(id: string): Promise<void> {
    const p = this.open.get(id);
    this.open.delete(id);
    this.loaded.delete(id);
    if (p)
      await p.then(
        (s) => s.db.close(),
        () => {},
      );
  }

  /** Exports every open session database now. */
  async flush(): Promise<void> {
    for (const p of [...this.open.values()]) await (await p).db.flush();
  }

  /** Closes every open session database (flushing first). Never rejects. */
  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    this.loaded.clear();
    for (const p of all)
      await p.then(
        (s) => s.db.close(),
        () => {},
      );
  }

  /** Path of a session's database file. */
  pathOf(id: string): string {
    return join(this.ctx.root, 'sessions', `${id}.sqlite`);
  }

  /** Rejects with a `storage` HeadroomError (disk full, folder not writable, …) when the files cannot be opened. */
  private async load(id: string): Promise<OpenSession> {
    try {
      return await this.loadUnchecked(id);
    } catch (err) {
      throw writeError(err, this.pathOf(id), 'the change');
    }
  }

  /** `transient`: opened read-only for one read, so nothing is written and `onOpened` (upkeep) does not run. */
  private async loadUnchecked(id: string, transient = false): Promise<OpenSession> {
    await mkdir(join(this.ctx.root, 'sessions'), { recursive: true });
    const db = await JournaledDb.open({
      sql: this.ctx.sql,
      path: this.pathOf(id),
      readOnly: transient || !!this.ctx.readOnlyReason,
      fs: this.ctx.fs,
      migrations: SESSION_MIGRATIONS,
      apply: applySessionOp,
      onProblem: (pr) => this.ctx.report(pr),
      verifyOwner: () => this.ctx.lock.verify(),
      exportDelayMs: this.ctx.limits.exportDelayMs,
      exportMaxWaitMs: this.ctx.limits.exportMaxWaitMs,
    });
    const sealed = db.get(
      'SELECT COALESCE(MAX(last_seq), 0) AS seq, COALESCE(MAX(last_turn), 0) AS turn, COALESCE(SUM(count), 0) AS n, COALESCE(SUM(bytes), 0) AS b FROM segments',
    )!;
    // The live table is small (older messages are sealed away) and turn is indexed, so this stays cheap.
    const live = db.get(
      'SELECT COALESCE(MAX(seq), 0) AS seq, COALESCE(MAX(turn), 0) AS turn, COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS b FROM messages WHERE seq > ?',
      [Number(sealed.seq)],
    )!;
    const session: OpenSession = {
      id,
      db,
      counters: {
        lastSeq: Math.max(Number(live.seq), Number(sealed.seq)),
        lastTurn: Math.max(Number(live.turn), Number(sealed.turn)),
        count: Number(live.n) + Number(sealed.n),
        bytes: Number(live.b) + Number(sealed.b),
        liveCount: Number(live.n),
        liveBytes: Number(live.b),
        sealedSeq: Number(sealed.seq),
      },
    };
    if (!transient) await this.onOpened(session);
    return session;
  }

  private evict(): void {
    while (this.open.size > this.ctx.limits.maxOpenSessions) {
      const [oldId, old] = this.open.entries().next().value!;
      this.open.delete(oldId);
      this.loaded.delete(oldId);
      void old.then(
        (s) => s.db.close(),
        () => {},
      );
    }
  }
}
