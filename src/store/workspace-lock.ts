import { link, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { tempNameFor } from './atomic-file';
import { nodeFs, type StoreFile, type StoreFs } from './store-fs';

/** The lock file's contents (tests read it through this schema too). */
export const LockFile = z.object({ pid: z.number().int(), host: z.string(), id: z.string(), heartbeat: z.number() });
export type LockFile = z.infer<typeof LockFile>;

export interface LockOptions {
  /** A lock whose heartbeat is older than this is stale. Default 30 s. */
  staleMs?: number;
  /** How often the owner refreshes its heartbeat. Default 10 s. */
  heartbeatMs?: number;
  /** Where the lock file is written; tests inject a read-only folder here. Default: node's fs. */
  fs?: StoreFs;
  /**
   * How long to wait for a live holder on this host to let go before working read-only. Default 0. A
   * window reload overlaps the old extension host's shutdown, which releases the lock a moment later.
   */
  waitMs?: number;
}

/**
 * A waiting window's request that the holder hand the lock over (`<lock>.want`), written when the
 * holder is a live process on this host. Fresh for `WANT_FRESH_MS`: a request left by a window that
 * died while waiting is ignored.
 */
export const WantFile = z.object({ id: z.string(), pid: z.number().int(), at: z.number() });
export type WantFile = z.infer<typeof WantFile>;
const WANT_FRESH_MS = 15_000;

/** Who holds the workspace lock, as the non-owner sees it. */
export interface LockHolder {
  pid: number;
  host: string;
  heartbeat: number;
}

/** Rounds of create / take-over before giving up and working read-only (each loses only to another winner). */
const MAX_ATTEMPTS = 200;
/** A take-over marker older than this was left by a window that died while taking over. */
const BREAK_ABANDONED_MS = 10_000;

/**
 * The workspace's single-writer lock: a JSON file with pid, host, a random owner id and a heartbeat
 * timestamp. A lock is stale when its heartbeat is older than `staleMs`, or its pid is dead on this
 * host. Whoever does not get the lock works read-only.
 *
 * Every step is atomic, so any number of windows racing (even on a stale lock) end with one owner:
 * - a lock is created complete, by hard-linking a fully written temp file to the lock path (`link`
 *   fails if the path exists), never by writing in place;
 * - a stale lock is removed by one racer only: the one that creates its take-over marker
 *   (`<path>.break-<hash of the stale content>`, again by `link`). That racer reads the lock again and
 *   removes it only if it is still the very file judged stale (moved to a private name first, then
 *   compared; anything else is put back with `link`, which never overwrites). Stale content never
 *   comes back, so a racer that judged it stale long ago and only now gets the marker finds a
 *   different lock and leaves it alone. Everyone else waits for the new lock to appear;
 * - the heartbeat rewrites the owner's own open file in place, so a resumed former owner only ever
 *   touches its own (by then unlinked) file, never a new owner's lock.
 * Ownership is proven by the id in the file at `path`: `verify()` reads it, and the store calls it
 * before reporting a write durable, so a window frozen past `staleMs` learns it lost the lock before
 * it acknowledges anything. The heartbeat timer is unref'd and stops on `release`.
 */
export class WorkspaceLock {
  private timer: NodeJS.Timeout | undefined;
  private handoffTimer: NodeJS.Timeout | undefined;
  private lost = false;

  private constructor(
    private readonly path: string,
    private readonly id: string,
    /** True when this process acquired the lock. */
    readonly owned: boolean,
    /** The other holder when not owned. */
    readonly holder: LockHolder | undefined,
    private readonly handle: StoreFile | undefined,
  ) {}

  /** Tries to take the lock at `path`. Never rejects for contention: returns a non-owned lock instead. */
  static async acquire(path: string, opts: LockOptions = {}): Promise<WorkspaceLock> {
    const staleMs = opts.staleMs ?? 30_000;
    const heartbeatMs = opts.heartbeatMs ?? 10_000;
    const waitUntil = Date.now() + (opts.waitMs ?? 0);
    const id = randomBytes(8).toString('hex');
    let asked = false;
    const mine: LockFile = { pid: process.pid, host: hostname(), id, heartbeat: Date.now() };
    const tmp = tempNameFor(path);
    // Written and kept open before it is linked: the heartbeat must only ever write to this very file (inode).
    const handle = await (opts.fs ?? nodeFs).open(tmp, 'w');
    try {
      await handle.writeFile(lockText(mine));
    } catch (err) {
      await handle.close().catch(() => {});
      await unlink(tmp).catch(() => {});
      throw err;
    }
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        await linkNew(tmp, path);
        const seen = await readLockText(path);
        if (seen === undefined) continue; // moved or released meanwhile: try to create again
        let current = parseLock(seen);
        if (current !== 'invalid' && current.id === id) {
          // Ours, whether our link made it or a racer that had moved it put it back.
          const lock = new WorkspaceLock(path, id, true, undefined, handle);
          if (await lock.verify()) return lock.startHeartbeat(heartbeatMs);
          continue;
        }
        if (current === 'invalid') {
          // Perhaps a lock written in place by an older version right now: look again before calling it broken.
          await new Promise((r) => setTimeout(r, 100));
          const again = await readLockText(path);
          if (again !== seen) continue;
          current = parseLock(seen);
        }
        if (current !== 'invalid' && !isStale(current, staleMs)) {
          if (current.host === hostname() && Date.now() < waitUntil) {
            // Ask once: a holder that is idle (a browser tab closed on code-server keeps its host for hours) lets go.
            if (!asked) asked = await writeWant(path, { id, pid: process.pid, at: Date.now() });
            await new Promise((r) => setTimeout(r, 250));
            continue;
          }
          await handle.close();
          return new WorkspaceLock(path, id, false, { pid: current.pid, host: current.host, heartbeat: current.heartbeat }, undefined);
        }
        await breakStale(path, seen, tmp, id);
      }
    } catch (err) {
      await handle.close().catch(() => {});
      throw err;
    } finally {
      await unlink(tmp).catch(() => {});
      if (asked) await removeWant(path, id);
    }
    await handle.close();
    const last = parseLock((await readLockText(path)) ?? '');
    const holder = last !== 'invalid' ? { pid: last.pid, host: last.host, heartbeat: last.heartbeat } : undefined;
    return new WorkspaceLock(path, id, false, holder, undefined);
  }

  /** A lock this window does not hold and will not try to take (its folder cannot be written). */
  static notAcquired(): WorkspaceLock {
    return new WorkspaceLock('', '', false, undefined, undefined);
  }

  /** False once this process is known to have lost the lock (a heartbeat or `verify` saw another owner). */
  get stillOwned(): boolean {
    return this.owned && !this.lost;
  }

  /**
   * Reads the lock file and resolves true only when it still names this process. Once false, always
   * false (a taken-over lock is never silently re-taken). Never rejects.
   */
  async verify(): Promise<boolean> {
    if (!this.stillOwned) return false;
    const current = parseLock((await readLockText(this.path).catch(() => undefined)) ?? '');
    if (current === 'invalid' || current.id !== this.id) this.markLost();
    return this.stillOwned;
  }

  /**
   * Watches for another window on this host asking for the lock (`<lock>.want`, checked every
   * `pollMs`). While a fresh request is there, `yieldLock` is asked; once it resolves true (it has
   * saved what it must), the lock is released and this window no longer owns it. Stops on release.
   */
  handOffWhenAsked(yieldLock: () => Promise<boolean>, pollMs = 250): void {
    if (!this.stillOwned || this.handoffTimer) return;
    let asking = false;
    this.handoffTimer = setInterval(() => {
      if (asking || !this.stillOwned) return;
      asking = true;
      void (async () => {
        const want = await readWant(this.path);
        if (!want || want.id === this.id || Math.abs(Date.now() - want.at) > WANT_FRESH_MS) return;
        if (await yieldLock().catch(() => false)) await this.release();
      })().finally(() => (asking = false));
    }, pollMs);
    this.handoffTimer.unref();
  }

  /** Stops the heartbeat and deletes the lock file if it is still ours. Idempotent; never rejects. */
  async release(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    clearInterval(this.handoffTimer);
    this.handoffTimer = undefined;
    await this.handle?.close().catch(() => {});
    if (!this.owned || this.lost) return;
    this.lost = true;
    const text = await readLockText(this.path).catch(() => undefined);
    const current = parseLock(text ?? '');
    if (text !== undefined && current !== 'invalid' && current.id === this.id)
      await removeIfUnchanged(this.path, text, this.id).catch(() => {});
  }

  private markLost(): void {
    this.lost = true;
    clearInterval(this.timer);
    clearInterval(this.handoffTimer);
  }

  private startHeartbeat(ms: number): this {
    this.timer = setInterval(() => void this.beat(), ms);
    this.timer.unref();
    return this;
  }

  private async beat(): Promise<void> {
    if (!(await this.verify()) || !this.handle) return;
    // In place, on our own file: if another window took the lock over meanwhile this writes to the
    // file it unlinked, never to its lock. Same length every time (see lockText), so no torn reads.
    const text = lockText({ pid: process.pid, host: hostname(), id: this.id, heartbeat: Date.now() });
    const buf = Buffer.from(text);
    await this.handle.write(buf, 0, buf.length, 0).catch(() => {});
  }
}

