/**
 * The default `ContextGate`: context accounting for the loop over the context engine (token ledger,
 * calibration, guard). Before each request it projects system + tool definitions + messages against
 * the effective window; at the compact or block threshold (or after a provider overflow error) it
 * runs the compaction hook and re-checks, so a still-blocked request becomes a forced final turn.
 * Tool results are admitted against the same live projection. What a request counts (per component,
 * per content class, on the provider-confirmed base) is `context-accounting.ts`; the compaction a
 * preflight runs is `gate-compaction.ts`. Never throws.
 */
import { settlesWithin } from '../common/settles-within';
import { ContextBudget, type BudgetComponents } from '../context/budget';
import { Calibration } from '../context/calibration';
import { EstimateState } from '../context/confirmed-base';
import { admit, awarenessNote, preflight, type GuardOptions, type PreflightResult } from '../context/guard';
import type { ModelLimits, TokenizerFamily } from '../context/models';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../context/settings';
import { TokenLedger } from '../context/token-ledger';
import {
  agentPrefix,
  providerClearing,
  sentUsage,
  statusAt,
  type AgentPrefix,
  type CompactionTrigger,
  type ProviderClearing,
} from '../context/compaction';
import type { AssistantMessage, Message, ProviderRequest, SystemSection, ToolDefinition } from '../providers/types';
import type { AdmitDecision, ResultSizes } from '../tools/admission';
import type { HeadroomPort } from '../tools/ports';
import { dropOldestTurnsHook, type CompactHook, type CompactInput } from './compact-hook';
import { createContextAccounting, sumOf, type ContextAccounting, type GateReports } from './context-accounting';
import { compactChecked, prepareSummary, targetFor, type Checked, type GateState } from './gate-compaction';
import type { ContextUsage } from './events';
import type { GateInputCount } from './input-confirmation';
import type { ContextGate, PreflightDecision, PreflightInput } from './turn-config';

export interface ContextGateOptions {
  limits: ModelLimits;
  /** Shared with the meter; without a counter every count is a byte estimate. */
  ledger?: TokenLedger;
  calibration?: Calibration;
  thresholds?: Thresholds;
  /** Default: `dropOldestTurnsHook`. */
  compact?: CompactHook;
  /**
   * Called (fire and forget) before a request at or over the `background` threshold that needs no
   * compaction yet, so a summary can be prepared (the compaction chain's `prepare`). Its target leaves
   * room for the growth until the compact threshold. Must not throw (guarded).
   */
  prepare?: (input: CompactInput) => void;
  /** Share of the effective window a compaction aims for (default `DEFAULT_COMPACT_TARGET_SHARE`). */
  compactTarget?: number;
  /** How long a request waits for tokenizer counts before going on with byte estimates (default 2000 ms)… */
  exactCountTimeoutMs?: number;
  /** …unless the worst case of those estimates could reach the compact threshold: then up to this long (default 30000 ms). */
  exactCountMaxWaitMs?: number;
  /**
   * The confirmed base and observed estimate errors, shared across the gates of one session (a gate is
   * built per turn). A fresh one when omitted.
   */
  estimates?: EstimateState;
  /** Deferral state for the meter. */
  deferred?: () => { count: number; savedTokens: number };
  /** Exact input counts before sending, where the provider can count (`input-confirmation.ts`). */
  inputCount?: Pick<GateInputCount, 'beforeSending'>;
  /** Whether each reported figure may be used, and who hears of one in doubt (see `GateReports`). */
  reports?: GateReports;
  onTrace?: GuardOptions['onTrace'];
}

export interface DefaultContextGate extends ContextGate {
  readonly calibration: Calibration;
  readonly ledger: TokenLedger;
  /** The limits this gate measures against. */
  readonly limits: ModelLimits;
  /** Asks for a compaction before the next request, whatever the thresholds say (the model's `compact_context`). */
  requestCompaction(focus?: string): void;
  /** Tokens of the context as last measured (0 before any measurement). */
  readonly lastUsed: number;
  /** Calibrated tokens of one message (memoized counts; the factor of its content class). */
  tokensOf(message: Message): number;
  /**
   * Tokens the messages of `view` should be compacted into for `trigger` (`compactionTarget`), with the
   * system prompt and tools of the last request. Never throws.
   */
  compactionTarget(view: readonly Message[], trigger: CompactionTrigger): number;
  /** The prefix of the last request the agent sent (model, system, tools), for a summary over its cache. */
  readonly prefix: AgentPrefix | undefined;
  /** The system prompt and tools the next request will carry: the meter counts them before any request went out. */
  expect(system: readonly SystemSection[], tools: readonly ToolDefinition[]): void;
}

