/**
 * Which session is current, and its live conversation: create, open (from the stored view, with its
 * counts, ledger, spend, summary counter and model), rename, delete, clear, the session list, and the
 * rolling time window applied live. Switching attaches a fresh `AgentSession`; what the other owners
 * keep per session (the gate, the compaction chain) is reset through `SessionHooks`. Pure (no vscode).
 */
import { AgentSession, storePersistence, type AgentEvent, type AgentSessionOptions, type CompactionReport } from '../agent';
import { Disposable, type IDisposable } from '../common/disposable';
import { Emitter, type Event } from '../common/emitter';
import { HeadroomError } from '../common/errors';
import { adoptLegacyHistory, mayHoldLegacyHistory, withCurrentPins } from '../context/compaction';
import { MODEL_CHOICE_KEY, serializeModelChoice } from '../context/model-choice';
import type { TokenLedger } from '../context/token-ledger';
import { selectWindow } from '../context/turns';
import type { Message } from '../providers/types';
import type { HeadroomStore, SessionSummary, SnapshotInfo } from '../store';
import type { HostEnvironment } from './host-environment';
import type { ModelAccess } from './model-access';
import { beforeClear, clearUndoable, rewindPoints, type RewindPoint } from './rewind-points';
import type { SessionRecords } from './session-records';
import type { SessionRecord, SessionStorage } from './store-lifecycle';

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

/** The sessions of this workspace and the current session's snapshots and rewind points. */
export interface SessionHistory {
  sessions: readonly SessionSummary[];
  /** Snapshots of the current session, any order (the palette's Restore Snapshot… lists them). */
  snapshots: readonly SnapshotInfo[];
  currentSessionId: string | null;
  canUndoCompaction: boolean;
  /** The current session's rewind points (checkpoints, compactions, the last clear, saved snapshots), newest first. */
  timeline: readonly RewindPoint[];
}

/** The live conversation as the other owners use it (its state changes only through its own verbs). */
export type LiveSession = Pick<AgentSession, 'messages' | 'isRunning' | 'prompt' | 'retry' | 'canRetry' | 'replaceMessages' | 'stop'>;

/** What switching sessions asks of the other owners (wired by the session service). */
export interface SessionHooks {
  /** The session being left: its gate and compaction chain go with it. */
  leave(): void;
  /** The session being opened, with what is stored with it. */
  enter(record: SessionRecord): void;
  /** Counts what the next request carries besides the messages (after a session was opened). Never rejects. */
  expectNextRequest(): Promise<void>;
  /** A summary prepared in the background no longer fits the context (cleared). */
  discardPrepared(): void;
  /** Whether a compaction runs. */
  compacting(): boolean;
  /** A turn's gate compacted the context: its report has the figures the pass is recorded with. */
  compacted(report: CompactionReport): void;
  /** The wiring of each turn, asked by the session when the turn starts. */
  readonly turn: Pick<AgentSessionOptions, 'turnConfig' | 'system'>;
}

export interface SessionsDeps {
  readonly env: HostEnvironment;
  readonly storage: SessionStorage;
  readonly records: SessionRecords;
  readonly models: ModelAccess;
  /** Token counts of the messages: seeded from the store on open, counted as messages are stored. */
  readonly ledger: TokenLedger;
  readonly hooks: SessionHooks;
  /** Receives every event of the current session's turns. */
  readonly report: (event: AgentEvent) => void;
  /** Resolves once the service opened the store and a session. */
  readonly ready: () => Promise<void>;
}

export class Sessions extends Disposable {
  private summary: SessionSummary | undefined;
  private session: AgentSession | undefined;
  private subscription: IDisposable | undefined;
  private readonly stateChanges = this._register(new Emitter<SessionState>());
  /** The session was switched or renamed, a turn started or ended, the context changed. */
  readonly onDidChangeState: Event<SessionState> = this.stateChanges.event;

  constructor(private readonly deps: SessionsDeps) {
    super();
  }

  /** The current conversation (undefined only before the service opened a session). */
  get live(): LiveSession | undefined {
    return this.session;
  }

  get messages(): readonly Message[] {
    return this.session?.messages ?? [];
  }

  /** The current session's stored id; undefined while sessions are kept in memory. */
  get id(): string | undefined {
    return this.summary?.id;
  }

  get title(): string | undefined {
    return this.summary?.title;
  }

