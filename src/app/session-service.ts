/**
 * The running chat, without the editor: one AgentSession wired to the store, the provider from the
 * settings and the released key, the tools and the context gate, all reached through the
 * host-environment port (`host-environment.ts`). The panel and the commands call its actions (through
 * `platform/session-host.ts`); it reports through `onDidEvent` (agent events), `onDidChangeState`
 * (session switched, store problems) and `onDidChangePause`. Owns nothing visual. Pure (no vscode).
 *
 * Its parts, one file each: `store-lifecycle.ts`, `session-switching.ts`, `pins-snapshots.ts`,
 * `manual-compaction.ts`, `compaction-wiring.ts`, `turn-wiring.ts`, `model-access.ts`, over the shared
 * state of `session-core.ts`.
 */
import type { AgentEvent, CompactionReport } from '../agent';
import { refreshOnExactCounts } from '../agent/exact-count-refresh';
import type { LedgerState } from '../agent/ledger';
import type { SpendState } from '../agent/spend-recorder';
import { Disposable } from '../common/disposable';
import type { Event } from '../common/emitter';
import { errorMessage, HeadroomError } from '../common/errors';
import type { ModelChoice } from '../context/model-choice';
import type { ThinkingLimits } from '../context/thinking';
import { createHistorySearchPort } from '../tools/history-port';
import { messageText, seqOfRef, type HistorySearchResult } from '../tools/history-search';
import { historySource, transcriptMessage } from './turn-wiring';
import { TokenLedger } from '../context/token-ledger';
import { TokenWorkerClient } from '../context/token-worker-client';
import type { Mention, MentionOption } from '../protocol/mentions';
import { restrictedModeRefusal } from '../protocol/restricted-mode';
import type { Message } from '../providers/types';
import type { ResultMeta, SessionSummary, SnapshotInfo } from '../store';
import type { HostEnvironment } from './host-environment';
import * as checkpoints from './checkpoint-actions';
import { compactNow } from './manual-compaction';
import { promptMessage, type PromptImage } from './prompt-message';
import type { ConnectionResult } from '../providers/connection-test';
import { mentionMessage, searchMentions } from './mention-message';
import { dropLastTurn, promptTitle, UNTITLED } from './resend-prompt';
import * as keep from './pins-snapshots';
import { SessionCore, type SessionState } from './session-core';
import * as sessions from './session-switching';
import { openSessionStore, saveCalibration } from './store-lifecycle';
import { expectNextRequest, makeGate } from './turn-wiring';

export type { SessionState } from './session-core';

export class SessionService extends Disposable {
  private readonly core: SessionCore;
  private readonly worker: TokenWorkerClient;
  private ready: Promise<void> | undefined;

  readonly onDidEvent: Event<AgentEvent>;
  readonly onDidChangeState: Event<SessionState>;
  /** The loop breaker paused automatic compaction (its reason) or it resumed (null). */
  readonly onDidChangePause: Event<string | null>;
  /** The work ledger changed (a tool call was recorded, a session was opened). */
  readonly onDidChangeLedger: Event<LedgerState>;
  /** What the session spent changed (a request was billed, another session was opened). */
  readonly onDidChangeSpend: Event<SpendState>;

  constructor(env: HostEnvironment) {
    super();
    this.worker = this._register(
      new TokenWorkerClient({
        workerPath: env.assets.tokenWorkerPath,
        onError: (e) => env.log.warn(`tokenizer worker: ${errorMessage(e)}; using byte estimates`),
      }),
    );
    const core = (this.core = this._register(new SessionCore(env, new TokenLedger(this.worker), makeGate)));
    this.onDidEvent = core.agentEvents.event;
    this.onDidChangeState = core.stateChanges.event;
    this.onDidChangePause = core.pauseChanges.event;
    this.onDidChangeLedger = core.ledgerChanges.event;
    this.onDidChangeSpend = core.spendChanges.event;
    // The exact count replaces the estimate in the meter as soon as it arrives (the gate reads the ledger anyway).
    this._register(
      refreshOnExactCounts(
        core.ledger.onDidCount,
        () => (core.session ? this.measure() : undefined),
        (usage) => core.agentEvents.fire({ type: 'context_usage', usage }),
      ),
    );
  }

  /** Opens the store and the latest session (or a new one). Safe to call repeatedly. */
  init(): Promise<void> {
    return (this.ready ??= this.doInit());
  }

  private async doInit(): Promise<void> {
    this.worker.start();
    await openSessionStore(this.core);
    const latest = this.core.store?.sessions.list()[0];
    // Resumed at start-up, the latest session takes the settings' model: they are the last model picked,
    // or what someone set while VS Code was closed. Sessions opened later bring their own model back.
    if (latest) await sessions.openSession(this.core, latest.id, { followSettings: true });
    else await sessions.newSession(this.core);
  }

