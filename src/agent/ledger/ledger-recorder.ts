/**
 * Keeps a session's work ledger up to date from its agent events: a turn start advances the turn,
 * every finished tool call is observed, and the ledger is saved at the end of each turn in which it
 * changed. Plugs into `AgentSession.onDidEvent`; the loop knows nothing about it.
 */
import { errorMessage } from '../../common/errors';
import type { AgentEvent } from '../events';
import { observeToolCall } from './observe-tool';
import type { LedgerState, WorkLedger } from './work-ledger';

/** Where the ledger is saved (the session store). May reject; the recorder reports it through `onError`. */
export type LedgerSave = (state: LedgerState) => Promise<void>;

export interface LedgerRecorderOptions {
  save?: LedgerSave;
  /** Called when a save fails. Must not throw (guarded). */
  onError?: (message: string) => void;
  /** Called after each change (e.g. to refresh the panel). Must not throw (guarded). */
  onChange?: () => void;
}

export class LedgerRecorder {
  private savedVersion: number;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    readonly ledger: WorkLedger,
    private readonly options: LedgerRecorderOptions = {},
  ) {
    this.savedVersion = ledger.version;
  }

  /** Feed every agent event here, in order. Never throws. */
  readonly handle = (event: AgentEvent): void => {
    const before = this.ledger.version;
    // A retry goes on with the failed turn: it is not a turn of its own.
    if (event.type === 'turn_start') {
      if (!event.resumed) this.ledger.startTurn();
    } else if (event.type === 'tool_end') observeToolCall(this.ledger, event.call, event.full ?? event.result);
    else if (event.type === 'turn_end') void this.save();
    if (this.ledger.version !== before) guard(() => this.options.onChange?.());
  };

  /** Saves the ledger if it changed since the last save; resolves when saved (never rejects). */
  save(): Promise<void> {
    const save = this.options.save;
    if (!save || this.ledger.version === this.savedVersion) return this.saving;
    // Counted as saved at once, so a second call before the write completes does not write it twice.
    const version = (this.savedVersion = this.ledger.version);
    const state = this.ledger.toJSON();
    this.saving = this.saving.then(async () => {
      try {
        await save(state);
      } catch (err) {
        if (this.savedVersion === version) this.savedVersion = -1; // try again at the next save
        guard(() => this.options.onError?.(`The work ledger could not be saved: ${errorMessage(err)}`));
      }
    });
    return this.saving;
  }
}

function guard(fn: () => void): void {
  try {
    fn();
  } catch {
    // A listener must not break the recorder.
  }
}
