/**
 * The default `ContextGate`: context accounting for the loop over the context engine (token ledger,
 * calibration, guard). Before each request it projects system + tool definitions + messages against
 * the effective window; at the compact or block threshold (or after a provider overflow error) it
 * runs the compaction hook and re-checks, so a still-blocked request becomes a forced final turn.
 * Tool results are admitted against the same live projection. What a request counts (per component,
 * per content class, on the provider-confirmed base) is `context-accounting.ts`. Never throws.
 */
import { ContextBudget, type BudgetComponents } from '../context/budget';
import { Calibration } from '../context/calibration';
import { EstimateState } from '../context/confirmed-base';
import { admit, awarenessNote, preflight, type GuardOptions, type PreflightResult } from '../context/guard';
import { estimateText, familyTokens, MESSAGE_OVERHEAD, TOOL_RESULT_OVERHEAD } from '../context/message-tokens';
import type { ModelLimits } from '../context/models';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../context/settings';
import { TokenLedger } from '../context/token-ledger';
import {
  compactionReport,
  compactionTarget,
  preparedSummaryTarget,
  statusAt,
  type AgentPrefix,
  type CompactionReport,
  type CompactionTrigger,
} from '../context/compaction';
import type { AssistantMessage, Message, ProviderRequest, SystemSection, ToolDefinition } from '../providers/types';
import type { AdmitDecision, ResultSizes } from '../tools/admission';
import type { CompactPort, HeadroomPort } from '../tools/ports';
import { dropOldestTurnsHook, type CompactHook, type CompactInput, type CompactOutput } from './compact-hook';
import { createContextAccounting, sumOf } from './context-accounting';
import type { ContextUsage } from './events';
import type { ContextGate, PreflightDecision, PreflightInput } from './turn-config';

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

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
  /** Share of the effective window a compaction aims for (default `DEFAULT_COMPACT_TARGET_SHARE`, DESIGN §7). */
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
}

