/**
 * The current session's compactions: its chain (one per session, built on first use), the summary
 * count, the order in which compaction records are written, the runner that reports and cancels
 * every pass, manual compaction (button, command, `/compact focus`), undo of the newest one, and the
 * stored compactions a reopened session shows. Its state changes only through these verbs. Pure (no vscode).
 */
import type { AgentEvent, CompactionReport, ContextGateOptions, ContextUsage, DefaultContextGate } from '../agent';
import type { CompactInput } from '../agent/compact-hook';
import { compactOutput, CompactionRunner, type ChainResult, type CompactionChain } from '../agent/compaction';
import { Disposable } from '../common/disposable';
import { Emitter, type Event } from '../common/emitter';
import { errorMessage, HeadroomError } from '../common/errors';
import { compactionReport, keptTurns, storedCompaction, type StoredCompaction } from '../context/compaction';
import type { ModelLimits, TokenizerFamily } from '../context/models';
import type { TokenLedger } from '../context/token-ledger';
import { restrictedModeRefusal } from '../protocol/restricted-mode';
import type { Message } from '../providers/types';
import { compactionRecord, sessionChain } from './compaction-wiring';
import type { HostEnvironment } from './host-environment';
import type { ModelAccess } from './model-access';
import type { SessionRecords } from './session-records';
import type { Sessions } from './sessions';
import type { SessionStorage } from './store-lifecycle';
import { firstKeptSeq, storedTranscript, type StoredTranscript } from './stored-transcript';

/** The current session's compactions, oldest first, and whether the newest can still be undone. */
export interface CompactionHistory {
  compactions: StoredCompaction[];
  newestUndoable: boolean;
  /** The stored transcript the panel shows instead of the context view (every compaction, not only since the clear). */
  stored?: StoredTranscript;
  /** The session's pins (a receipt's missing item that was pinned says so). */
  pins?: string[];
}

/** What a manual compaction measures and aims with: the session's gate for its model. */
export type ManualGate = Pick<DefaultContextGate, 'measure' | 'tokensOf' | 'compactionTarget' | 'prefix'>;

export interface CompactionsDeps {
  readonly env: HostEnvironment;
  readonly storage: SessionStorage;
  readonly sessions: Pick<Sessions, 'id' | 'live' | 'messages' | 'assertIdle' | 'writable' | 'open' | 'changed'>;
  readonly records: Pick<SessionRecords, 'ledgerBlock' | 'recentlyChanged' | 'addCompaction'>;
  readonly models: ModelAccess;
  /** The session's token counts (the snapshot of each compaction keeps them). */
  readonly ledger: Pick<TokenLedger, 'countExact'>;
  gate(limits: ModelLimits): ManualGate;
  /** Receives `compaction_start` / `compaction_end` of every pass. */
  report(event: AgentEvent): void;
  /** Resolves once the service opened the store and a session. */
  ready(): Promise<void>;
}

export class Compactions extends Disposable {
  private chainNow: CompactionChain | undefined;
  /** Summary passes of the current session so far (persisted for the periodic re-summarization). */
  private summaryCount = 0;
  /** Compaction records are written in order, one after another. */
  private persisting: Promise<void> = Promise.resolve();
  /** The pass the chain reported last, until its report is known and it is recorded (`recordReport`). */
  private pending: { result: ChainResult; view: Message[]; input: CompactInput; model: string; family: TokenizerFamily } | undefined;
  /** Runs every compaction pass (manual and the gate's) so it is reported and can be cancelled. */
  private readonly runner: CompactionRunner;
  private readonly pauseChanges = this._register(new Emitter<string | null>());
  /** The loop breaker paused automatic compaction (its reason) or it resumed (null). */
  readonly onDidChangePause: Event<string | null> = this.pauseChanges.event;

  constructor(private readonly deps: CompactionsDeps) {
    super();
    this.runner = new CompactionRunner((e) => deps.report(e));
  }

  /** Whether a compaction is running. */
  get running(): boolean {
    return this.runner.running;
  }

  /** Whether the last compaction was cancelled (then `compact` resolved undefined because of it). */
  get lastCancelled(): boolean {
    return this.runner.lastOutcome === 'cancelled';
  }

  /** Whether compactions of this session are stored, so the newest can be undone. */
  get canUndo(): boolean {
    return !!this.deps.storage.writable && !!this.deps.sessions.id;
  }

