/**
 * Checkpoints kept with the session (session-state records `checkpoint_<turn>` plus the list of turns
 * that have one, `checkpoints`), at most `CHECKPOINT_LIMITS.kept` of them: the oldest are dropped.
 * Pure (no vscode).
 */
import type { SessionStore } from '../store/session-store';
import { Checkpoint, CHECKPOINT_INDEX_KEY, CHECKPOINT_LIMITS, checkpointKey, parseCheckpoint, parseIndex } from './checkpoint-record';

type StateStore = Pick<SessionStore, 'getState' | 'setState'>;

export class CheckpointStore {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: StateStore,
    private readonly sessionId: string,
  ) {}

  /** Stores (or replaces) a turn's checkpoint; drops the oldest past the limit. */
  save(record: Checkpoint): Promise<void> {
    return this.serial(async () => {
      await this.store.setState(this.sessionId, checkpointKey(record.turn), JSON.stringify(record));
      const turns = await this.turns();
      if (turns.includes(record.turn)) return;
      const next = [...turns, record.turn].sort((a, b) => a - b);
      const dropped = next.splice(0, Math.max(0, next.length - CHECKPOINT_LIMITS.kept));
      await this.store.setState(this.sessionId, CHECKPOINT_INDEX_KEY, JSON.stringify(next));
      // The state table has no delete: a dropped record keeps only its name.
      for (const turn of dropped) await this.store.setState(this.sessionId, checkpointKey(turn), '{}');
    });
  }

  /** The turn's checkpoint, validated; undefined when there is none (or it is damaged). */
  async load(turn: number): Promise<Checkpoint | undefined> {
    await this.chain.catch(() => undefined);
    const cp = parseCheckpoint(await this.store.getState(this.sessionId, checkpointKey(turn)));
    return cp?.turn === turn ? cp : undefined;
  }

  /** Turns with a stored checkpoint, oldest first. */
  async turns(): Promise<number[]> {
    return parseIndex(await this.store.getState(this.sessionId, CHECKPOINT_INDEX_KEY));
  }

  /** Every checkpoint of turn `turn` and later is used up (those turns are no longer in the conversation). */
  async markRestored(turn: number, at = Date.now()): Promise<void> {
    for (const t of (await this.turns()).filter((t) => t >= turn)) {
      const cp = await this.load(t);
      if (cp && cp.restoredAt === undefined) await this.save({ ...cp, restoredAt: at });
    }
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(work);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
