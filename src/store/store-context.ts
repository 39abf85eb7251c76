import type { SqlJsStatic } from 'sql.js';
import { HeadroomError } from '../common/errors';
import type { JournaledDb } from './journaled-db';
import type { StoreProblem } from './problems';
import type { StoreFs } from './store-fs';
import type { WorkspaceLock } from './workspace-lock';

/** Limits and timings of a store; every field has a default in `openStore`. */
export interface StoreLimits {
  resultCapBytes: number;
  maxMessageBytes: number;
  maxResultBytes: number;
  maxOpenSessions: number;
  exportDelayMs: number;
  exportMaxWaitMs: number;
  /** Older messages are sealed into segment files once the live ones exceed this many bytes. */
  sealLiveBytes: number;
  /** Messages always kept live (never sealed). */
  keepLiveMessages: number;
}

/** What the session and result stores share. Internal to src/store. */
export interface StoreContext {
  root: string;
  sql: SqlJsStatic;
  index: JournaledDb;
  lock: WorkspaceLock;
  /** Where files are opened for writing (a seam for tests). */
  fs: StoreFs;
  limits: StoreLimits;
  readOnlyReason: string | undefined;
  report(p: StoreProblem): void;
}

/** Throws a `storage` HeadroomError when this window may not write. */
export function assertWritable(ctx: StoreContext): void {
  if (ctx.readOnlyReason) throw new HeadroomError('storage', `Headroom storage is read-only: ${ctx.readOnlyReason} Nothing was changed.`);
  if (!ctx.lock.stillOwned) {
    throw new HeadroomError(
      'storage',
      'Headroom storage is read-only: another VS Code window took over this workspace. Nothing was changed.',
    );
  }
}

/** Session and result ids become file names, so only ids of the form `prefix_hex` are accepted. */
export function assertId(kind: string, id: unknown): asserts id is string {
  if (typeof id !== 'string' || !/^[a-z]{2,8}_[0-9a-f]{8,32}$/.test(id)) {
    throw new HeadroomError('not_found', `Unknown ${kind} id ${JSON.stringify(id)}.`);
  }
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