  /** Cancels the running compaction (manual or automatic): the context stays as it was. False when none runs. */
  cancel(): boolean {
    return this.runner.cancel();
  }

  /**
   * Manual compaction: one pass of the chain (clear old results → summary → drop oldest turns) aimed
   * at the compaction target (`context/compaction/target.ts`). Non-destructive: the transcript keeps
   * everything, the compacted view is saved as a snapshot, and it can be undone. A manual pass that
   * reaches its target also resumes automatic compaction paused by the loop breaker.
   */
  async compact(focus?: string): Promise<CompactionReport | undefined> {
    await this.deps.ready();
    const { env, sessions, models } = this.deps;
    sessions.assertIdle('compacting');
    const refusal = restrictedModeRefusal('compact', env.trusted());
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    if (!sessions.live?.messages.length) return undefined;
    await models.releaseKey();
    await models.discoverServerWindow();
    const limits = models.limits();
    const gate = this.deps.gate(limits);
    const view = [...sessions.messages];
    const before = gate.measure(view);
    const input: CompactInput = {
      messages: view,
      tokensOf: (m: Message) => gate.tokensOf(m),
      trigger: 'manual',
      focus,
      effectiveWindow: limits.effectiveWindow,
      contextWindow: limits.contextWindow,
      targetTokens: gate.compactionTarget(view, 'manual'),
      // The agent's last prefix: a summary over it reads the prompt cache, and the provider's own compaction needs it.
      prefix: gate.prefix,
    };
    const chain = this.chain();
    const result = await this.runner.run(input, undefined, (signal) => chain.run(input, signal));
    this.pauseChanges.fire(this.chainNow?.paused?.reason ?? null);
    if (!result) {
      this.pending = undefined; // cancelled or nothing changed: nothing to record
      return undefined;
    }
    const after = gate.measure(result.messages);
    const report = compactionReport(
      { ...result, model: this.summarizerOf(result) },
      {
        trigger: 'manual',
        beforeTokens: before.used,
        afterTokens: after.used,
        beforeMessages: result.beforeMessages,
        afterMessages: result.afterMessages,
        durationMs: result.durationMs,
      },
    );
    this.recordReport(report);
    await this.persisting;
    sessions.live?.replaceMessages(result.messages);
    sessions.changed();
    // Its summary request is billed to the session (compactions in a turn arrive as events).
    this.deps.records.addCompaction(report);
    return report;
  }

  /** Undoes the newest compaction (the store keeps the view before it) and reopens the session on it. */
  async undo(): Promise<void> {
    const { store, id } = this.deps.sessions.writable();
    this.deps.sessions.assertIdle('undoing a compaction');
    await store.sessions.undoLastCompaction(id);
    await this.deps.sessions.open(id);
  }

  /**
   * The current session's stored compactions since its last clear, with their "what left" views (those
   * recorded before the view was stored come without it), for the cards a reopened session shows.
   */
  async history(): Promise<CompactionHistory> {
    await this.deps.ready();
    const store = this.deps.storage.store;
    const id = this.deps.sessions.id;
    if (!store || !id) return { compactions: [], newestUndoable: false };
    // The whole stored transcript is shown, so every compaction is, each where it happened.
    const records = await store.sessions.listCompactions(id);
    const stored = await storedTranscript(store.sessions, id);
    // A compaction from before the last clear is not the context's: it cannot be undone.
    const sinceClear = records.length > 0 && records[0].createdAt > (stored.clear?.clearedAt ?? -Infinity);
    const newestUndoable = sinceClear && !store.readOnly && (await store.sessions.canUndoCompaction(id));
    const pins = (await store.sessions.pins(id)).map((p) => p.text);
    return { compactions: records.reverse().map(storedCompaction), newestUndoable, stored, pins };
  }

  /** The gate's way to compact and prepare, through this session's chain and the runner. */
  gateHooks(): Pick<ContextGateOptions, 'compact' | 'prepare'> {
    const chain = this.chain();
    return {
      compact: (input, signal) =>
        this.runner.run(input, signal, (s) => chain.run(input, s)).then((r) => r && { ...compactOutput(r), model: this.summarizerOf(r) }),
      prepare: (input) => chain.prepare(input),
    };
  }

