/**
 * The current session's turns: a prompt (or a steer of the running turn) with its images and
 * @-mentions, edit-and-resend, the gate for the session's model (the meter measures with it), the
 * model switch, Test connection, and what each turn is wired with when it starts (its checkpoint
 * begins, then its configuration and system prompt with the workspace's rules files are built).
 * Its state: the gates, the deferral policy, the estimate state and the rules loader. Pure (no vscode).
 */
import { SessionGate, withDynamicNotes, type AgentEvent, type ContextUsage, type DefaultContextGate } from '../agent';
import { InputCountPolicy, type InputToCount } from '../agent/input-confirmation';
import type { MeterFloor } from '../agent/meter-floor';
import { RulesFileLoader } from '../agent/rules-files';
import { errorMessage, HeadroomError } from '../common/errors';
import { EstimateState } from '../context/confirmed-base';
import type { ModelChoice } from '../context/model-choice';
import type { ModelLimits } from '../context/models';
import { buildSystemSections, type RulesFile } from '../context/system-prompt';
import { isSmallWindow } from '../context/small-window';
import type { TokenLedger } from '../context/token-ledger';
import { UsageEvidence } from '../context/usage-evidence';
import type { Mention, MentionOption } from '../protocol/mentions';
import { restrictedModeRefusal } from '../protocol/restricted-mode';
import type { ConnectionResult } from '../providers/connection-test';
import type { SystemSection } from '../providers/types';
import { createNodeWorkspace, DeferralPolicy } from '../tools';
import type { Checkpoints } from './checkpoint-actions';
import type { Compactions } from './compactions';
import type { HostEnvironment } from './host-environment';
import { mentionMessage, searchMentions } from './mention-message';
import type { ModelAccess } from './model-access';
import { promptMessage, type PromptImage } from './prompt-message';
import { dropLastTurn, promptTitle, UNTITLED } from './resend-prompt';
import type { SessionRecords } from './session-records';
import type { SessionSearch } from './session-search';
import type { Sessions } from './sessions';
import type { SessionStorage } from './store-lifecycle';
import { makeGate, toolRegistry, turnConfig } from './turn-wiring';

export interface TurnsDeps {
  readonly env: HostEnvironment;
  readonly storage: SessionStorage;
  readonly sessions: Sessions;
  readonly records: Pick<SessionRecords, 'save' | 'watch' | 'cacheHistory'>;
  readonly models: ModelAccess;
  readonly compactions: Pick<Compactions, 'gateHooks' | 'discardPrepared' | 'running' | 'liftResolvedPause'>;
  readonly checkpoints: Pick<Checkpoints, 'beginTurn' | 'sealTurn'>;
  readonly search: Pick<SessionSearch, 'source' | 'message'>;
  /** Token counts of the messages (the service owns its worker). */
  readonly ledger: TokenLedger;
  /** Resolves once the service opened the store and a session. */
  readonly ready: () => Promise<void>;
  /** Publishes an event of the session (a figure the provider confirmed while idle). */
  readonly report: (e: AgentEvent) => void;
  /** What the meter shows: a figure measured during a turn never goes below the one shown (`meter-floor.ts`). */
  readonly meter: Pick<MeterFloor, 'shown'>;
}

export class Turns {
  /** The gate follows the session's model: a switch rebuilds it at once. */
  private readonly gates: SessionGate;
  private readonly policy = new DeferralPolicy();
  /** The confirmed base and observed estimate errors, kept across the gates of a session. */
  private readonly estimates = new EstimateState();
  /** Whether each reported usage figure may be used (the last one used, per model). */
  private readonly evidence = new UsageEvidence();
  /** Rules files are read through one loader per workspace folder (it caches unchanged files). */
  private rules: { root: string; loader: RulesFileLoader } | undefined;
  /** Exact input counts before sending, where the provider can count (a session's first request is counted). */
  private readonly inputCounts: InputCountPolicy;
  /** The sessions and models whose provider refused its own context editing (their requests go without it). */
  private readonly editsRefused = new Set<string>();
  /** Likewise for deferred tools loaded by reference (their requests list activated tools instead). */
  private readonly referencesRefused = new Set<string>();

  constructor(private readonly deps: TurnsDeps) {
    const { env, models, compactions, ledger, storage } = deps;
    this.inputCounts = new InputCountPolicy({ counter: () => models.inputCounter(), onDoubt: (d) => models.usageDoubted(d) });
    this.gates = new SessionGate((limits) =>
      makeGate(
        {
          env,
          models,
          compaction: compactions.gateHooks(),
          ledger,
          calibration: storage.calibration,
          estimates: this.estimates,
          evidence: this.evidence,
          policy: this.policy,
          inputCounts: this.inputCounts,
        },
        limits,
      ),
    );
  }

