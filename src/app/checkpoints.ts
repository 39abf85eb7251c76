/**
 * Per-turn checkpoints: before a turn's first write to a file, its prior content is
 * kept (`TurnCheckpoint`, fed by `checkpointingWorkspace` around the tools' workspace port); a restore
 * (`restoreFiles`) puts every file back as it was before the turn, asking first about files the person
 * changed since. Records are stored with the session by `checkpoint-store.ts`. Pure (no vscode).
 */
import { HeadroomError } from '../common/errors';
import type { WorkspacePort } from '../tools/ports';
import { captureBefore, currentState, putBack, target, type CheckpointRoot } from './checkpoint-files';
import { lineChanges } from '../common/line-changes';
import { beforeText, CHECKPOINT_LIMITS, type Checkpoint, type CheckpointFile } from './checkpoint-record';

/** The checkpoint of the running turn: files are added on their first write. */
export class TurnCheckpoint {
  private record: Checkpoint | undefined;
  private kept = 0;
  private chain: Promise<unknown> = Promise.resolve();

  /**
   * @param turn the stored turn number (asked on the first write: the prompt is stored by then).
   * @param save stores the record (after every write, so a crash keeps what was captured).
   */
  constructor(
    private readonly at: CheckpointRoot,
    private readonly turn: () => Promise<number>,
    private readonly save: (record: Checkpoint) => Promise<void>,
    private readonly onError: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** The record so far; undefined while the turn changed no file. */
  get current(): Checkpoint | undefined {
    return this.record;
  }

  /** Keeps the file's content before its first write in this turn. Never throws. */
  before(p: string): Promise<void> {
    return this.serial(async () => {
      const t = await target(this.at, p);
      this.record ??= { version: 1, turn: await this.turn(), createdAt: this.now(), files: [] };
      if (this.record.files.some((f) => f.path === t.rel)) return;
      const before = await captureBefore(t, CHECKPOINT_LIMITS.turnBytes - this.kept);
      if (before.state === 'content') this.kept += before.size;
      this.record.files.push({ path: t.rel, before });
    });
  }

  /** Notes what the write left in the file (its hash, the lines added and removed), then saves. Never throws. */
  after(p: string): Promise<void> {
    return this.serial(async () => {
      const t = await target(this.at, p);
      const file = this.record?.files.find((f) => f.path === t.rel);
      const now = await currentState(t);
      if (!this.record || !file || !now) return;
      file.after = now;
      const counts = await countLines(file, t.abs);
      file.added = counts?.added;
      file.removed = counts?.removed;
      await this.save(this.record);
    });
  }

  /** The turn ended with the message of seq `throughSeq`: noted in the record, which is saved. Never throws. */
  seal(throughSeq: number): Promise<void> {
    return this.serial(async () => {
      if (!this.record) return;
      this.record.throughSeq = throughSeq;
      await this.save(this.record);
    });
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(work).catch((err: unknown) => this.onError(`checkpoint: ${String(err)}`));
    this.chain = next;
    return next;
  }
}

async function countLines(file: CheckpointFile, abs: string): Promise<{ added: number; removed: number } | undefined> {
  if (file.before.state === 'not_kept' || !file.after || file.after.size > CHECKPOINT_LIMITS.fileBytes) return undefined;
  const { readFile } = await import('node:fs/promises');
  return lineChanges(beforeText(file.before), await readFile(abs, 'utf8'));
}

/** The tools' workspace with every write recorded in `checkpoint` first. */
export function checkpointingWorkspace(base: WorkspacePort, checkpoint: TurnCheckpoint): WorkspacePort {
  return {
    ...base,
    async writeFile(p, content) {
      await checkpoint.before(await base.resolveWriteTarget(p));
      await base.writeFile(p, content);
      await checkpoint.after(await base.resolveWriteTarget(p));
    },
    async applyEdit(p, content) {
      await checkpoint.before(await base.resolveWriteTarget(p));
      await base.applyEdit(p, content);
      await checkpoint.after(await base.resolveWriteTarget(p));
    },
  };
}

/** What a restore would do: files changed since the turn (their content is not what the turn wrote). */
export interface RestorePlan {
  /** Paths whose content the person changed after the turn: overwrite only when they say so. */
  conflicts: string[];
  /** Paths that cannot be restored (not kept: too large, unreadable) with the reason. */
  notRestorable: Array<{ path: string; reason: string }>;
  /** Each restorable path's content hash when checked (undefined: no file), to see a change made since. */
  seen: Map<string, string | undefined>;
}

/**
 * Checks a checkpoint against the workspace. Rejects (changing nothing) when a path of the record
 * is outside the workspace or otherwise not writable: the record is not trusted.
 */
export async function planRestore(at: CheckpointRoot, cp: Checkpoint): Promise<RestorePlan> {
  const plan: RestorePlan = { conflicts: [], notRestorable: [], seen: new Map() };
  for (const file of cp.files) {
    const t = await target(at, file.path, { noLinks: true }).catch((err: unknown) => {
      throw new HeadroomError('invalid_request', `The checkpoint of turn ${cp.turn} names a path Headroom will not write: ${String(err)}`);
    });
    if (file.before.state === 'not_kept') {
      plan.notRestorable.push({ path: file.path, reason: file.before.reason });
      continue;
    }
    const now = await currentState(t);
    plan.seen.set(file.path, now?.sha256);
    const expected = file.after ?? (file.before.state === 'content' ? file.before : undefined);
    if (now?.sha256 !== expected?.sha256) plan.conflicts.push(file.path);
  }
  return plan;
}

/**
 * Puts the files back; `skip` are paths left as they are (conflicts the person kept). Every path is
 * checked before the first write, so a record naming one outside the workspace changes nothing.
 * Returns the paths restored.
 */
export async function restoreFiles(at: CheckpointRoot, cp: Checkpoint, skip: ReadonlySet<string>): Promise<string[]> {
  const todo = [];
  for (const file of cp.files) {
    if (skip.has(file.path) || file.before.state === 'not_kept') continue;
    todo.push({ path: file.path, before: file.before, target: await target(at, file.path, { noLinks: true }) });
  }
  for (const t of todo) await putBack(t.target, t.before);
  return todo.map((t) => t.path);
}

/**
 * The checkpoints of turn `turn` and every later turn not yet restored, as one record: each file goes
 * back to how it was before the earliest of those turns that changed it, and is "changed since" when
 * it is not what the newest of them left. Restoring it is restoring the later turns first.
 */
export function laterTurnsFirst(cps: readonly Checkpoint[], turn: number): Checkpoint | undefined {
  const open = cps.filter((c) => c.turn >= turn && c.restoredAt === undefined).sort((a, b) => a.turn - b.turn);
  if (open[0]?.turn !== turn) return undefined;
  const files = new Map<string, CheckpointFile>();
  for (const cp of open)
    for (const f of cp.files) {
      const earlier = files.get(f.path);
      files.set(f.path, earlier ? { ...earlier, after: f.after } : f);
    }
  return { ...open[0], files: [...files.values()] };
}