export function createContextGate(options: ContextGateOptions): DefaultContextGate {
  return new DefaultGate(options);
}

/** The gate's state: the counts, and what the last request and response said (for the meter and the tools). */
class DefaultGate implements DefaultContextGate {
  readonly ledger: TokenLedger;
  readonly calibration: Calibration;
  readonly limits: ModelLimits;
  readonly tokensOf: (message: Message) => number;
  private readonly estimateOf: (message: Message) => number;
  private readonly family: TokenizerFamily;
  private readonly thresholds: Thresholds;
  private readonly compactHook: CompactHook;
  private readonly guardOptions: GuardOptions;
  private readonly estimates: EstimateState;
  private readonly accounting: ContextAccounting;
  /** The system prompt and tools of the last request: what a measurement between requests assumes. */
  private lastSystem: readonly SystemSection[] = [];
  private lastTools: readonly ToolDefinition[] = [];
  private lastCacheShare: number | undefined;
  private lastPrefix: AgentPrefix | undefined;
  private used = 0;
  private requested: { focus?: string } | undefined;

  constructor(private readonly options: ContextGateOptions) {
    this.limits = options.limits;
    this.family = this.limits.family;
    this.ledger = options.ledger ?? new TokenLedger();
    this.calibration = options.calibration ?? new Calibration();
    this.thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
    this.compactHook = options.compact ?? dropOldestTurnsHook;
    this.guardOptions = { thresholds: this.thresholds, offloadThresholdBytes: Infinity, onTrace: options.onTrace };
    this.estimates = options.estimates ?? new EstimateState();
    this.accounting = createContextAccounting({
      limits: this.limits,
      ledger: this.ledger,
      calibration: this.calibration,
      estimates: this.estimates,
      reports: options.reports,
    });
    this.tokensOf = this.accounting.tokensOf;
    this.estimateOf = this.accounting.estimateOf;
  }

  get lastUsed(): number {
    return this.used;
  }

  requestCompaction(focus?: string): void {
    this.requested = { focus };
  }

  compactionTarget(view: readonly Message[], trigger: CompactionTrigger): number {
    try {
      return targetFor(this.state, this.componentsOf(view), trigger);
    } catch {
      return 0;
    }
  }

  expect(system: readonly SystemSection[], tools: readonly ToolDefinition[]): void {
    this.lastSystem = system;
    this.lastTools = tools;
  }

  async preflight(input: PreflightInput, signal: AbortSignal): Promise<PreflightDecision> {
    try {
      this.lastSystem = input.system;
      this.lastTools = input.tools;
      // The last figure looked truncated (`UsageEvidence`): this request compacts first, as after an overflow.
      if (this.options.reports?.evidence.takeTruncation() && input.reason === 'request') input = { ...input, reason: 'overflow' };
      await this.countExactly(input);
      await this.options.inputCount?.beforeSending(input, signal);
      const components = this.accounting.account(input.messages, input.system, input.tools).components;
      let checked: Checked = { messages: input.messages, components, result: this.check(components, false) };
      const asked = input.reason === 'request' ? this.requested : undefined;
      this.requested = undefined;
      const needs =
        input.reason === 'overflow' ||
        asked !== undefined ||
        (input.reason === 'request' && (checked.result.status === 'compact' || checked.result.status === 'block'));
      if (needs && !signal.aborted) checked = await compactChecked(this.state, input, checked, asked, signal);
      if (!needs && input.reason === 'request' && checked.result.prepareSummary && !signal.aborted) prepareSummary(this.state, checked);
      const r = checked.result;
      this.used = r.projection.total;
      return {
        status: r.status,
        ratio: r.projection.ratio,
        projection: r.projection,
        note: awarenessNote(r.projection, this.thresholds),
        messages: checked.replaced,
        compaction: checked.compaction,
      };
    } catch {
      // A broken ledger or hook must never let an unchecked request through.
      return { status: 'final', ratio: Infinity };
    }
  }

  admit(sizes: ResultSizes, view: readonly Message[]): AdmitDecision {
    try {
      const r = this.check(this.componentsOf(view), false);
      return admit(
        { bytes: sizes.bytes, tokens: this.accounting.resultTokens(sizes.text, sizes.toolName) },
        r.projection,
        this.guardOptions,
      ).decision;
    } catch {
      return 'offload';
    }
  }