/** Fixed-width JSON (the heartbeat padded) so an in-place rewrite never changes the file's length. */
function lockText(lock: LockFile): string {
  return JSON.stringify(lock).padEnd(160, ' ');
}

/** Creates `path` as a hard link to the complete file `tmp`; false when `path` exists. */
async function linkNew(tmp: string, path: string): Promise<boolean> {
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Removes the stale lock whose content is `seen`, if this caller wins its take-over marker; otherwise
 * waits a moment for the winner. Either way the caller looks at the lock again afterwards.
 */
async function breakStale(path: string, seen: string, tmp: string, id: string): Promise<void> {
  const marker = `${path}.break-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`;
  if (!(await linkNew(tmp, marker))) {
    const st = await stat(marker).catch(() => undefined);
    if (st && Date.now() - st.mtimeMs > BREAK_ABANDONED_MS) await unlink(marker).catch(() => {});
    else await new Promise((r) => setTimeout(r, 10));
    return;
  }
  try {
    if ((await readLockText(path)) === seen) await removeIfUnchanged(path, seen, id);
  } finally {
    await unlink(marker).catch(() => {});
  }
}

/**
 * Removes the lock at `path` only if it still has the content `expected`: moves it to a name only
 * this caller uses (atomic), compares, and puts a different file back (`link` never overwrites a lock
 * created meanwhile; that file's owner then finds out through `verify`).
 */
async function removeIfUnchanged(path: string, expected: string, id: string): Promise<void> {
  const claim = `${path}.claim-${id}`;
  try {
    await rename(path, claim);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = await readLockText(claim);
  if (moved !== expected) await link(claim, path).catch(() => {});
  await unlink(claim).catch(() => {});
}

const wantPathOf = (path: string) => `${path}.want`;

/** Writes this window's hand-over request (complete, by rename); false when it cannot be written. */
async function writeWant(path: string, want: WantFile): Promise<boolean> {
  const tmp = tempNameFor(wantPathOf(path));
  try {
    await writeFile(tmp, JSON.stringify(want));
    await rename(tmp, wantPathOf(path));
    return true;
  } catch {
    await unlink(tmp).catch(() => {});
    return false;
  }
}

/** The pending hand-over request; undefined when there is none or it is not one (the file is untrusted). */
async function readWant(path: string): Promise<WantFile | undefined> {
  try {
    const text = await readFile(wantPathOf(path), 'utf8');
    if (text.length > 1_000) return undefined;
    const r = WantFile.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** Removes this window's request, never another window's. */
async function removeWant(path: string, id: string): Promise<void> {
  if ((await readWant(path))?.id === id) await unlink(wantPathOf(path)).catch(() => {});
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

async function readLockText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return '';
  }
}

function parseLock(text: string): LockFile | 'invalid' {
  try {
    const r = LockFile.safeParse(JSON.parse(text));
    return r.success ? r.data : 'invalid';
  } catch {
    return 'invalid';
  }
}