  state(): SessionState {
    const store = this.deps.storage.store;
    return {
      sessionId: this.summary?.id ?? 'memory',
      title: this.summary?.title ?? 'New session',
      messageCount: this.session?.messages.length ?? 0,
      transcriptCount: (this.summary && store?.sessions.get(this.summary.id)?.messageCount) ?? this.session?.messages.length ?? 0,
      storage: !store ? 'memory' : store.readOnly ? 'read-only' : 'workspace',
      storageNote: this.deps.storage.note,
      running: this.session?.isRunning ?? false,
    };
  }

  /** Tells the listeners the state changed (after a change another owner made to the context). */
  changed(): void {
    this.stateChanges.fire(this.state());
  }

  /** The writable store and the current session's id; rejects with the reason when there is none. */
  writable(): { store: HeadroomStore; id: string } {
    const { store, note } = this.deps.storage;
    if (!store || !this.summary) throw new HeadroomError('not_found', note ?? 'Sessions are not stored in this window.');
    if (store.readOnly) throw new HeadroomError('storage', note ?? "This window's session storage is read-only.");
    return { store, id: this.summary.id };
  }

  /** Rejects while a turn or a compaction runs: `what` cannot happen then. */
  assertIdle(what: string): void {
    if (this.session?.isRunning) throw new HeadroomError('invalid_request', `Stop the running turn before ${what}.`);
    if (this.deps.hooks.compacting())
      throw new HeadroomError('invalid_request', `Wait for the compaction to finish, or cancel it, before ${what}.`);
  }

  stop(): void {
    this.session?.stop();
  }

  /** Renames the current stored session (a failure keeps the old title in the store). */
  async retitle(title: string): Promise<void> {
    const store = this.deps.storage.writable;
    if (!store || !this.summary) return;
    await store.sessions.rename(this.summary.id, title).catch(() => {});
    this.summary = { ...this.summary, title };
  }

  /**
   * The rolling time window, applied live (not only when a session is reopened): messages older than
   * the window leave the context view at a safe cut. The transcript keeps them. Not during a turn.
   */
  applyRollingWindow(): void {
    const windowMs = this.deps.models.contextSettings().rollingWindowMs;
    const session = this.session;
    if (!windowMs || !session || session.isRunning) return;
    const selection = selectWindow(session.messages, { windowMs, now: Date.now() });
    if (selection.dropped > 0) {
      this.deps.env.log.info(
        `rolling window: ${selection.dropped} message(s) older than ${Math.round(windowMs / 60_000)} min left the context`,
      );
      session.replaceMessages(selection.messages);
    }
  }

  list(): SessionSummary[] {
    return this.deps.storage.store?.sessions.list() ?? (this.summary ? [this.summary] : []);
  }

  /** Sessions, the current session's snapshots, and whether a compaction can be undone. */
  async history(): Promise<SessionHistory> {
    await this.deps.ready();
    const store = this.deps.storage.store;
    const id = this.summary?.id;
    const snapshots = store && id ? await store.sessions.listSnapshots(id) : [];
    // Undo works only while the newest change of the context is a compaction (not after a restore or an undo).
    const canUndoCompaction = store && id && !store.readOnly ? await store.sessions.canUndoCompaction(id) : false;
    const timeline = store && id ? await rewindPoints(store, id) : [];
    return { sessions: this.list(), snapshots, currentSessionId: id ?? null, canUndoCompaction, timeline };
  }

  /** Clear: advances the session's clear marker (nothing is deleted); the next request starts empty. */
  async clear(): Promise<void> {
    await this.deps.ready();
    this.assertIdle('clearing the context');
    const store = this.deps.storage.writable;
    if (store && this.summary) await store.sessions.clear(this.summary.id);
    this.deps.hooks.discardPrepared();
    this.session?.replaceMessages([]);
    await this.deps.records.clearLedger();
    this.changed();
  }

  /**
   * Undoes the last clear while nothing came after it: the model gets back the context the clear took
   * away (saved as a restore view; the transcript is untouched). Refused once the conversation went on.
   */
  async undoClear(): Promise<void> {
    await this.deps.ready();
    this.assertIdle('undoing the clear');
    const { store, id } = this.writable();
    const before = (await clearUndoable(store, id)) ? await beforeClear(store, id) : undefined;
    if (!before?.messages.length)
      throw new HeadroomError('invalid_request', 'The clear can no longer be undone: the conversation went on after it.');
    await store.sessions.saveSnapshot(id, {
      kind: 'restore',
      messages: before.messages,
      throughSeq: before.afterSeq,
      description: 'Undo of the clear',
    });
    await this.open(id);
  }

