/**
 * The running chat: one AgentSession wired to the store, the provider from settings and
 * SecretStorage, the tools (workspace, approvals, vscode.lm tools) and the context gate. The panel
 * and the commands call its actions; it reports through `onDidEvent` (agent events) and
 * `onDidChangeState` (session switched, store problems). Owns nothing visual.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import { Emitter } from '../common/emitter';
import { errorMessage, HeadroomError } from '../common/errors';
import { DEFAULT_PROVIDER, providerEntry } from '../common/provider-catalogue';
import {
  AgentSession,
  createContextGate,
  scheduledCompactPort,
  SessionGate,
  storePersistence,
  type AgentEvent,
  type CompactionReport,
  type DefaultContextGate,
} from '../agent';
import {
  compactOutput,
  CompactionRunner,
  createCompactionChain,
  snapshotSummary,
  type ChainResult,
  type CompactionChain,
} from '../agent/compaction';
import type { CompactInput } from '../agent/compact-hook';
import { LedgerRecorder, ledgerText, parseLedgerState, rehydrationBlock, WorkLedger, type LedgerState } from '../agent/ledger';
import type { Provider } from '../providers/provider';
import { adoptLegacyHistory, compactionReport, mayHoldLegacyHistory } from '../context/compaction';
import { Calibration } from '../context/calibration';
import { EstimateState } from '../context/confirmed-base';
import { resolveModelLimits, supportsReasoning, type ModelLimits, type ServerReportedWindow } from '../context/models';
import { ServerWindowCache } from '../providers/server-discovery';
import type { ContextSettings } from '../context/settings';
import { buildSystemSections, type RulesFile } from '../context/system-prompt';
import { selectWindow } from '../context/turns';
import { TokenLedger } from '../context/token-ledger';
import { refreshOnExactCounts } from '../agent/exact-count-refresh';
import { TokenWorkerClient } from '../context/token-worker-client';
import type { SecretStore } from '../providers/credentials';
import { keyForTarget, releaseApiKey, type ReleasedKey } from '../providers/key-release';
import { restrictedModeRefusal } from '../protocol/restricted-mode';
import { askToSendKey } from './key-prompt';
import { createProvider } from '../providers/create-provider';
import type { Message, ProviderId, SystemSection } from '../providers/types';
import { openStore, type HeadroomStore, type ResultMeta, type SessionSummary, type SnapshotInfo } from '../store';
import { RulesFileLoader } from '../agent/rules-files';
import {
  createBuiltinTools,
  createHistorySearchPort,
  createNodeWorkspace,
  DeferralPolicy,
  ToolRegistry,
  withMessageRefs,
  type HistorySource,
  type ResultPort,
} from '../tools';
import { createMemoryResultPort } from '../tools/memory-results';
import { readCompactionSettings, readContextSettings, readMaxIterations } from '../config/context-settings';
import { readExternalToolsAllow, readProviderSettings } from '../config/settings';
import { MODEL_CHOICE_KEY, parseModelChoice, serializeModelChoice, type ModelChoice } from '../context/model-choice';
import { withThinking, type ThinkingLimits } from '../context/thinking';
import { SessionModel } from '../agent/session-model';
import type { ApprovalBroker } from './approvals';
import { createLmToolPort } from './lm-tools';
import { createVscodeWorkspace } from './vscode-workspace';
import { createVscodeLmPort, pickChatModel } from './vscode-lm';

/** What kind of endpoint the provider is (catalogue): a vendor API, a server at a base URL, or VS Code's models. */
const endpointOf = (provider: ProviderId) => providerEntry(provider).endpoint;

/** The Language Model API port when the provider serves VS Code's models. */
const lmPortFor = (provider: ProviderId, model: string) => (endpointOf(provider) === 'vscode' ? createVscodeLmPort(model) : undefined);

/** The settings' model: the default a new session starts with. */
function settingsModel(): ModelChoice {
  const { provider, model, thinking } = readProviderSettings();
  return { provider, model, thinking };
}

/** What is stored with a session besides its messages. */
interface SessionRecord {
  ledger: LedgerState | undefined;
  summaryCount: number;
  /** The session's model; undefined: the settings' default. */
  choice: ModelChoice | undefined;
}

export interface SessionHostDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  secrets: SecretStore;
  approvals: ApprovalBroker;
}

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

