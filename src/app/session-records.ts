/**
 * What the current session keeps besides its messages, fed from its agent events: the work ledger
 * ("Work so far", the block the model sees after a compaction) and what it spent. Each session
 * opened starts them from what is stored with it. Pure (no vscode).
 */
import type { AgentEvent, CompactionReport } from '../agent';
import {
  ledgerText,
  LedgerRecorder,
  WorkLedger,
  type LedgerKeep,
  type LedgerState,
  type WorkWatch,
  type WorkWatchOptions,
} from '../agent/ledger';
import type { CacheRequestRecord } from '../context/cache-lifetime';
import { SpendRecorder, type SpendState } from '../agent/spend-recorder';
import { Disposable } from '../common/disposable';
import { Emitter, type Event } from '../common/emitter';
import type { SessionSpend } from '../context/cost';

/** Where a stored session's records are saved; absent when sessions are not stored (or read-only). */
export interface RecordsSave {
  ledger(state: LedgerState): Promise<void>;
  spend(spend: SessionSpend): Promise<void>;
}

export class SessionRecords extends Disposable {
  private recorder = new LedgerRecorder(new WorkLedger());
  private spending = new SpendRecorder({ model: () => '' });
  private readonly ledgerChanges = this._register(new Emitter<LedgerState>());
  private readonly spendChanges = this._register(new Emitter<SpendState>());
  /** The work ledger changed (a tool call was recorded, a session was opened). */
  readonly onDidChangeLedger: Event<LedgerState> = this.ledgerChanges.event;
  /** What the session spent changed (a request was billed, another session was opened). */
  readonly onDidChangeSpend: Event<SpendState> = this.spendChanges.event;

  /**
   * Starts the records of the session being opened from what is stored with it.
   * @param model the session's model, whose prices a compaction summary is billed at.
   * @param keep stores a passing command's output, so the repeat guard can name it by ref.
   */
  begin(
    stored: { ledger: LedgerState | undefined; spend: SessionSpend | undefined },
    model: () => string,
    save: RecordsSave | undefined,
    warn: (m: string) => void,
    keep?: LedgerKeep,
  ): void {
    const recorder = new LedgerRecorder(new WorkLedger(stored.ledger), {
      save: save && ((s) => save.ledger(s)),
      keep,
      onError: warn,
      onChange: () => this.ledgerChanges.fire(recorder.ledger.toJSON()),
    });
    this.recorder = recorder;
    this.ledgerChanges.fire(recorder.ledger.toJSON());
    this.spending = new SpendRecorder({
      seed: stored.spend,
      model,
      save: save && ((s) => save.spend(s)),
      onError: warn,
      onChange: (state) => this.spendChanges.fire(state),
    });
    this.spendChanges.fire(this.spending.state);
  }

  /** Feed every agent event of the current session here, in order. Never throws. */
  handle(event: AgentEvent): void {
    this.recorder.handle(event);
    this.spending.handle(event);
  }

  /** The turn's tool watch over the ledger: the repeat guard, and the files commands and external tools change. */
  watch(workspace: Parameters<LedgerRecorder['watch']>[0], options?: WorkWatchOptions): WorkWatch {
    return this.recorder.watch(workspace, options);
  }

  /**
   * The context was cleared: "Work so far" starts over with it (saved), so neither the panel nor the
   * block a later compaction hands the model brings back what the clear removed.
   */
  clearLedger(): Promise<void> {
    return this.recorder.reset();
  }

  /** The current session's recent requests as the cache saw them: what the cache lifetime is chosen from. */
  cacheHistory(): readonly CacheRequestRecord[] {
    return this.spending.cacheHistory();
  }

  /** The current session's work ledger ("Work so far"). */
  ledger(): LedgerState {
    return this.recorder.ledger.toJSON();
  }

  /** What the current session spent so far (its stored spend included) and its last turn's dollars. */
  spend(): SpendState {
    return this.spending.state;
  }

  /** The work ledger block the model sees after a compaction ('' while empty); the meter can count it. */
  ledgerBlock(): string {
    return ledgerText(this.recorder.ledger.toJSON());
  }

  /** The files the session changed most recently (what a compaction re-reads into the context). */
  recentlyChanged(): string[] {
    return this.recorder.ledger.recentlyChanged();
  }

  /** A manual compaction's summary request is billed to the session (compactions in a turn arrive as events). */
  addCompaction(report: CompactionReport): void {
    this.spending.addCompaction(report);
  }

  /** Saves both; resolves when saved (never rejects). */
  async save(): Promise<void> {
    await Promise.all([this.recorder.save(), this.spending.save()]);
  }
}