  /**
   * Sends a prompt (or steers the running turn). Resolves when the turn ends. Rejects only before the
   * turn starts: in Restricted Mode (nothing is sent from an untrusted workspace).
   */
  async prompt(text: string, images?: readonly PromptImage[], mentions: readonly Mention[] = []): Promise<void> {
    const { env, sessions, models } = this.deps;
    const refusal = restrictedModeRefusal('send', env.trusted());
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    await this.deps.ready();
    const session = sessions.live!;
    // Checked before anything changes: a refused image leaves the session as it was.
    const message = promptMessage(text, images, models.target());
    if (!session.isRunning && sessions.title === UNTITLED) await sessions.retitle(promptTitle(text));
    if (!session.isRunning) {
      await models.releaseKey();
      await models.discoverProviderModels();
      await models.discoverServerWindow();
      sessions.applyRollingWindow();
      this.deps.compactions.liftResolvedPause(this.measure());
    }
    // The mentions are read now, against the view the prompt joins (after the rolling window).
    const parts = {
      env,
      settings: () => models.contextSettings(),
      gate: () => this.gate(models.limits()),
      results: () => this.deps.storage.resultPort(sessions.id),
      messages: () => sessions.messages,
    };
    await this.runTurn(session, session.prompt(await mentionMessage(parts, message, mentions)));
  }

  /**
   * Retry: runs the failed last turn again without a second copy of its prompt (`AgentSession.retry`).
   * Resolves when the turn ends; rejects before it starts in Restricted Mode, while a turn or a
   * compaction runs, or when the last turn did not fail.
   */
  async retry(): Promise<void> {
    const { env, sessions, models } = this.deps;
    const refusal = restrictedModeRefusal('send', env.trusted());
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    await this.deps.ready();
    sessions.assertIdle('retrying');
    const session = sessions.live!;
    if (!session.canRetry) throw new HeadroomError('invalid_request', 'There is no failed turn to retry.');
    // The failure may have been a key or a server that was not ready: both are asked for again.
    await models.releaseKey();
    await models.discoverProviderModels();
    await models.discoverServerWindow();
    this.deps.compactions.liftResolvedPause(this.measure());
    // As after a prompt: the checkpoint's place moves to where the retried turn now ends.
    await this.runTurn(session, session.retry());
  }

  /**
   * Waits for a started turn, then saves its records (work ledger, spend, its checkpoint's place) before
   * resolving: nothing is written after it.
   */
  private async runTurn(session: { readonly isRunning: boolean }, done: Promise<unknown>): Promise<void> {
    const { sessions } = this.deps;
    sessions.changed();
    await done;
    await Promise.all([this.deps.records.save(), this.deps.checkpoints.sealTurn()]);
    await this.deps.storage.saveCalibration();
    if (!session.isRunning) this.deps.compactions.liftResolvedPause(this.measure());
    sessions.changed();
  }

  /**
   * Edit-and-resend, first half: the last turn leaves the context (`resend-prompt.ts`); the caller then
   * sends the edited prompt with `prompt`. Rejects, changing nothing, in Restricted Mode, while a turn
   * or a compaction runs, or when the context has no prompt.
   */
  async dropLastTurn(): Promise<void> {
    const refusal = restrictedModeRefusal('send', this.deps.env.trusted());
    if (refusal) throw new HeadroomError('invalid_request', refusal);
    await this.deps.ready();
    await dropLastTurn(this.deps.sessions, this.deps.storage.writable, () => this.deps.compactions.discardPrepared());
  }

  /** The `@` picker's workspace files and folders for what was typed after the `@`. Never rejects. */
  searchMentions(query: string): Promise<MentionOption[]> {
    return searchMentions(this.deps.env.folder()?.root, query);
  }

  /**
   * Switches the session's model (and thinking level) and stores it with the session, so resuming
   * brings it back. The meter measures against the new window at once: the next `measure()` uses it.
   */
  async setModel(choice: ModelChoice): Promise<void> {
    const { env, sessions, models } = this.deps;
    await this.deps.ready();
    sessions.assertIdle('switching models');
    await models.choose(choice);
    await models.discoverProviderModels();
    await models.discoverServerWindow().catch((e) => env.log.warn(`window discovery: ${errorMessage(e)}`));
    // Another model may get other tool definitions and notes: the meter counts what its next request carries.
    await this.expectNextRequest();
    this.deps.compactions.liftResolvedPause(this.measure());
    sessions.changed();
  }

  /** Test connection: one tiny request (at most 16 output tokens) to the session's model with the key released for it. */
  async testConnection(): Promise<ConnectionResult> {
    await this.deps.ready();
    return this.deps.models.testConnection();
  }

  /** Current context usage as the gate measures it (for the meter between turns). */
  measure(): ContextUsage {
    this.deps.sessions.applyRollingWindow();
    return this.deps.meter.shown(this.gate(this.deps.models.limits()).measure(this.deps.sessions.messages));
  }

  /** The session's gate for these limits (a new one when they changed). */
  gate(limits: ModelLimits): DefaultContextGate {
    return this.gates.for(limits);
  }