  /**
   * Lifts a pause of automatic compaction whose cause is gone (another window, or a context back below
   * the note threshold) and tells the panel. Called with the meter's figure after the window was asked
   * for and after each turn.
   */
  liftResolvedPause(usage: ContextUsage): void {
    const quietBelow = this.deps.models.contextSettings().thresholds.note;
    if (!this.chainNow?.liftPause({ effectiveWindow: usage.effectiveWindow, ratio: usage.ratio, quietBelow })) return;
    this.deps.env.log.info('automatic compaction resumed: the context window or the context changed since it was paused');
    this.pauseChanges.fire(null);
  }

  /** A summary prepared in the background no longer fits the context (cleared, edited). */
  discardPrepared(): void {
    this.chainNow?.discardPrepared();
  }

  /** The session is left: its chain (loop breaker, background work) goes with it. */
  leave(): void {
    this.chainNow?.discardPrepared();
    this.chainNow = undefined;
    this.pending = undefined;
    this.pauseChanges.fire(null);
  }

  /** The session opened has made `summaryCount` summary passes so far. */
  enter(summaryCount: number): void {
    this.summaryCount = summaryCount;
  }

  private chain(): CompactionChain {
    if (this.chainNow) return this.chainNow;
    const { env, storage, sessions } = this.deps;
    const store = storage.store;
    const sessionId = sessions.id;
    this.chainNow = sessionChain({
      env,
      models: this.deps.models,
      records: this.deps.records,
      store,
      sessionId,
      results: storage.resultPort(sessionId),
      summaryCount: this.summaryCount,
      onSummaryCount: (n) => {
        this.summaryCount = n;
        if (store && sessionId && !store.readOnly) {
          store.sessions
            .setState(sessionId, 'summary_count', String(n))
            .catch((e) => env.log.warn(`summary counter not saved: ${errorMessage(e)}`));
        }
      },
      onReport: (r, input, model) => this.record(r, input, model),
      onPause: (reason) => this.pauseChanges.fire(reason),
    });
    return this.chainNow;
  }

  /** The chain reported a pass: kept until its report (the whole context's figures) is known. */
  /** The summarizer's model of pass `r`, as its record keeps it (the live card prices the summary at it too). */
  private summarizerOf(r: ChainResult): string | undefined {
    return this.pending?.result === r ? this.pending.model : undefined;
  }

  private record(r: ChainResult, input: CompactInput, model: string): void {
    this.deps.env.log.info(
      `compaction (${r.trigger}): ${r.beforeTokens} → ${r.afterTokens} message tokens, ${r.strategies.join(' + ')}, ${r.durationMs} ms${r.notes.length ? `; ${r.notes.join('; ')}` : ''}`,
    );
    // The tokenizer of the model the pass ran for: the snapshot's counts are in it.
    // The compacted view as it is now: the session goes on appending to the array it was given (a
    // turn's compaction is followed by the rest of the turn before the report is persisted).
    this.pending = { result: r, view: [...r.messages], input, model, family: this.deps.models.limits().family };
  }

  /**
   * Persists the pass the chain reported last, in order, with `report`'s figures (the whole context
   * before and after, as the live card shows them, so a reopened card says the same). Called with the
   * report of a turn's compaction event or of a manual compaction. A cancelled pass is discarded by
   * the runner, so nothing of it is kept. Never throws.
   */
  recordReport(report: CompactionReport): void {
    const pending = this.pending;
    this.pending = undefined;
    const { env, storage, sessions } = this.deps;
    const store = storage.store;
    const id = sessions.id;
    if (!pending || !store || !id || store.readOnly || this.runner.aborting) return;
    const { result, view, input, model, family } = pending;
    const r = { ...result, messages: view };
    this.persisting = this.persisting.then(async () => {
      try {
        // The worker's counts of the compacted view (memoized: mostly lookups), kept with the snapshot.
        const counts = await Promise.all(r.messages.map((m) => this.deps.ledger.countExact(m, family)));
        // Where the live chat put its divider: above the first turn the pass kept verbatim.
        const kept = await firstKeptSeq(store.sessions, id, keptTurns(r.messages));
        await store.sessions.recordCompaction(id, { ...compactionRecord(r, input, model, report, counts), firstKeptSeq: kept });
      } catch (err) {
        env.warn(`The compaction could not be saved: ${errorMessage(err)}`);
      }
    });
  }
}