  state(): SessionState {
    return this.core.state();
  }

  get messages(): readonly Message[] {
    return this.core.messages;
  }

  listSessions(): SessionSummary[] {
    return sessions.listSessions(this.core);
  }

  /**
   * Sends a prompt (or steers the running turn). Resolves when the turn ends. Rejects only before the
   * turn starts: in Restricted Mode (nothing is sent from an untrusted workspace).
   */
  async prompt(text: string, images?: readonly PromptImage[], mentions: readonly Mention[] = []): Promise<void> {
    const core = this.core;
    const refusal = restrictedModeRefusal('send', core.env.trusted());
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    await this.init();
    const session = core.session!;
    // Checked before anything changes: a refused image leaves the session as it was.
    const message = promptMessage(text, images, core.models.target());
    if (!session.isRunning && core.summary && core.summary.title === UNTITLED && core.store && !core.store.readOnly) {
      const title = promptTitle(text);
      await core.store.sessions.rename(core.summary.id, title).catch(() => {});
      core.summary = { ...core.summary, title };
    }
    if (!session.isRunning) {
      await core.models.releaseKey();
      await core.models.discoverServerWindow();
      sessions.applyRollingWindow(core);
    }
    // The mentions are read now, against the view the prompt joins (after the rolling window).
    const done = session.prompt(await mentionMessage(core, message, mentions));
    core.fireState();
    await done;
    // The turn's records (work ledger, spend, its checkpoint's place) are saved before this resolves: nothing is written after it.
    await Promise.all([core.recorder.save(), core.spend.save(), checkpoints.sealTurn(core)]);
    await saveCalibration(core);
    core.fireState();
  }

  /** Test connection: one tiny request (at most 16 output tokens) to the session's model with the key released for it. */
  async testConnection(): Promise<ConnectionResult> {
    await this.init();
    return this.core.models.testConnection();
  }

  stop(): void {
    this.core.session?.stop();
  }

  /**
   * Edit-and-resend, first half: the last turn leaves the context (`resend-prompt.ts`); the caller then
   * sends the edited prompt with `prompt`. Rejects, changing nothing, in Restricted Mode, while a turn
   * or a compaction runs, or when the context has no prompt.
   */
  async dropLastTurn(): Promise<void> {
    const refusal = restrictedModeRefusal('send', this.core.env.trusted());
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    await this.init();
    await dropLastTurn(this.core);
  }

  /** The `@` picker's workspace files and folders for what was typed after the `@`. Never rejects. */
  searchMentions(query: string): Promise<MentionOption[]> {
    return searchMentions(this.core, query);
  }

  /** Clear: advances the session's clear marker (nothing is deleted); the next request starts empty. */
  async clear(): Promise<void> {
    await this.init();
    await sessions.clearContext(this.core);
  }

  newSession(): Promise<void> {
    return sessions.newSession(this.core);
  }

  openSession(id: string, opts: { followSettings?: boolean } = {}): Promise<void> {
    return sessions.openSession(this.core, id, opts);
  }

  renameSession(id: string, title: string): Promise<void> {
    return sessions.renameSession(this.core, id, title);
  }

  deleteSession(id: string): Promise<void> {
    return sessions.deleteSession(this.core, id);
  }

  /** Sessions, the current session's snapshots, and whether a compaction can be undone. */
  async history(): Promise<{
    sessions: SessionSummary[];
    snapshots: SnapshotInfo[];
    currentSessionId: string | null;
    canUndoCompaction: boolean;
  }> {
    await this.init();
    return sessions.sessionHistory(this.core);
  }

  /** Pins a text: it is kept verbatim through every compaction of this session. */
  pin(text: string): Promise<void> {
    return keep.pin(this.core, text);
  }

  async pins(): Promise<Array<{ id: string; text: string; createdAt: number }>> {
    await this.init();
    return keep.pins(this.core);
  }

  unpin(pinId: string): Promise<void> {
    return keep.unpin(this.core, pinId);
  }

  /** Saves the current context view as a named snapshot (history entry); the view is unchanged. */
  saveSnapshot(name?: string): Promise<void> {
    return keep.saveSnapshot(this.core, name);
  }

  restoreSnapshot(snapshotId: string): Promise<void> {
    return keep.restoreSnapshot(this.core, snapshotId);
  }

  undoCompaction(): Promise<void> {
    return keep.undoCompaction(this.core);
  }

  /** The files the last turn changed (its checkpoint); undefined when it changed none. */
  turnChanges(): checkpoints.TurnChanges | undefined {
    return checkpoints.turnChanges(this.core);
  }

