import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { tempNameFor } from './atomic-file';

/** The lock file's contents (tests read it through this schema too). */
export const LockFile = z.object({ pid: z.number().int(), host: z.string(), id: z.string(), heartbeat: z.number() });
export type LockFile = z.infer<typeof LockFile>;

export interface LockOptions {
  /** A lock whose heartbeat is older than this is stale. Default 30 s. */
  staleMs?: number;
  /** How often the owner refreshes its heartbeat. Default 10 s. */
  heartbeatMs?: number;
}

/** Who holds the workspace lock, as the non-owner sees it. */
export interface LockHolder {
  pid: number;
  host: string;
  heartbeat: number;
}

/**
 * The workspace's single-writer lock: a JSON file with pid, host, a random owner id and a heartbeat
 * timestamp. A lock is stale when its heartbeat is older than `staleMs`, or its pid is dead on this
 * host; a stale lock is taken over. Whoever does not get the lock works read-only. The heartbeat
 * timer is unref'd (it never keeps the process alive) and stops on `release`.
 */
export class WorkspaceLock {
  private timer: NodeJS.Timeout | undefined;
  private lost = false;

  private constructor(
    private readonly path: string,
    private readonly id: string,
    /** True when this process holds the lock. */
    readonly owned: boolean,
    /** The other holder when not owned. */
    readonly holder: LockHolder | undefined,
  ) {}

  /** Tries to take the lock at `path`. Never rejects for contention: returns a non-owned lock instead. */
  static async acquire(path: string, opts: LockOptions = {}): Promise<WorkspaceLock> {
    const staleMs = opts.staleMs ?? 30_000;
    const heartbeatMs = opts.heartbeatMs ?? 10_000;
    const id = randomBytes(8).toString('hex');
    const mine = (): LockFile => ({ pid: process.pid, host: hostname(), id, heartbeat: Date.now() });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await writeFile(path, JSON.stringify(mine()), { flag: 'wx' });
        return new WorkspaceLock(path, id, true, undefined).startHeartbeat(heartbeatMs);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let current = await readLock(path);
      if (current === 'invalid') {
        // Possibly a lock being written right now by its creator: look again before calling it broken.
        await new Promise((r) => setTimeout(r, 100));
        current = await readLock(path);
      }
      if (current === 'missing') continue;
      if (current !== 'invalid' && !isStale(current, staleMs)) {
        return new WorkspaceLock(path, id, false, { pid: current.pid, host: current.host, heartbeat: current.heartbeat });
      }
      // Stale or unreadable: take it over with an atomic replace, then check nobody else won the race.
      await replaceLock(path, mine());
      await new Promise((r) => setTimeout(r, 25));
      const after = await readLock(path);
      if (after !== 'missing' && after !== 'invalid' && after.id === id) {
        return new WorkspaceLock(path, id, true, undefined).startHeartbeat(heartbeatMs);
      }
    }
    const last = await readLock(path);
    const holder = last !== 'missing' && last !== 'invalid' ? { pid: last.pid, host: last.host, heartbeat: last.heartbeat } : undefined;
    return new WorkspaceLock(path, id, false, holder);
  }

  /** False once another process took the lock over (this process was frozen past `staleMs`). */
  get stillOwned(): boolean {
    return this.owned && !this.lost;
  }

  /** Stops the heartbeat and deletes the lock file if it is still ours. Idempotent; never rejects. */
  async release(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!this.owned || this.lost) return;
    const current = await readLock(this.path).catch(() => 'invalid' as const);
    if (current !== 'missing' && current !== 'invalid' && current.id === this.id) {
      await unlink(this.path).catch(() => {});
    }
    this.lost = true;
  }

  private startHeartbeat(ms: number): this {
    this.timer = setInterval(() => void this.beat(), ms);
    this.timer.unref();
    return this;
  }

  private async beat(): Promise<void> {
    const current = await readLock(this.path).catch(() => 'invalid' as const);
    if (current !== 'missing' && current !== 'invalid' && current.id !== this.id) {
      this.lost = true;
      clearInterval(this.timer);
      return;
    }
    await replaceLock(this.path, { pid: process.pid, host: hostname(), id: this.id, heartbeat: Date.now() }).catch(() => {});
  }
}

function isStale(lock: LockFile, staleMs: number): boolean {
  if (Date.now() - lock.heartbeat > staleMs) return true;
  if (lock.host !== hostname()) return false;
  if (lock.pid === process.pid) return false;
  try {
    process.kill(lock.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function readLock(path: string): Promise<LockFile | 'missing' | 'invalid'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return 'invalid';
  }
  try {
    const r = LockFile.safeParse(JSON.parse(text));
    return r.success ? r.data : 'invalid';
  } catch {
    return 'invalid';
  }
}

async function replaceLock(path: string, lock: LockFile): Promise<void> {
  const tmp = tempNameFor(path);
  await writeFile(tmp, JSON.stringify(lock));
  await rename(tmp, path).catch(async (err) => {
    await unlink(tmp).catch(() => {});
    throw err;
  });
}