  headroom(view: readonly Message[]): HeadroomPort {
    return {
      remainingTokens: () => {
        try {
          // What `admit` accepts: the projection with the result stays below the compact threshold.
          const r = this.check(this.componentsOf(view), false);
          return Math.max(0, Math.ceil(this.thresholds.compact * r.projection.limit) - r.projection.total - 1);
        } catch {
          return 0;
        }
      },
      resultTokens: (text, toolName) => {
        try {
          return this.accounting.resultTokens(text, toolName);
        } catch {
          return Infinity;
        }
      },
      requestCompaction: () => {
        this.requested ??= {};
      },
    };
  }

  measure(view: readonly Message[]): ContextUsage {
    const { limits, thresholds, estimates } = this;
    const a = this.accounting.account(view, this.lastSystem, this.lastTools);
    const deferred = safe(this.options.deferred);
    const budget = new ContextBudget(limits, a.components, {
      thresholds,
      errorBand: a.estimated > 0 ? estimates.band.tokens(limits.model, a.classes) / Math.max(1, sumOf(a.components)) : 0,
      confirmedTokens: a.confirmed,
      estimatedTokens: a.estimated,
      bandTokens: estimates.band.tokens(limits.model, a.classes),
      cacheReadShare: this.lastCacheShare,
      deferredCount: deferred?.count,
      deferredSavedTokens: deferred?.savedTokens,
    });
    const ratio = budget.percent;
    this.used = budget.used;
    return {
      used: budget.used,
      effectiveWindow: limits.effectiveWindow,
      contextWindow: limits.contextWindow,
      ratio,
      status: statusAt(ratio, thresholds),
      budget: budget.toViewModel(),
    };
  }

  get prefix(): AgentPrefix | undefined {
    return this.lastPrefix;
  }

  observe(request: ProviderRequest, reply: AssistantMessage): void {
    if (reply.stopReason === 'error' || reply.stopReason === 'aborted' || reply.usage.estimated) return;
    const u = reply.usage;
    // The figure counts what the model read after the provider's clearing; judged as what was sent.
    this.accounting.learn(request, sentUsage(u, this.clearing(request, reply)));
    if (request.tools.length) this.lastPrefix = agentPrefix(request, this.limits.contextWindow);
    const prompt = u.input + u.cacheRead + u.cacheWrite;
    if (prompt > 0) this.lastCacheShare = u.cacheRead / prompt;
  }

  clearing(request: ProviderRequest, reply: AssistantMessage): ProviderClearing | undefined {
    return providerClearing(request, reply.contextEdits, this.tokensOf);
  }

  /** What compacting reads of this gate (`gate-compaction.ts`), as it is now. */
  private get state(): GateState {
    return {
      limits: this.limits,
      thresholds: this.thresholds,
      compactHook: this.compactHook,
      tokensOf: this.tokensOf,
      estimateOf: this.estimateOf,
      accounting: this.accounting,
      prefix: this.lastPrefix,
      share: this.options.compactTarget,
      prepare: this.options.prepare,
      check: (c, attempted) => this.check(c, attempted),
    };
  }

  /** The components of `view` with the system prompt and tools of the last request. */
  private componentsOf(view: readonly Message[]): BudgetComponents {
    return this.accounting.account(view, this.lastSystem, this.lastTools).components;
  }

  private check(c: BudgetComponents, compactionAttempted: boolean): PreflightResult {
    return preflight(
      {
        committed: c.messages + c.toolResults + c.summary,
        pending: c.system + c.rules,
        newTokens: 0,
        schema: c.tools + c.deferredTools,
        compactionAttempted,
        components: c,
      },
      this.limits,
      this.guardOptions,
    );
  }

  /**
   * Tokenizer counts for what is about to be sent, within the timeout. The estimates that stand
   * otherwise are upper bounds (`text-composition.ts`), so going on without the counts is safe; when
   * those estimates reach the compact threshold it keeps waiting (up to `exactCountMaxWaitMs`), because
   * the exact count may well show that no compaction is needed.
   */
  private async countExactly(input: PreflightInput): Promise<void> {
    // The system prompt and the tool definitions too: on a small window they alone can reach the compact
    // threshold by their estimate while the worker is still loading, and a near-empty session was compacted.
    const all = Promise.all([
      ...input.messages.map((m) => this.ledger.countExact(m, this.family)),
      this.accounting.countFixedExactly(input.system, input.tools),
    ]);
    if (await settlesWithin(all, this.options.exactCountTimeoutMs ?? 2000)) return;
    const estimated = sumOf(this.accounting.components(input.messages, input.system, input.tools));
    if (estimated >= this.thresholds.compact * this.limits.effectiveWindow)
      await settlesWithin(all, this.options.exactCountMaxWaitMs ?? 30_000);
  }
}

function safe<T>(fn: (() => T) | undefined): T | undefined {
  try {
    return fn?.();
  } catch {
    return undefined;
  }
}