  /** The session is left: its gate (and the compaction hook it holds) goes with it. */
  leave(): void {
    this.gates.reset();
    this.inputCounts.reset();
    this.evidence.reset();
  }

  /**
   * Tells the gate what the next request will carry besides the messages (system prompt with the rules
   * files and the deferral note, the tool definitions), so the meter counts them before any request of
   * the session went out, the same way a turn sends them. Never rejects; not while a turn runs.
   */
  async expectNextRequest(): Promise<void> {
    const sessions = this.deps.sessions;
    if (sessions.live?.isRunning) return;
    try {
      const limits = this.deps.models.limits();
      const tools = toolRegistry(
        { env: this.deps.env, policy: this.policy, history: this.deps.search.source() },
        this.gate(limits),
        limits,
      );
      const system = await this.system();
      if (sessions.live?.isRunning) return;
      const next = { system: withDynamicNotes(system, { deferral: tools.selection().note }), tools: tools.definitionsForRequest() };
      this.gates.expect(next.system, next.tools);
      void this.confirmIdle(next);
    } catch (err) {
      this.deps.env.log.warn(`Could not prepare the meter's system prompt and tools: ${errorMessage(err)}`);
    }
  }

  /**
   * In the background, while idle (a session opened, a model switched): with a key that needs no
   * question, asks the provider to describe the model (its window, limits, capabilities) and to count
   * what the next request will carry, so the header and the meter start from the provider's figures
   * ("confirmed"). Never blocks the UI; never rejects; gives way to a turn that starts meanwhile.
   */
  private async confirmIdle(next: Pick<InputToCount, 'system' | 'tools'>): Promise<void> {
    const { env, models, sessions, compactions } = this.deps;
    try {
      const idle = () => !sessions.live?.isRunning && !compactions.running;
      await models.releaseKey({ quiet: true });
      const before = this.gate(models.limits());
      await models.discoverProviderModels();
      if (!idle()) return;
      // The provider's window and limits replace the table's: a new gate, and the meter shows them at once.
      const gate = this.gate(models.limits());
      const counted = await this.inputCounts.current?.confirmIdle({ messages: sessions.messages, ...next });
      if ((counted || gate !== before) && idle()) this.deps.report({ type: 'context_usage', usage: gate.measure(sessions.messages) });
    } catch (err) {
      env.log.info(`Could not ask the provider about the next request: ${errorMessage(err)}`);
    }
  }

  /**
   * A turn starts (the session asks): its checkpoint begins, then its configuration is built. A retry
   * (`resumed`) goes on with the failed turn's checkpoint: the files it changed before failing stay in it.
   */
  begin(resumed = false) {
    const { env, models, sessions, search } = this.deps;
    const limits = models.limits();
    const gate = this.gate(limits);
    const folder = env.folder();
    if (!folder) throw new HeadroomError('invalid_request', 'Open a folder first: Headroom works on a workspace.');
    // Every write of the turn is checkpointed first (restorable with the conversation).
    const workspace = this.deps.checkpoints.beginTurn(folder.workspace(), resumed);
    const { provider, model } = models.target();
    const refusalKey = `${sessions.id ?? ''}\n${provider}\n${model}`;
    return turnConfig({
      env,
      models,
      policy: this.policy,
      history: search.source(),
      gate,
      limits,
      results: this.deps.storage.resultPort(sessions.id),
      message: (seq) => search.message(seq),
      workspace,
      sessionId: sessions.id,
      watch: (ws, options) => this.deps.records.watch(ws, options),
      cacheHistory: () => this.deps.records.cacheHistory(),
      editsRefused: this.editsRefused.has(refusalKey),
      onEditsRefused: (message) => {
        this.editsRefused.add(refusalKey);
        env.log.warn(`context editing refused by ${provider} for ${model} (${message}); this session's requests go without it`);
      },
      referencesRefused: this.referencesRefused.has(refusalKey),
      onReferencesRefused: (message) => {
        this.referencesRefused.add(refusalKey);
        env.log.warn(`deferred tool loading refused by ${provider} for ${model} (${message}); this session lists activated tools instead`);
      },
    });
  }

  /** The system prompt of the next request, with the workspace's rules files. */
  async system(): Promise<SystemSection[]> {
    const env = this.deps.env;
    const folder = env.folder();
    let rules: RulesFile[] = [];
    if (folder) {
      const root = folder.root;
      if (this.rules?.root !== root) {
        // The port's read refuses a rules file that is (or links to) a secret, like every other read.
        const workspace = createNodeWorkspace(root, { secretFilesAllow: env.settings.secretFilesAllow() });
        this.rules = { root, loader: new RulesFileLoader({ workspace, onProblem: (m) => env.log.warn(m) }) };
      }
      rules = await this.rules.loader.load();
    }
    return buildSystemSections({
      rules,
      workspaceName: env.workspaceName(),
      small: isSmallWindow(this.deps.models.limits().contextWindow),
    });
  }
}