export function createContextGate(options: ContextGateOptions): DefaultContextGate {
  const { limits } = options;
  const family = limits.family;
  const ledger = options.ledger ?? new TokenLedger();
  const calibration = options.calibration ?? new Calibration();
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const compactHook = options.compact ?? dropOldestTurnsHook;
  const guardOptions: GuardOptions = { thresholds, offloadThresholdBytes: Infinity, onTrace: options.onTrace };
  let lastSystem: readonly SystemSection[] = [];
  let lastTools: readonly ToolDefinition[] = [];
  const estimates = options.estimates ?? new EstimateState();
  let lastCacheShare: number | undefined;
  let lastPrefix: AgentPrefix | undefined;
  let lastUsed = 0;
  let requested: { focus?: string } | undefined;

  const accounting = createContextAccounting({ limits, ledger, calibration, estimates });
  const { tokensOf, estimateOf, components, account } = accounting;

  /** A tool result's tokens as the request will count them until its exact count arrives (safe estimate, its class's factor). */
  function resultTokens(text: string, toolName: string): number {
    const estimate = estimateText(text);
    const name = estimateText(toolName);
    const raw = familyTokens(estimate, family) + familyTokens(name, family) + TOOL_RESULT_OVERHEAD + MESSAGE_OVERHEAD;
    return Math.ceil(raw * calibration.factorFor(limits.model, estimate.contentClass));
  }

  /** The compaction target (`context/compaction/target.ts`) for the components of a request. */
  function targetFor(c: BudgetComponents, trigger: CompactionTrigger): number {
    return compactionTarget({
      effectiveWindow: limits.effectiveWindow,
      fixedTokens: fixedOf(c),
      conversationTokens: c.messages + c.toolResults,
      trigger,
      thresholds,
      share: options.compactTarget,
    });
  }

  function check(c: BudgetComponents, compactionAttempted: boolean): PreflightResult {
    return preflight(
      {
        committed: c.messages + c.toolResults + c.summary,
        pending: c.system + c.rules,
        newTokens: 0,
        schema: c.tools + c.deferredTools,
        compactionAttempted,
        components: c,
      },
      limits,
      guardOptions,
    );
  }

  /**
   * Tokenizer counts for what is about to be sent, within the timeout. The estimates that stand
   * otherwise are upper bounds (`text-composition.ts`), so going on without the counts is safe; when
   * those estimates reach the compact threshold it keeps waiting (up to `exactCountMaxWaitMs`), because
   * the exact count may well show that no compaction is needed.
   */
  async function countExactly(input: PreflightInput): Promise<void> {
    const all = Promise.all(input.messages.map((m) => ledger.countExact(m, family)));
    if (await settlesWithin(all, options.exactCountTimeoutMs ?? 2000)) return;
    const estimated = sumOf(components(input.messages, input.system, input.tools));
    if (estimated >= thresholds.compact * limits.effectiveWindow) await settlesWithin(all, options.exactCountMaxWaitMs ?? 30_000);
  }

  return {
    ledger,
    calibration,
    limits,
    get lastUsed() {
      return lastUsed;
    },
    tokensOf,

    requestCompaction(focus?: string): void {
      requested = { focus };
    },

    compactionTarget(view: readonly Message[], trigger: CompactionTrigger): number {
      try {
        return targetFor(account(view, lastSystem, lastTools).components, trigger);
      } catch {
        return 0;
      }
    },

    async preflight(input: PreflightInput, signal: AbortSignal): Promise<PreflightDecision> {
      try {
        lastSystem = input.system;
        lastTools = input.tools;
        await countExactly(input);
        let messages = input.messages;
        let c = account(messages, input.system, input.tools).components;
        let r = check(c, false);
        let compaction: CompactionReport | undefined;
        let replaced: Message[] | undefined;
        const asked = input.reason === 'request' ? requested : undefined;
        requested = undefined;
        const trigger = input.reason === 'overflow' ? 'overflow' : asked ? 'tool' : 'threshold';
        const needs =
          input.reason === 'overflow' ||
          asked !== undefined ||
          (input.reason === 'request' && (r.status === 'compact' || r.status === 'block'));
        if (needs && !signal.aborted) {
          const started = Date.now();
          const before = r.projection.total;
          const targetTokens = targetFor(c, trigger);
          let out: CompactOutput | undefined;
          try {
            const force = trigger === 'overflow' || r.status === 'block';
            out = await compactHook(
              {
                messages,
                tokensOf,
                estimateOf,
                targetTokens,
                trigger,
                focus: asked?.focus,
                effectiveWindow: limits.effectiveWindow,
                contextWindow: limits.contextWindow,
                prefix: lastPrefix,
                force,
              },
              signal,
            );
          } catch {
            out = undefined;
          }
          if (out && out.messages !== messages) {
            replaced = out.messages;
            const beforeMessages = messages.length;
            messages = out.messages;
            c = account(messages, input.system, input.tools).components;
            r = check(c, true);
            compaction = compactionReport(out, {
              trigger,
              beforeTokens: before,
              afterTokens: r.projection.total,
              beforeMessages,
              afterMessages: messages.length,
              durationMs: Date.now() - started,
            });
          } else {
            r = check(c, true);
          }
        }
        if (!needs && options.prepare && input.reason === 'request' && r.prepareSummary && !signal.aborted) {
          const targetTokens = preparedSummaryTarget({
            effectiveWindow: limits.effectiveWindow,
            fixedTokens: fixedOf(c),
            thresholds,
            share: options.compactTarget,
          });
          try {
            options.prepare({
              messages,
              tokensOf,
              estimateOf,
              targetTokens,
              trigger: 'threshold',
              effectiveWindow: limits.effectiveWindow,
              contextWindow: limits.contextWindow,
            });
          } catch {
            // Preparing is an optimization.
          }
        }
        lastUsed = r.projection.total;
        return {
          status: r.status,
          ratio: r.projection.ratio,
          projection: r.projection,
          note: awarenessNote(r.projection, thresholds),
          messages: replaced,
          compaction,
        };
      } catch {
        // A broken ledger or hook must never let an unchecked request through.
        return { status: 'final', ratio: Infinity };
      }
    },

    admit(sizes: ResultSizes, view: readonly Message[]): AdmitDecision {
      try {
        const r = check(account(view, lastSystem, lastTools).components, false);
        return admit({ bytes: sizes.bytes, tokens: resultTokens(sizes.text, sizes.toolName) }, r.projection, guardOptions).decision;
      } catch {
        return 'offload';
      }
    },

    headroom(view: readonly Message[]): HeadroomPort {
      return {
        remainingTokens: () => {
          try {
            // What `admit` accepts: the projection with the result stays below the compact threshold.
            const r = check(account(view, lastSystem, lastTools).components, false);
            return Math.max(0, Math.ceil(thresholds.compact * r.projection.limit) - r.projection.total - 1);
          } catch {
            return 0;
          }
        },
        resultTokens: (text, toolName) => {
          try {
            return resultTokens(text, toolName);
          } catch {
            return Infinity;
          }
        },
        requestCompaction: () => {
          requested ??= {};
        },
      };
    },

    measure(view: readonly Message[]): ContextUsage {
      const a = account(view, lastSystem, lastTools);
      const deferred = safe(options.deferred);
      const budget = new ContextBudget(limits, a.components, {
        thresholds,
        errorBand: a.estimated > 0 ? estimates.band.tokens(limits.model, a.classes) / Math.max(1, sumOf(a.components)) : 0,
        confirmedTokens: a.confirmed,
        estimatedTokens: a.estimated,
        bandTokens: estimates.band.tokens(limits.model, a.classes),
        cacheReadShare: lastCacheShare,
        deferredCount: deferred?.count,
        deferredSavedTokens: deferred?.savedTokens,
      });
      const ratio = budget.used / limits.effectiveWindow;
      lastUsed = budget.used;
      return {
        used: budget.used,
        effectiveWindow: limits.effectiveWindow,
        contextWindow: limits.contextWindow,
        ratio,
        status: statusAt(ratio, thresholds),
        budget: budget.toViewModel(),
      };
    },

    observe(request: ProviderRequest, reply: AssistantMessage): void {
      if (reply.stopReason === 'error' || reply.stopReason === 'aborted' || reply.usage.estimated) return;
      const u = reply.usage;
      accounting.learn(request, u);
      if (request.tools.length)
        lastPrefix = { model: request.model, contextWindow: limits.contextWindow, system: request.system, tools: request.tools };
      const prompt = u.input + u.cacheRead + u.cacheWrite;
      if (prompt > 0) lastCacheShare = u.cacheRead / prompt;
    },
  };
}

/**
 * The `CompactPort` for the `compact_context` tool over the default gate: the compaction is scheduled
 * and runs before the model's next request (compacting in the middle of a tool batch could separate
 * the running call from its result). The loop reports it with a `compaction` event.
 */
export function scheduledCompactPort(gate: DefaultContextGate): CompactPort {
  return {
    compact({ focus }) {
      gate.requestCompaction(focus);
      return Promise.resolve({
        beforeTokens: gate.lastUsed,
        afterTokens: gate.lastUsed,
        strategies: [],
        note: 'The compaction is scheduled: it runs before your next request, and the next context status shows what it freed.',
      });
    },
  };
}

/** Tokens sent with every request besides the conversation. */
function fixedOf(c: BudgetComponents): number {
  return c.system + c.tools + c.rules + c.deferredTools;
}

function safe<T>(fn: (() => T) | undefined): T | undefined {
  try {
    return fn?.();
  } catch {
    return undefined;
  }
}
