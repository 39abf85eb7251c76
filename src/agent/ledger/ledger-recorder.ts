/**
 * Keeps a session's work ledger up to date from its agent events: a turn start advances the turn,
 * every finished tool call is observed (with what the turn's watch saw around it), error lines in the
 * model's and the user's words and the model's own checklists are noted, and the ledger is saved at
 * the end of each turn in which it changed. Plugs into `AgentSession.onDidEvent`; the loop knows
 * nothing about it. `watch` gives the turn's tool watch over the same ledger (the repeat guard).
 */
import { errorMessage } from '../../common/errors';
import type { Message } from '../../providers/types';
import type { WorkspacePort } from '../../tools/ports';
import type { AgentEvent } from '../events';
import { checklistIn, errorLinesIn } from './ledger-scan';
import { observeToolCall, type CallFacts } from './observe-tool';
import { WorkWatch, type WorkWatchOptions } from './work-watch';
import type { LedgerState, WorkLedger } from './work-ledger';

/** Where the ledger is saved (the session store). May reject; the recorder reports it through `onError`. */
export type LedgerSave = (state: LedgerState) => Promise<void>;

/** Stores a command's output so the repeat guard can name its ref (the session's result store). May reject. */
export type LedgerKeep = (entry: { toolName: string; toolCallId: string; content: string }) => Promise<string>;

export interface LedgerRecorderOptions {
  save?: LedgerSave;
  /** Stores the output of a command that exited 0 and was not stored already; without it the guard names search_history. */
  keep?: LedgerKeep;
  /** Called when a save fails. Must not throw (guarded). */
  onError?: (message: string) => void;
  /** Called after each change (e.g. to refresh the panel). Must not throw (guarded). */
  onChange?: () => void;
}

/** Who an error line found in words came from, as the ledger block names it. */
const SAID_BY = { user: 'pasted by the user', assistant: 'said by the model' } as const;

export class LedgerRecorder {
  private savedVersion: number;
  private saving: Promise<void> = Promise.resolve();
  private keeping: Promise<unknown> = Promise.resolve();
  private readonly facts = new Map<string, CallFacts>();
  private prompt: string | undefined;

  constructor(
    readonly ledger: WorkLedger,
    private readonly options: LedgerRecorderOptions = {},
  ) {
    this.savedVersion = ledger.version;
  }

  /** Feed every agent event here, in order. Never throws. */
  readonly handle = (event: AgentEvent): void => {
    const before = this.ledger.version;
    try {
      this.record(event);
    } catch {
      // The ledger is a record; a surprising event must not break the turn.
    }
    if (this.ledger.version !== before) guard(() => this.options.onChange?.());
  };

  /** The turn's tool watch over this ledger (repeat guard, files changed by commands and external tools). */
  watch(workspace: Pick<WorkspacePort, 'root' | 'readFile'>, options: WorkWatchOptions = {}): WorkWatch {
    return new WorkWatch(
      { state: () => this.ledger.toJSON(), prompt: () => this.prompt, note: (id, facts) => this.facts.set(id, facts) },
      workspace,
      options,
    );
  }

  /** Starts the ledger over (see `WorkLedger.reset`), saves it and reports the change; resolves when saved. */
  reset(state?: LedgerState): Promise<void> {
    this.facts.clear();
    this.ledger.reset(state);
    guard(() => this.options.onChange?.());
    return this.save();
  }

  /** Saves the ledger if it changed since the last save; resolves when saved (never rejects). */
  async save(): Promise<void> {
    await this.keeping;
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

  private record(event: AgentEvent): void {
    switch (event.type) {
      case 'turn_start':
        // A retry goes on with the failed turn: it is not a turn of its own.
        if (!event.resumed) this.ledger.startTurn();
        this.prompt = firstText(event.prompt);
        break;
      case 'message_end':
        this.words(event.message);
        break;
      case 'tool_end': {
        const facts = this.facts.get(event.call.id);
        this.facts.delete(event.call.id);
        const full = event.full ?? event.result;
        const entry = observeToolCall(this.ledger, event.call, full, facts);
        if (!entry || entry.exitCode !== 0) break;
        if (event.result.refId) this.ledger.attachRef(entry, event.result.refId);
        else this.keep(entry, event.call.id, full);
        break;
      }
      case 'turn_end':
        void this.save();
        break;
    }
  }

  /** Error lines in the user's or the model's words, and the model's own checklist. */
  private words(message: Message): void {
    if (message.role === 'toolResult') return;
    // A prompt's first part is what the person typed; later parts are attached files (mentions).
    const text = message.role === 'user' ? firstText(message) : message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    if (!text) return;
    for (const line of errorLinesIn(text)) this.ledger.recordError(SAID_BY[message.role], line, { seen: true });
    if (message.role === 'assistant') {
      const steps = checklistIn(text);
      if (steps.length) this.ledger.noteChecklist(steps);
    }
  }

  private keep(entry: Parameters<WorkLedger['attachRef']>[0], callId: string, result: Extract<Message, { role: 'toolResult' }>): void {
    const keep = this.options.keep;
    if (!keep) return;
    const content = result.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    this.keeping = this.keeping.then(() =>
      keep({ toolName: 'run_command', toolCallId: callId, content }).then(
        (ref) => this.ledger.attachRef(entry, ref),
        () => undefined, // without a ref the guard points to search_history
      ),
    );
  }
}

function firstText(message: Message): string | undefined {
  const first = message.role === 'user' ? message.content[0] : undefined;
  return first?.type === 'text' ? first.text : undefined;
}

function guard(fn: () => void): void {
  try {
    fn();
  } catch {
    // A listener must not break the recorder.
  }
}