export class SessionHost extends Disposable {
  private store: HeadroomStore | undefined;
  private storeNote: string | undefined;
  private readonly worker: TokenWorkerClient;
  private readonly ledger: TokenLedger;
  private calibration = new Calibration();
  /** The confirmed base and observed estimate errors, kept across the per-turn gates. */
  private readonly estimates = new EstimateState();
  /** The key for the next turn, released before it starts (turn wiring is synchronous), and for where. */
  private released: ReleasedKey & { provider: ProviderId; baseUrl: string | undefined } = {
    provider: DEFAULT_PROVIDER,
    baseUrl: undefined,
  };
  private readonly policy = new DeferralPolicy();
  private session: AgentSession | undefined;
  private sessionSub: vscode.Disposable | undefined;
  private summary: SessionSummary | undefined;
  /** The gate follows the configured model: a switch rebuilds it at once. */
  private readonly gates = new SessionGate((limits) => this.makeGate(limits));
  private chain: CompactionChain | undefined;
  /** The current session's work ledger, fed from its events (issue 14). */
  private recorder = new LedgerRecorder(new WorkLedger());
  /** Summary passes of the current session so far (persisted for the periodic re-summarization). */
  private summaryCount = 0;
  /** Compaction records are written in order, one after another. */
  private persisting: Promise<void> = Promise.resolve();
  private memoryResults: ResultPort | undefined;
  private ready: Promise<void> | undefined;
  private reportedSettingsErrors = '';
  private reportedServerNote = '';
  private readonly serverWindows = new ServerWindowCache((url, init) => fetch(url, init));
  /** The input limit VS Code reported, for the model it was asked about. */
  private lmWindow: { model: string; window: ServerReportedWindow } | undefined;
  /** The current session's model (stored with it; the settings give the default). */
  private model = new SessionModel({ defaults: settingsModel }, undefined);
  /** Rules files are read through one loader per workspace folder (it caches unchanged files). */
  private rulesLoader: { root: string; loader: RulesFileLoader } | undefined;

  private readonly _onDidEvent = this._register(new Emitter<AgentEvent>());
  readonly onDidEvent = this._onDidEvent.event;
  private readonly _onDidChangeState = this._register(new Emitter<SessionState>());
  readonly onDidChangeState = this._onDidChangeState.event;
  private readonly _onDidChangeLedger = this._register(new Emitter<LedgerState>());
  /** The work ledger changed (a tool call was recorded, a session was opened). */
  readonly onDidChangeLedger = this._onDidChangeLedger.event;
  /** Runs every compaction pass (manual and the gate's) so it is reported and can be cancelled. */
  private readonly compactions = new CompactionRunner((e) => this._onDidEvent.fire(e));
  private readonly _onDidChangePause = this._register(new Emitter<string | null>());
  /** The loop breaker paused automatic compaction (its reason) or it resumed (null). */
  readonly onDidChangePause = this._onDidChangePause.event;

  constructor(private readonly deps: SessionHostDeps) {
    super();
    const dist = path.join(deps.context.extensionUri.fsPath, 'dist');
    this.worker = this._register(
      new TokenWorkerClient({
        workerPath: path.join(dist, 'token-worker.js'),
        onError: (e) => deps.log.warn(`tokenizer worker: ${errorMessage(e)}; using byte estimates`),
      }),
    );
    this.ledger = new TokenLedger(this.worker);
    // The exact count replaces the estimate in the meter as soon as it arrives (the gate reads the ledger anyway).
    this._register(
      refreshOnExactCounts(
        this.ledger.onDidCount,
        () => (this.session ? this.measure() : undefined),
        (usage) => this._onDidEvent.fire({ type: 'context_usage', usage }),
      ),
    );
  }

  /** Opens the store and the latest session (or a new one). Safe to call repeatedly. */
  init(): Promise<void> {
    return (this.ready ??= this.doInit());
  }

