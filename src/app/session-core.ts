/**
 * The state one session service shares between its parts (store lifecycle, session switching, pins
 * and snapshots, compaction, turn wiring): the store, the current session and its gate, chain and
 * work ledger, the model access, and the events. Only the files of `app/` touch it; the service's
 * public methods are the way in. Pure (no vscode).
 */
import { Disposable, type IDisposable } from '../common/disposable';
import { Emitter } from '../common/emitter';
import { HeadroomError } from '../common/errors';
import type { AgentEvent, AgentSession, DefaultContextGate } from '../agent';
import { SessionGate } from '../agent';
import type { CompactInput } from '../agent/compact-hook';
import { CompactionRunner, type ChainResult, type CompactionChain } from '../agent/compaction';
import { ledgerText, LedgerRecorder, WorkLedger, type LedgerState } from '../agent/ledger';
import type { RulesFileLoader } from '../agent/rules-files';
import { SessionModel } from '../agent/session-model';
import { SpendRecorder, type SpendState } from '../agent/spend-recorder';
import { Calibration } from '../context/calibration';
import { EstimateState } from '../context/confirmed-base';
import type { ModelLimits } from '../context/models';
import type { TokenLedger } from '../context/token-ledger';
import type { Message } from '../providers/types';
import type { HeadroomStore, SessionSummary } from '../store';
import { DeferralPolicy, type ResultPort } from '../tools';
import { createMemoryResultPort } from '../tools/memory-results';
import type { TurnCheckpoint } from './checkpoints';
import type { HostEnvironment } from './host-environment';
import { ModelAccess, settingsModel } from './model-access';

/** What the panel shows about the current session and storage. */
export interface SessionState {
  sessionId: string;
  title: string;
  /** Messages in the context view (what the next request carries). */
  messageCount: number;
  /** Messages in the stored transcript (compaction and clear keep them all). */
  transcriptCount: number;
  storage: 'workspace' | 'read-only' | 'memory';
  storageNote?: string;
  running: boolean;
}

export class SessionCore extends Disposable {
  store: HeadroomStore | undefined;
  storeNote: string | undefined;
  calibration = new Calibration();
  /** The confirmed base and observed estimate errors, kept across the gates of a session. */
  readonly estimates = new EstimateState();
  readonly policy = new DeferralPolicy();
  readonly models: ModelAccess;
  /** The current session's model (stored with it; the settings give the default). */
  model: SessionModel;
  session: AgentSession | undefined;
  sessionSub: { dispose(): void } | undefined;
  summary: SessionSummary | undefined;
  /** The gate follows the configured model: a switch rebuilds it at once. */
  readonly gates: SessionGate;
  chain: CompactionChain | undefined;
  /** The current session's work ledger, fed from its events (issue 14). */
  recorder = new LedgerRecorder(new WorkLedger());
  /** What the current session spent (continued from its stored spend), fed from its events. */
  spend = new SpendRecorder({ model: () => '' });
  /** Summary passes of the current session so far (persisted for the periodic re-summarization). */
  summaryCount = 0;
  /** Compaction records are written in order, one after another. */
  persisting: Promise<void> = Promise.resolve();
  /** The pass the chain reported last, until its report is known and it is recorded (`compaction-wiring.ts`). */
  pendingCompaction: { result: ChainResult; input: CompactInput; model: string } | undefined;
  memoryResults: ResultPort | undefined;
  /** The running (or last) turn's checkpoint: the files it changed, as they were before (`checkpoint-actions.ts`). */
  checkpoint: TurnCheckpoint | undefined;
  /** Rules files are read through one loader per workspace folder (it caches unchanged files). */
  rulesLoader: { root: string; loader: RulesFileLoader } | undefined;

  /** The service's events, fired by its parts; the service exposes them as `onDidEvent`, `onDidChangeState`, `onDidChangePause`. */
  readonly agentEvents = this._register(new Emitter<AgentEvent>());
  readonly stateChanges = this._register(new Emitter<SessionState>());
  readonly pauseChanges = this._register(new Emitter<string | null>());
  /** The work ledger changed (a tool call was recorded, a session was opened). */
  readonly ledgerChanges = this._register(new Emitter<LedgerState>());
  /** What the current session spent changed (a request was billed, a session was opened). */
  readonly spendChanges = this._register(new Emitter<SpendState>());
  /** Runs every compaction pass (manual and the gate's) so it is reported and can be cancelled. */
  readonly compactions = new CompactionRunner((e) => this.agentEvents.fire(e));

  /**
   * @param ledger token counts of the messages (the service owns its worker).
   * @param makeGate builds the gate for the configured limits (`turn-wiring.ts`).
   */
  constructor(
    readonly env: HostEnvironment,
    readonly ledger: TokenLedger,
    makeGate: (core: SessionCore, limits: ModelLimits) => DefaultContextGate,
  ) {
    super();
    this.model = new SessionModel({ defaults: () => settingsModel(env) }, undefined);
    this.models = new ModelAccess(env, () => this.model.current());
    this.gates = new SessionGate((limits) => makeGate(this, limits));
  }

  /** Disposes `child` with the service (the store and its listeners). */
  own<T extends IDisposable>(child: T): T {
    return this._register(child);
  }

  get messages(): readonly Message[] {
    return this.session?.messages ?? [];
  }

  state(): SessionState {
    return {
      sessionId: this.summary?.id ?? 'memory',
      title: this.summary?.title ?? 'New session',
      messageCount: this.session?.messages.length ?? 0,
      transcriptCount: (this.summary && this.store?.sessions.get(this.summary.id)?.messageCount) ?? this.session?.messages.length ?? 0,
      storage: !this.store ? 'memory' : this.store.readOnly ? 'read-only' : 'workspace',
      storageNote: this.storeNote,
      running: this.session?.isRunning ?? false,
    };
  }

  fireState(): void {
    this.stateChanges.fire(this.state());
  }

  warn(message: string): void {
    this.env.warn(message);
  }

  writable(): { store: HeadroomStore; id: string } {
    if (!this.store || !this.summary) throw new HeadroomError('not_found', this.storeNote ?? 'Sessions are not stored in this window.');
    if (this.store.readOnly) throw new HeadroomError('storage', this.storeNote ?? "This window's session storage is read-only.");
    return { store: this.store, id: this.summary.id };
  }

  assertIdle(what: string): void {
    if (this.session?.isRunning) throw new HeadroomError('invalid_request', `Stop the running turn before ${what}.`);
    if (this.compactions.running)
      throw new HeadroomError('invalid_request', `Wait for the compaction to finish, or cancel it, before ${what}.`);
  }

  /** Where offloaded and cleared tool output goes: the session's result store, or memory without one. */
  resultPort(): ResultPort {
    const store = this.store;
    const sessionId = this.summary?.id;
    if (!store || !sessionId || store.readOnly) return (this.memoryResults ??= createMemoryResultPort());
    return store.results.port(sessionId);
  }

  /** The work ledger block the model sees after a compaction ('' while empty); the meter can count it. */
  ledgerBlock(): string {
    return ledgerText(this.recorder.ledger.toJSON());
  }
}