  async create(): Promise<void> {
    if (this.session?.isRunning) throw new HeadroomError('invalid_request', 'Stop the running turn before starting a new session.');
    const store = this.deps.storage.writable;
    const summary = store ? await store.sessions.create() : undefined;
    // A new session starts on the default model (the one last picked) and keeps it from then on.
    this.attach(summary, [], { ledger: undefined, summaryCount: 0, choice: undefined });
    await this.deps.hooks.expectNextRequest();
  }

  /** Opens a stored session; `followSettings` (start-up) gives it the settings' model instead of its own. */
  async open(id: string, opts: { followSettings?: boolean } = {}): Promise<void> {
    if (this.session?.isRunning) throw new HeadroomError('invalid_request', 'Stop the running turn before switching sessions.');
    const store = this.deps.storage.store;
    if (!store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
    const summary = store.sessions.get(id);
    if (!summary) throw new HeadroomError('not_found', `No session ${id}.`);
    const settings = this.deps.models.contextSettings();
    const view = await store.sessions.contextView(id, { rollingWindowMs: settings.rollingWindowMs || undefined });
    // The counts stored with each message: the meter is right at once, nothing is recounted. (A
    // family this version does not know only seeds keys that are never looked up.)
    this.deps.ledger.seed(view.counts);
    const state = await this.deps.storage.record(id);
    if (opts.followSettings) state.choice = undefined;
    let messages = view.messages;
    if (view.snapshot && mayHoldLegacyHistory(messages)) {
      // Compacted before history messages were marked: tell Headroom's summary from a user's paste.
      const transcript = (await store.sessions.transcript(id)).map((e) => e.message);
      messages = adoptLegacyHistory(messages, transcript);
    }
    // Pins added or removed since the view was stored are carried as they are now.
    messages = [
      ...withCurrentPins(
        messages,
        (await store.sessions.pins(id)).map((p) => p.text),
      ),
    ];
    this.attach(summary, messages, state);
    await this.deps.hooks.expectNextRequest();
  }

  async rename(id: string, title: string): Promise<void> {
    const store = this.deps.storage.store;
    if (!store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
    await store.sessions.rename(id, title);
    if (this.summary?.id === id) this.summary = { ...this.summary, title };
    this.changed();
  }

  async delete(id: string): Promise<void> {
    const store = this.deps.storage.store;
    if (!store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
    if (this.summary?.id === id && this.session?.isRunning)
      throw new HeadroomError('invalid_request', 'Stop the running turn before deleting its session.');
    await store.sessions.delete(id);
    if (this.summary?.id === id) {
      const next = store.sessions.list()[0];
      if (next) await this.open(next.id);
      else await this.create();
    }
  }

  private attach(summary: SessionSummary | undefined, messages: Message[], state: SessionRecord): void {
    const { env, storage, records, models, hooks } = this.deps;
    hooks.leave();
    this.subscription?.dispose();
    this.session?.dispose();
    this.summary = summary;
    const sessionId = summary?.id;
    const store = storage.writable;
    const id = store && sessionId;
    models.useSession(state.choice, id ? (c) => store.sessions.setState(id, MODEL_CHOICE_KEY, serializeModelChoice(c)) : undefined);
    hooks.enter(state);
    records.begin(
      { ledger: state.ledger, spend: summary?.spend },
      () => models.target().model,
      id
        ? { ledger: (s) => store.sessions.setState(id, 'ledger', JSON.stringify(s)), spend: (s) => store.sessions.setSpend(id, s) }
        : undefined,
      (m) => env.warn(m),
      (entry) => storage.resultPort(sessionId).put(entry),
    );
    const session = new AgentSession({
      messages,
      system: () => hooks.turn.system(),
      turnConfig: (resumed) => hooks.turn.turnConfig(resumed),
      persistence: id ? storePersistence(store.sessions, id, (m) => this.deps.ledger.count(m, models.limits().family)) : undefined,
    });
    this.session = session;
    this.subscription = session.onDidEvent((e) => {
      records.handle(e);
      if (e.type === 'compaction') hooks.compacted(e.report);
      this.deps.report(e);
    });
    this.changed();
  }
}