  private async doInit(): Promise<void> {
    this.worker.start();
    const storageUri = this.deps.context.storageUri;
    if (storageUri) {
      try {
        this.store = await openStore({
          root: path.join(storageUri.fsPath, 'headroom'),
          wasmPath: path.join(this.deps.context.extensionUri.fsPath, 'dist', 'sql-wasm.wasm'),
        });
        for (const p of this.store.problems) this.warn(p.message);
        this._register({ dispose: () => void this.store?.close() });
        this._register(this.store.onDidReportProblem((p) => this.warn(p.message)));
        if (this.store.readOnly) this.storeNote = this.store.readOnlyReason ?? "Another window holds this workspace's sessions: read-only.";
        // Persisted factors (the store keeps no error band; start it at 0 and let new samples widen it).
        this.calibration = new Calibration(
          this.store.calibration.all().map((c) => ({ model: c.model, factor: c.factor, samples: c.samples, error: 0 })),
        );
      } catch (err) {
        this.storeNote = `Sessions are kept in memory only: ${errorMessage(err)}`;
        this.warn(this.storeNote);
      }
    } else {
      this.storeNote = 'No folder is open, so sessions are kept in memory only.';
    }
    const latest = this.store?.sessions.list()[0];
    // Resumed at start-up, the latest session takes the settings' model: they are the last model picked,
    // or what someone set while VS Code was closed. Sessions opened later bring their own model back.
    if (latest) await this.openSession(latest.id, { followSettings: true });
    else await this.newSession();
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

  get messages(): readonly Message[] {
    return this.session?.messages ?? [];
  }

  listSessions(): SessionSummary[] {
    return this.store?.sessions.list() ?? (this.summary ? [this.summary] : []);
  }

  /**
   * Sends a prompt (or steers the running turn). Resolves when the turn ends. Rejects only before the
   * turn starts: in Restricted Mode (nothing is sent from an untrusted workspace).
   */
  async prompt(text: string): Promise<void> {
    const refusal = restrictedModeRefusal('send', vscode.workspace.isTrusted);
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    await this.init();
    const session = this.session!;
    if (!session.isRunning && this.summary && this.summary.title === 'New session' && this.store && !this.store.readOnly) {
      const title = text.trim().split('\n')[0].slice(0, 60) || 'New session';
      await this.store.sessions.rename(this.summary.id, title).catch(() => {});
      this.summary = { ...this.summary, title };
    }
    if (!session.isRunning) {
      await this.releaseKey();
      await this.discoverServerWindow();
      this.applyRollingWindow();
    }
    const done = session.prompt(text);
    this.fireState();
    await done;
    await this.saveCalibration();
    this.fireState();
  }

  /**
   * The key for the next requests, released only to the origin it is bound to or one the user allowed
   * (`releaseApiKey`); otherwise the requests fail with an `auth` error that says why.
   */
  private async releaseKey(): Promise<void> {
    const { provider, baseUrl } = this.target();
    const released = await releaseApiKey({ provider, baseUrl, secrets: this.deps.secrets, ask: askToSendKey });
    this.released = { ...released, provider, baseUrl };
    if (released.withheld) this.deps.log.warn(released.withheld);
  }

  /** A provider for the current settings, with the released key only if it was released for them. */
  private providerFor(provider: ProviderId, baseUrl: string | undefined, model: string): Provider {
    const key = keyForTarget(this.released, provider, baseUrl);
    return createProvider({
      provider,
      baseUrl,
      apiKey: key.apiKey,
      missingKeyMessage: key.withheld,
      reasons: supportsReasoning,
      lm: lmPortFor(provider, model),
    });
  }

  private async saveCalibration(): Promise<void> {
    if (!this.store || this.store.readOnly) return;
    for (const c of this.calibration.toJSON()) {
      await this.store.calibration
        .set(c.model, c.factor, c.samples)
        .catch((e) => this.deps.log.warn(`calibration not saved: ${errorMessage(e)}`));
    }
  }

  stop(): void {
    this.session?.stop();
  }

  /** Clear: advances the session's clear marker (nothing is deleted); the next request starts empty. */
  async clear(): Promise<void> {
    await this.init();
    this.assertIdle('clearing the context');
    if (this.store && this.summary && !this.store.readOnly) await this.store.sessions.clear(this.summary.id);
    this.chain?.discardPrepared();
    this.session?.replaceMessages([]);
    this.fireState();
  }

  async newSession(): Promise<void> {
    if (this.session?.isRunning) throw new HeadroomError('invalid_request', 'Stop the running turn before starting a new session.');
    const summary = this.store && !this.store.readOnly ? await this.store.sessions.create() : undefined;
    // A new session starts on the default model (the one last picked) and keeps it from then on.
    this.attach(summary, [], { ledger: undefined, summaryCount: 0, choice: undefined });
  }

  async openSession(id: string, opts: { followSettings?: boolean } = {}): Promise<void> {
    if (this.session?.isRunning) throw new HeadroomError('invalid_request', 'Stop the running turn before switching sessions.');
    if (!this.store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
    const summary = this.store.sessions.get(id);
    if (!summary) throw new HeadroomError('not_found', `No session ${id}.`);
    const settings = this.contextSettings();
    const view = await this.store.sessions.contextView(id, { rollingWindowMs: settings.rollingWindowMs || undefined });
    // The counts stored with each message: the meter is right at once, nothing is recounted. (A
    // family this version does not know only seeds keys that are never looked up.)
    this.ledger.seed(view.counts);
    const state = await this.loadSessionState(id);
    if (opts.followSettings) state.choice = undefined;
    let messages = view.messages;
    if (view.snapshot && mayHoldLegacyHistory(messages)) {
      // Compacted before history messages were marked: tell Headroom's summary from a user's paste.
      const transcript = (await this.store.sessions.transcript(id)).map((e) => e.message);
      messages = adoptLegacyHistory(messages, transcript);
    }
    this.attach(summary, messages, state);
  }

  async renameSession(id: string, title: string): Promise<void> {
    if (!this.store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
    await this.store.sessions.rename(id, title);
    if (this.summary?.id === id) this.summary = { ...this.summary, title };
    this.fireState();
  }

  async deleteSession(id: string): Promise<void> {
    if (!this.store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
    if (this.summary?.id === id && this.session?.isRunning)
      throw new HeadroomError('invalid_request', 'Stop the running turn before deleting its session.');
    await this.store.sessions.delete(id);
    if (this.summary?.id === id) {
      const next = this.store.sessions.list()[0];
      if (next) await this.openSession(next.id);
      else await this.newSession();
    }
  }

  /** Sessions, the current session's snapshots, and whether a compaction can be undone. */
  async history(): Promise<{
    sessions: SessionSummary[];
    snapshots: SnapshotInfo[];
    currentSessionId: string | null;
    canUndoCompaction: boolean;
  }> {
    await this.init();
    const id = this.summary?.id;
    const snapshots = this.store && id ? await this.store.sessions.listSnapshots(id) : [];
    // Undo works only while the newest change of the context is a compaction (not after a restore or an undo).
    const canUndoCompaction = this.store && id && !this.store.readOnly ? await this.store.sessions.canUndoCompaction(id) : false;
    return { sessions: this.listSessions(), snapshots, currentSessionId: id ?? null, canUndoCompaction };
  }

  /** Pins a text: it is kept verbatim through every compaction of this session. */
  async pin(text: string): Promise<void> {
    const { store, id } = this.writable();
    const t = text.trim();
    if (!t) throw new HeadroomError('invalid_request', 'A pin needs some text.');
    if (t.length > 4000)
      throw new HeadroomError(
        'invalid_request',
        `A pin is kept verbatim in every request, so it is limited to 4,000 characters (this one has ${t.length}).`,
      );
    await store.sessions.pin(id, t);
  }

  async pins(): Promise<Array<{ id: string; text: string; createdAt: number }>> {
    await this.init();
    return this.store && this.summary ? this.store.sessions.pins(this.summary.id) : [];
  }

  async unpin(pinId: string): Promise<void> {
    const { store, id } = this.writable();
    await store.sessions.unpin(id, pinId);
  }

  /** Saves the current context view as a named snapshot (history entry); the view is unchanged. */
  async saveSnapshot(name?: string): Promise<void> {
    const { store, id } = this.writable();
    const messages = [...this.messages];
    // Restricted Mode sends nothing: a keyless Anthropic adapter fails locally, so the snapshot is
    // saved with "(summary unavailable)". Otherwise the key goes only where it was released for.
    const refusal = restrictedModeRefusal('compact', vscode.workspace.isTrusted);
    if (!refusal) await this.releaseKey();
    const { provider, baseUrl, model } = this.target();
    const summary = await snapshotSummary(messages, {
      provider: refusal
        ? createProvider({ provider: DEFAULT_PROVIDER, missingKeyMessage: refusal })
        : this.providerFor(provider, baseUrl, model),
      model: readCompactionSettings().summarizerModel || model,
    });
    await store.sessions.saveSnapshot(id, { kind: 'named', messages, description: name?.trim() || undefined, summary });
  }

  async restoreSnapshot(snapshotId: string): Promise<void> {
    const { store, id } = this.writable();
    this.assertIdle('restoring a snapshot');
    await store.sessions.restoreSnapshot(id, snapshotId);
    await this.openSession(id);
  }

  async undoCompaction(): Promise<void> {
    const { store, id } = this.writable();
    this.assertIdle('undoing a compaction');
    await store.sessions.undoLastCompaction(id);
    await this.openSession(id);
  }

  /**
   * Manual compaction (button, command, `/compact focus`): one pass of the chain (clear old results →
   * summary → drop oldest turns) aimed at the compaction target (`context/compaction/target.ts`). Non-destructive: the transcript
   * keeps everything, the compacted view is saved as a snapshot, and it can be undone. A manual pass
   * that reaches its target also resumes automatic compaction paused by the loop breaker.
   */
  async compact(focus?: string): Promise<CompactionReport | undefined> {
    await this.init();
    this.assertIdle('compacting');
    const refusal = restrictedModeRefusal('compact', vscode.workspace.isTrusted);
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    if (!this.session?.messages.length) return undefined;
    await this.releaseKey();
    await this.discoverServerWindow();
    const limits = this.limits();
    const gate = this.gates.for(limits);
    const view = [...this.messages];
    const before = gate.measure(view);
    const tokensOf = (m: Message) => gate.tokensOf(m);
    const targetTokens = gate.compactionTarget(view, 'manual');
    const input: CompactInput = {
      messages: view,
      tokensOf,
      trigger: 'manual',
      focus,
      effectiveWindow: limits.effectiveWindow,
      contextWindow: limits.contextWindow,
      targetTokens,
    };
    const chain = this.compactionChain();
    const result = await this.compactions.run(input, undefined, (signal) => chain.run(input, signal));
    this._onDidChangePause.fire(this.chain?.paused?.reason ?? null);
    if (!result) return undefined;
    await this.persisting;
    this.session?.replaceMessages(result.messages);
    const after = gate.measure(result.messages);
    this.fireState();
    return compactionReport(result, {
      trigger: 'manual',
      beforeTokens: before.used,
      afterTokens: after.used,
      beforeMessages: result.beforeMessages,
      afterMessages: result.afterMessages,
      durationMs: result.durationMs,
    });
  }

  /** Cancels the running compaction (manual or automatic): the context stays as it was. False when none runs. */
  cancelCompaction(): boolean {
    return this.compactions.cancel();
  }

  /** Whether a compaction is running. */
  get compacting(): boolean {
    return this.compactions.running;
  }

  /** Whether the last compaction was cancelled (then `compact` resolved undefined because of it). */
  get lastCompactionCancelled(): boolean {
    return this.compactions.lastOutcome === 'cancelled';
  }

  /** Whether compactions of this session are stored, so the newest can be undone. */
  get canUndoCompactions(): boolean {
    return !!this.store && !this.store.readOnly && !!this.summary;
  }

  /** The current session's work ledger ("Work so far"). */
  ledgerState(): LedgerState {
    return this.recorder.ledger.toJSON();
  }

  /** The session's compaction chain (one per session: it holds the loop breaker and background work). */
  private compactionChain(): CompactionChain {
    if (this.chain) return this.chain;
    const store = this.store;
    const sessionId = this.summary?.id;
    const settings = readCompactionSettings();
    const summarizer: Provider = {
      id: this.target().provider,
      stream: (req, signal) => {
        const { provider, baseUrl, model } = this.target();
        return this.providerFor(provider, baseUrl, model).stream(req, signal);
      },
    };
    this.chain = createCompactionChain({
      summarizer,
      summarizerModel: settings.summarizerModel || this.target().model,
      results: this.resultPort(),
      keepTurns: settings.keepTurns,
      resummarizeEvery: settings.resummarizeEvery,
      summaryCount: this.summaryCount,
      onSummaryCount: (n) => {
        this.summaryCount = n;
        if (store && sessionId && !store.readOnly) {
          store.sessions
            .setState(sessionId, 'summary_count', String(n))
            .catch((e) => this.deps.log.warn(`summary counter not saved: ${errorMessage(e)}`));
        }
      },
      ledger: () => this.ledgerBlock(),
      rehydrate: async (budgetTokens) => {
        const folder = vscode.workspace.workspaceFolders?.[0];
        if (!folder) return undefined;
        const workspace = createVscodeWorkspace(folder, this.deps.log);
        return rehydrationBlock({ paths: this.recorder.ledger.recentlyChanged(), read: (p) => workspace.readFile(p), budgetTokens });
      },
      pins: async () => (store && sessionId ? (await store.sessions.pins(sessionId)).map((p) => p.text) : []),
      history:
        store && sessionId
          ? async () => {
              const loaded = await store.sessions.load(sessionId);
              const from = loaded.marker ? loaded.marker.afterSeq + 1 : undefined;
              return (await store.sessions.transcript(sessionId, { fromSeq: from })).map((e) => e.message);
            }
          : undefined,
      onReport: (r) => this.recordCompaction(r),
      onPause: (p) => {
        this.deps.log.warn(`automatic compaction paused: ${p.reason}`);
        this._onDidChangePause.fire(p.reason);
      },
    });
    return this.chain;
  }

  /** Persists a compaction (record + the compacted view as the resume snapshot), in order. */
  private recordCompaction(r: ChainResult): void {
    const store = this.store;
    const id = this.summary?.id;
    this.deps.log.info(
      `compaction (${r.trigger}): ${r.beforeTokens} → ${r.afterTokens} message tokens, ${r.strategies.join(' + ')}, ${r.durationMs} ms${r.notes.length ? `; ${r.notes.join('; ')}` : ''}`,
    );
    // A cancelled pass is discarded by the runner: nothing of it is kept.
    if (!store || !id || store.readOnly || this.compactions.aborting) return;
    this.persisting = this.persisting.then(() =>
      store.sessions
        .recordCompaction(id, {
          beforeTokens: r.beforeTokens,
          afterTokens: r.afterTokens,
          beforeMessages: r.beforeMessages,
          afterMessages: r.afterMessages,
          strategies: r.strategies,
          summary: r.summary,
          durationMs: r.durationMs,
          snapshot: { messages: r.messages, tokens: r.afterTokens },
        })
        .then(
          () => undefined,
          (err) => this.warn(`The compaction could not be saved: ${errorMessage(err)}`),
        ),
    );
  }

  private writable(): { store: HeadroomStore; id: string } {
    if (!this.store || !this.summary) throw new HeadroomError('not_found', this.storeNote ?? 'Sessions are not stored in this window.');
    if (this.store.readOnly) throw new HeadroomError('storage', this.storeNote ?? "This window's session storage is read-only.");
    return { store: this.store, id: this.summary.id };
  }

  private assertIdle(what: string): void {
    if (this.session?.isRunning) throw new HeadroomError('invalid_request', `Stop the running turn before ${what}.`);
    if (this.compactions.running)
      throw new HeadroomError('invalid_request', `Wait for the compaction to finish, or cancel it, before ${what}.`);
  }

  /** The current session's stored (offloaded) results, newest first; empty without a store. */
  storedResults(): ResultMeta[] {
    const id = this.summary?.id;
    if (!this.store || !id) return [];
    try {
      return this.store.results.list(id).reverse();
    } catch {
      return [];
    }
  }

  /** The full text of an offloaded tool result, for "Open full result". */
  async readResult(refId: string): Promise<string> {
    if (this.store) return this.store.results.read(refId);
    const page = await this.memoryResults?.page(refId, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
    if (!page) throw new HeadroomError('not_found', `No stored result ${refId}.`);
    return page.text;
  }

  /** The limits of the session's model, its thinking budget counted in the output reservation. */
  limits(): ThinkingLimits {
    const { provider, model, baseUrl, thinking } = this.target();
    const endpoint = endpointOf(provider);
    const server =
      endpoint === 'server' && baseUrl
        ? this.serverWindows.peek(baseUrl, model)
        : endpoint === 'vscode' && this.lmWindow?.model === model
          ? this.lmWindow.window
          : undefined;
    return withThinking(resolveModelLimits(model, provider, this.contextSettings(), server), thinking);
  }

  /** The session's model: the one stored with it, or the settings' when they changed since. */
  modelChoice(): ModelChoice {
    return this.model.current();
  }

  /** Where requests go: the session's model, at the configured base URL. */
  private target(): ModelChoice & { baseUrl: string | undefined } {
    return { ...this.modelChoice(), baseUrl: readProviderSettings().baseUrl };
  }

  /**
   * Switches the session's model (and thinking level) and stores it with the session, so resuming
   * brings it back. The meter measures against the new window at once: the next `measure()` uses it.
   */
  async setModel(choice: ModelChoice): Promise<void> {
    await this.init();
    this.assertIdle('switching models');
    await this.model.set(choice);
    await this.discoverServerWindow().catch((e) => this.deps.log.warn(`window discovery: ${errorMessage(e)}`));
    this.fireState();
  }

  /**
   * Asks an OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM) which context length it
   * really uses, so `limits()` budgets to it; what it says about a smaller window is shown once.
   */
  private async discoverServerWindow(): Promise<void> {
    const { provider, model, baseUrl } = this.target();
    if (endpointOf(provider) === 'vscode') {
      // VS Code tells each chat model's input limit; that is the window to budget to.
      const chat = await pickChatModel(model).catch(() => undefined);
      this.lmWindow = chat ? { model, window: { contextWindow: chat.maxInputTokens, kind: 'VS Code language model' } } : undefined;
      return;
    }
    if (endpointOf(provider) !== 'server' || !baseUrl) return;
    const found = await this.serverWindows.get(baseUrl, model);
    const note = found?.warnings.join(' ');
    if (note && note !== this.reportedServerNote) {
      this.reportedServerNote = note;
      this.warn(note);
    }
  }

  /** Current context usage as the gate measures it (for the meter between turns). */
  measure() {
    this.applyRollingWindow();
    return this.gates.for(this.limits()).measure(this.messages);
  }

  async flush(): Promise<void> {
    await this.store?.flush();
  }

  /** The work ledger block the model sees after a compaction ('' while empty); the meter can count it. */
  ledgerBlock(): string {
    return ledgerText(this.recorder.ledger.toJSON());
  }

  /** The ledger, summary counter and model stored with a session (a damaged record starts afresh, with a warning). */
  private async loadSessionState(id: string): Promise<SessionRecord> {
    const store = this.store!;
    const raw = await store.sessions.getState(id, 'ledger').catch(() => undefined);
    const ledger = parseLedgerState(raw);
    if (raw && !ledger) this.warn('The work ledger of this session could not be read; a new one is started.');
    const count = Number(await store.sessions.getState(id, 'summary_count').catch(() => undefined));
    // A session stored before models were remembered per session follows the settings.
    const choice = parseModelChoice(await store.sessions.getState(id, MODEL_CHOICE_KEY).catch(() => undefined));
    return { ledger, summaryCount: Number.isInteger(count) && count > 0 ? count : 0, choice };
  }

  /**
   * The rolling time window, applied live (not only when a session is reopened): messages older than
   * the window leave the context view at a safe cut. The transcript keeps them. Not during a turn.
   */
  private applyRollingWindow(): void {
    const windowMs = this.contextSettings().rollingWindowMs;
    const session = this.session;
    if (!windowMs || !session || session.isRunning) return;
    const selection = selectWindow(session.messages, { windowMs, now: Date.now() });
    if (selection.startIndex > 0) {
      this.deps.log.info(
        `rolling window: ${selection.startIndex} message(s) older than ${Math.round(windowMs / 60_000)} min left the context`,
      );
      session.replaceMessages(selection.messages);
    }
  }

  private attach(summary: SessionSummary | undefined, messages: Message[], state: SessionRecord): void {
    this.gates.reset();
    this.chain?.discardPrepared();
    this.chain = undefined;
    this._onDidChangePause.fire(null);
    this.sessionSub?.dispose();
    this.session?.dispose();
    this.summary = summary;
    const sessionId = summary?.id;
    const store = this.store;
    const writable = store && sessionId && !store.readOnly ? { store, sessionId } : undefined;
    this.model = new SessionModel(
      {
        defaults: settingsModel,
        save: writable ? (c) => writable.store.sessions.setState(writable.sessionId, MODEL_CHOICE_KEY, serializeModelChoice(c)) : undefined,
        onError: (m) => this.warn(m),
      },
      state.choice,
    );
    this.summaryCount = state.summaryCount;
    const recorder = new LedgerRecorder(new WorkLedger(state.ledger), {
      save: writable ? (s) => writable.store.sessions.setState(writable.sessionId, 'ledger', JSON.stringify(s)) : undefined,
      onError: (m) => this.warn(m),
      onChange: () => this._onDidChangeLedger.fire(recorder.ledger.toJSON()),
    });
    this.recorder = recorder;
    this._onDidChangeLedger.fire(recorder.ledger.toJSON());
    const session = new AgentSession({
      messages,
      system: () => this.systemSections(),
      turnConfig: () => this.turnConfig(),
      persistence:
        store && sessionId && !store.readOnly
          ? storePersistence(store.sessions, sessionId, (m) => this.ledger.count(m, this.limits().family))
          : undefined,
    });
    this.session = session;
    const sub = session.onDidEvent((e) => {
      recorder.handle(e);
      this._onDidEvent.fire(e);
    });
    this.sessionSub = { dispose: () => sub.dispose() };
    this.fireState();
  }

  private makeGate(limits: ModelLimits): DefaultContextGate {
    const settings = this.contextSettings();
    const chain = this.compactionChain();
    return createContextGate({
      limits,
      compact: (input, signal) => this.compactions.run(input, signal, (s) => chain.run(input, s)).then((r) => r && compactOutput(r)),
      prepare: (input) => chain.prepare(input),
      ledger: this.ledger,
      calibration: this.calibration,
      estimates: this.estimates,
      thresholds: settings.thresholds,
      deferred: () => {
        const s = this.policy.select();
        return { count: s.deferred.length, savedTokens: s.savedTokens };
      },
      // info: the level a LogOutputChannel shows by default (debug lines would stay hidden).
      onTrace: settings.debug ? (t) => this.deps.log.info(`[guard] ${JSON.stringify(t)}`) : undefined,
    });
  }

  private turnConfig() {
    const { provider, model, baseUrl } = this.target();
    const limits = this.limits();
    const gate = this.gates.for(limits);
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new HeadroomError('invalid_request', 'Open a folder first: Headroom works on a workspace.');
    const history = this.historySource();
    // read_result also opens the transcript messages search_history names (msg_<seq>).
    const results = withMessageRefs(this.resultPort(), async (seq) => (await history.transcript()).find((e) => e.seq === seq));
    // Built without `admission`: the loop admits every result itself against the live context.
    const tools = new ToolRegistry({
      builtins: createBuiltinTools({
        toolSearch: this.policy,
        compact: scheduledCompactPort(gate),
        history: createHistorySearchPort(history),
      }),
      external: createLmToolPort(),
      externalAllow: readExternalToolsAllow,
      policy: this.policy,
    });
    tools.setEffectiveWindow(limits.effectiveWindow);
    return {
      provider: this.providerFor(provider, baseUrl, model),
      model,
      maxOutputTokens: limits.maxOutput,
      tools,
      toolContext: {
        workspace: createVscodeWorkspace(folder, this.deps.log),
        results,
        approve: this.deps.approvals,
        trusted: vscode.workspace.isTrusted,
      },
      gate,
      maxIterations: readMaxIterations(),
      offloadThresholdBytes: this.contextSettings().offloadThresholdBytes,
      request: { cacheTail: true, promptCacheKey: this.summary?.id, reasoningBudget: limits.thinkingBudget || undefined },
    };
  }

  /**
   * The session's whole history for search_history: the stored transcript (all of it, also before a
   * clear), or the current view when sessions are not stored.
   */
  private historySource(): HistorySource {
    const store = this.store;
    const sessionId = this.summary?.id;
    const results = this.resultPort();
    const readResult = async (refId: string) => {
      const page = await results.page(refId, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
      return page?.text;
    };
    if (!store || !sessionId) {
      return { transcript: () => Promise.resolve(this.messages.map((message, i) => ({ seq: i + 1, turn: 0, message }))), readResult };
    }
    return { transcript: () => store.sessions.transcript(sessionId), readResult };
  }

  /** Where offloaded and cleared tool output goes: the session's result store, or memory without one. */
  private resultPort(): ResultPort {
    const store = this.store;
    const sessionId = this.summary?.id;
    if (!store || !sessionId || store.readOnly) return (this.memoryResults ??= createMemoryResultPort());
    return store.results.port(sessionId);
  }

  private async systemSections(): Promise<SystemSection[]> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    let rules: RulesFile[] = [];
    if (folder) {
      const root = folder.uri.fsPath;
      if (this.rulesLoader?.root !== root) {
        const loader = new RulesFileLoader({ workspace: createNodeWorkspace(root), onProblem: (m) => this.deps.log.warn(m) });
        this.rulesLoader = { root, loader };
      }
      rules = await this.rulesLoader.loader.load();
    }
    return buildSystemSections({ rules, workspaceName: vscode.workspace.name });
  }

  /** The validated context settings; invalid values are reported once (log + warning) and keep their defaults. */
  private contextSettings(): ContextSettings {
    const { settings, errors } = readContextSettings();
    const key = errors.join('\n');
    if (key !== this.reportedSettingsErrors) {
      this.reportedSettingsErrors = key;
      if (errors.length) this.warn(`Some settings are invalid and use their defaults: ${errors.join('; ')}`);
    }
    return settings;
  }

  private warn(message: string): void {
    this.deps.log.warn(message);
    void vscode.window.showWarningMessage(`Headroom: ${message}`);
  }

  private fireState(): void {
    this._onDidChangeState.fire(this.state());
  }
}