  /** Restores turn `turn`'s files and rewinds the conversation to before it (see `checkpoint-actions.ts`). */
  restoreCheckpoint(
    turn: number,
    confirmOverwrite: (paths: string[]) => Promise<checkpoints.OverwriteAnswer>,
  ): Promise<checkpoints.RestoreOutcome | undefined> {
    return checkpoints.restoreCheckpoint(this.core, turn, confirmOverwrite);
  }

  /** A checkpointed file before turn `turn` (text), and where it is now (absolute path), for a diff. */
  async checkpointDiff(turn: number, path: string): Promise<{ before: string; current: string }> {
    return { before: await checkpoints.beforeOf(this.core, turn, path), current: await checkpoints.currentPathOf(this.core, path) };
  }

  /** Manual compaction (button, command, `/compact focus`): see `manual-compaction.ts`. */
  async compact(focus?: string): Promise<CompactionReport | undefined> {
    await this.init();
    return compactNow(this.core, focus);
  }

  /** Cancels the running compaction (manual or automatic): the context stays as it was. False when none runs. */
  cancelCompaction(): boolean {
    return this.core.compactions.cancel();
  }

  /** Whether a compaction is running. */
  get compacting(): boolean {
    return this.core.compactions.running;
  }

  /** Whether the last compaction was cancelled (then `compact` resolved undefined because of it). */
  get lastCompactionCancelled(): boolean {
    return this.core.compactions.lastOutcome === 'cancelled';
  }

  /** Whether compactions of this session are stored, so the newest can be undone. */
  get canUndoCompactions(): boolean {
    return !!this.core.store && !this.core.store.readOnly && !!this.core.summary;
  }

  /** The current session's stored compactions (oldest first, with their "what left" views). */
  async compactionHistory(): Promise<sessions.CompactionHistory> {
    await this.init();
    return sessions.compactionHistory(this.core);
  }

  /** The current session's work ledger ("Work so far"). */
  ledgerState(): LedgerState {
    return this.core.recorder.ledger.toJSON();
  }

  /** What the current session spent so far (its stored spend included) and its last turn's dollars. */
  spend(): SpendState {
    return this.core.spend.state;
  }

  /** The current session's stored (offloaded) results, newest first; empty without a store. */
  storedResults(): ResultMeta[] {
    const id = this.core.summary?.id;
    if (!this.core.store || !id) return [];
    try {
      return this.core.store.results.list(id).reverse();
    } catch {
      return [];
    }
  }

  /**
   * One search over the whole stored transcript and stored results (what `search_history` gives the
   * model), for the user: hits newest first, each with a ref that `readResult` opens.
   */
  async searchHistory(query: string, limit = 50): Promise<HistorySearchResult> {
    await this.init();
    return createHistorySearchPort(historySource(this.core)).search({ query, limit }, new AbortController().signal);
  }

  /** The full text of an offloaded tool result, for "Open full result"; a `msg_<seq>` ref opens that transcript message. */
  async readResult(refId: string): Promise<string> {
    const seq = seqOfRef(refId);
    if (seq !== undefined) {
      const entry = await transcriptMessage(this.core, seq);
      if (!entry) throw new HeadroomError('not_found', `No message ${refId} in this session.`);
      const m = entry.message;
      return `${m.role === 'toolResult' ? `${m.toolName} result` : m.role}, turn ${entry.turn}\n\n${messageText(m)}`;
    }
    if (this.core.store) return this.core.store.results.read(refId);
    const page = await this.core.memoryResults?.page(refId, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
    if (!page) throw new HeadroomError('not_found', `No stored result ${refId}.`);
    return page.text;
  }

  /** The limits of the session's model, its thinking budget counted in the output reservation. */
  limits(): ThinkingLimits {
    return this.core.models.limits();
  }

  /** The session's model: the one stored with it, or the settings' when they changed since. */
  modelChoice(): ModelChoice {
    return this.core.model.current();
  }

  /**
   * Switches the session's model (and thinking level) and stores it with the session, so resuming
   * brings it back. The meter measures against the new window at once: the next `measure()` uses it.
   */
  async setModel(choice: ModelChoice): Promise<void> {
    await this.init();
    this.core.assertIdle('switching models');
    await this.core.model.set(choice);
    await this.core.models.discoverServerWindow().catch((e) => this.core.env.log.warn(`window discovery: ${errorMessage(e)}`));
    // Another model may get other tool definitions and notes: the meter counts what its next request carries.
    await expectNextRequest(this.core);
    this.core.fireState();
  }

  /** Current context usage as the gate measures it (for the meter between turns). */
  measure() {
    sessions.applyRollingWindow(this.core);
    return this.core.gates.for(this.limits()).measure(this.core.messages);
  }

  async flush(): Promise<void> {
    await this.core.store?.flush();
  }

  /** The work ledger block the model sees after a compaction ('' while empty); the meter can count it. */
  ledgerBlock(): string {
    return this.core.ledgerBlock();
  }
}
