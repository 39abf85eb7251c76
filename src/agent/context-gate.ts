/**
 * The default `ContextGate`: context accounting for the loop over the context engine (token ledger,
 * calibration, guard). Before each request it projects system + tool definitions + messages against
 * the effective window; at the compact or block threshold (or after a provider overflow error) it
 * runs the compaction hook and re-checks, so a still-blocked request becomes a forced final turn.
 * Tool results are admitted against the same live projection. Never throws.
 */
import { COMPONENT_NAMES, ContextBudget, type BudgetComponents } from '../context/budget';
import { Calibration, reportedInputTokens } from '../context/calibration';
import { baseApplies, EstimateState, scaleToTotal } from '../context/confirmed-base';
import { contentClass, messageClass, type ContentClass } from '../context/content-class';
import { dominantClass, type BandClass, type ClassTokens } from '../context/estimate-band';
import { admit, awarenessNote, preflight, type GuardOptions, type GuardStatus, type PreflightResult } from '../context/guard';
import { estimateMessage, toolDefinitionParts } from '../context/message-tokens';
import { byteEstimate } from '../context/utf8';
import type { ModelLimits } from '../context/models';
import { messageComponent, sectionComponent, type MessageComponent, type SectionComponent } from '../context/prompt-components';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../context/settings';
import { TokenLedger } from '../context/token-ledger';
import type { AgentPrefix } from '../context/compaction';
import type { AssistantMessage, Message, ProviderRequest, SystemSection, ToolDefinition, Usage } from '../providers/types';
import type { AdmitDecision, ResultSizes } from '../tools/admission';
import type { CompactPort } from '../tools/ports';
import type { CompactionReport, ContextUsage } from './events';
import { dropOldestTurns } from './fallback-compaction';
import type { ContextGate, PreflightDecision, PreflightInput } from './turn-config';

/** What a compaction hook is given: the view, a token counter for its messages, and the target. */
export interface CompactInput {
  messages: readonly Message[];
  /** Calibrated tokens of one message (memoized). */
  tokensOf: (message: Message) => number;
  /** Tokens the compacted messages should fit in (system and tools already subtracted). */
  targetTokens: number;
  /** `manual`: the user asked (button, command, `/compact`); the gate itself never passes it. */
  trigger: 'threshold' | 'overflow' | 'tool' | 'manual';
  /** What the summary should keep (from `compact_context` / `/compact <focus>`). */
  focus?: string;
  /** The model's effective window in tokens (what "freed N %" is measured against). */
  effectiveWindow?: number;
  /**
   * The agent's request prefix (model, system sections and tools of the last request sent), so the
   * summary request can reuse it and be served from the prompt cache. Absent before any request.
   */
  prefix?: AgentPrefix;
}

export interface CompactOutput {
  messages: Message[];
  strategies: string[];
  /** The model summary the compacted view carries, when one was made. */
  summary?: string;
  /** Tokens the summarizer used, when a model was called. */
  cost?: Usage;
}

/**
 * Compacts the view (issue 7's chain plugs in here). Resolves undefined when it could not; may reject
 * (treated as undefined). The result must keep every tool call with its result.
 */
export type CompactHook = (input: CompactInput, signal: AbortSignal) => Promise<CompactOutput | undefined>;

/** The deterministic fallback: drop the oldest turns at safe boundaries. */
export const dropOldestTurnsHook: CompactHook = (input) => {
  const r = dropOldestTurns(input.messages, input.tokensOf, input.targetTokens);
  return Promise.resolve(r.dropped > 0 ? { messages: r.messages, strategies: ['drop_oldest_turns'] } : undefined);
};

/** How far a byte estimate (bytes / 4) can undercount the real token count (random base64 with o200k). */
export const WORST_BYTE_ESTIMATE_FACTOR = 2.8;

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

/** One system section (or all tool definitions) as counted: where it belongs and how it is calibrated. */
interface FixedPart {
  component: SectionComponent;
  /** Its content class, or `unmeasured` while it is a byte estimate. */
  cls: BandClass;
  raw: number;
}

/** A request's components with the confirmed base applied. */
interface Accounting {
  components: BudgetComponents;
  /** Provider-reported tokens the figure rests on (absent: all estimated). */
  confirmed?: number;
  /** Tokens estimated on top of the confirmed base (all of it without one; negative when something was dropped). */
  estimated: number;
  /** The estimated part's tokens by content class (for the error band). */
  classes: ClassTokens;
}

const sumOf = (c: BudgetComponents): number => COMPONENT_NAMES.reduce((s, n) => s + c[n], 0);
const add = (classes: ClassTokens, cls: BandClass, tokens: number) => (classes[cls] = (classes[cls] ?? 0) + Math.max(0, tokens));

/** The calibration entry of a model's content class. */
export function calibrationKey(model: string, cls: BandClass): string {
  return `${model}#${cls}`;
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
  /** Share of the effective window a compaction aims for (default 0.3, DESIGN §7). */
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
}

export function createContextGate(options: ContextGateOptions): DefaultContextGate {
  const { limits } = options;
  const family = limits.family;
  const ledger = options.ledger ?? new TokenLedger();
  const calibration = options.calibration ?? new Calibration();
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const compactHook = options.compact ?? dropOldestTurnsHook;
  const compactTarget = options.compactTarget ?? 0.3;
  const guardOptions: GuardOptions = { thresholds, offloadThresholdBytes: Infinity, onTrace: options.onTrace };
  let lastSystem: readonly SystemSection[] = [];
  let lastTools: readonly ToolDefinition[] = [];
  const estimates = options.estimates ?? new EstimateState();
  let lastCacheShare: number | undefined;
  let lastPrefix: AgentPrefix | undefined;
  let lastUsed = 0;
  let requested: { focus?: string } | undefined;

  // Calibration is per content class: a factor learned on prose never lowers the estimate of code,
  // CJK or base64 (DESIGN §3). System sections count as prose; tool definitions are a class of their own.
  // Byte estimates keep the whole-request factor (what they were always scaled by).
  const factor = (cls: BandClass) => calibration.factor(cls === 'unmeasured' ? limits.model : calibrationKey(limits.model, cls));
  const scaledAs = (cls: BandClass, tokens: number) => Math.ceil(tokens * factor(cls));
  const rawTokens = (m: Message) => ledger.count(m, family).tokens;
  // A tokenizer count is calibrated by its content class; a byte estimate by what was learned on byte
  // estimates (a factor learned on tokenizer counts says nothing about them).
  const classes = new WeakMap<Message, ContentClass>();
  const classOf = (m: Message): ContentClass | undefined => {
    const hit = classes.get(m);
    if (hit) return hit;
    const c = ledger.count(m, family);
    if (!c.exact) return undefined;
    const cls = messageClass(m, c.tokens <= estimateMessage(m, family, '').tokens);
    classes.set(m, cls);
    return cls;
  };
  const tokensOf = (m: Message) => scaledAs(classOf(m) ?? 'unmeasured', rawTokens(m));
  /** What the error of a message's estimate depends on: its content, or that it is still a byte estimate. */
  const bandClass = (m: Message): BandClass => classOf(m) ?? 'unmeasured';
  // System sections and tool definitions are re-measured after every message: memoized per array
  // (the loop passes the same arrays until the next request) until their count is exact.
  const fixedCounts = new WeakMap<object, { parts: FixedPart[]; exact: boolean }>();
  const memoCount = (key: object, count: () => { parts: FixedPart[]; exact: boolean }): FixedPart[] => {
    const hit = fixedCounts.get(key);
    if (hit?.exact) return hit.parts;
    const c = count();
    fixedCounts.set(key, c);
    return c.parts;
  };
  /** Raw tokens of each system section, with its component and content class. */
  const systemRaw = (system: readonly SystemSection[]): FixedPart[] =>
    memoCount(system, () => {
      let exact = true;
      const parts = system.map((s): FixedPart => {
        const c = ledger.countText(s.text, family);
        exact &&= c.exact;
        const cls = c.exact ? contentClass(s.text, c.tokens <= byteEstimate(Buffer.byteLength(s.text, 'utf8'))) : 'unmeasured';
        return { component: sectionComponent(s), cls, raw: c.tokens };
      });
      return { parts, exact };
    });
  const toolsParts = (tools: readonly ToolDefinition[]): FixedPart[] => {
    if (!tools.length) return [];
    return memoCount(tools, () => {
      const parts = toolDefinitionParts(tools);
      const c = ledger.countTexts(parts.texts, family, parts.fixed);
      return { parts: [{ component: 'system', cls: c.exact ? 'tools' : 'unmeasured', raw: c.tokens }], exact: c.exact };
    });
  };

  /** Calibrated system sections and tool definitions (`fixed` is the part of them the messages do not hold). */
  function fixedParts(system: readonly SystemSection[], tools: readonly ToolDefinition[]): Pick<BudgetComponents, SectionComponent | 'tools'> {
    const out = { system: 0, rules: 0, deferredTools: 0, tools: 0 };
    for (const p of systemRaw(system)) out[p.component] += scaledAs(p.cls, p.raw);
    for (const p of toolsParts(tools)) out.tools += scaledAs(p.cls, p.raw);
    return out;
  }

  /** Calibrated components of a request, each measured where it lives. */
  function components(messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]): BudgetComponents {
    const inMessages: Record<MessageComponent, number> = { summary: 0, messages: 0, toolResults: 0 };
    for (const m of messages) inMessages[messageComponent(m)] += tokensOf(m);
    return { ...fixedParts(system, tools), ...inMessages };
  }

  const noteTokens = (note: string | undefined) => (note ? scaledAs('prose', ledger.countText(note, family).tokens) : 0);

  /**
   * The request's components with the confirmed base applied: when the view still holds the last
   * reported request, that request counts as the provider said and only what was added since is
   * estimated (the components are scaled to the total so the breakdown adds up to it).
   */
  function account(messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]): Accounting {
    const c = components(messages, system, tools);
    const classes: ClassTokens = {};
    const add = (cls: BandClass, tokens: number) => (classes[cls] = (classes[cls] ?? 0) + Math.max(0, tokens));
    const base = estimates.base;
    if (baseApplies(base, messages, limits.model)) {
      // The messages of the base are counted by the provider; new messages and changed fixed parts are not.
      let delta = 0;
      for (let i = base.messages.length; i < messages.length; i++) {
        const t = tokensOf(messages[i]);
        add(bandClass(messages[i]), t);
        delta += t;
      }
      const now = fixedParts(system, tools);
      const then = fixedParts(base.system, base.tools);
      const prose = now.system + now.rules + now.deferredTools - (then.system + then.rules + then.deferredTools) - noteTokens(base.note);
      const toolChange = now.tools - then.tools;
      add('prose', prose);
      add('tools', toolChange);
      delta += prose + toolChange;
      return { components: scaleToTotal(c, base.reported + delta), confirmed: base.reported, estimated: delta, classes };
    }
    for (const m of messages) add(bandClass(m), tokensOf(m));
    for (const p of [...systemRaw(system), ...toolsParts(tools)]) add(p.cls, scaledAs(p.cls, p.raw));
    return { components: c, estimated: sumOf(c), classes };
  }

  function check(c: BudgetComponents, compactionAttempted: boolean): PreflightResult {
    return preflight(
      { committed: c.messages + c.toolResults + c.summary, pending: c.system + c.rules, newTokens: 0, schema: c.tools + c.deferredTools, compactionAttempted, components: c },
      limits,
      guardOptions,
    );
  }

  /**
   * Tokenizer counts for what is about to be sent, within the timeout (the estimates stand otherwise).
   * A byte estimate undercounts dense text (random base64 ×2.8, hex ×2.3, JSON ×1.7 measured with o200k),
   * so when counts are still missing after the timeout and the worst case could reach the compact
   * threshold, it keeps waiting (up to `exactCountMaxWaitMs`): a slower request beats an overflow.
   */
  async function countExactly(input: PreflightInput): Promise<void> {
    const all = Promise.all(input.messages.map((m) => ledger.countExact(m, family)));
    if (await settlesWithin(all, options.exactCountTimeoutMs ?? 2000)) return;
    let uncounted = 0;
    for (const m of input.messages) {
      const c = ledger.count(m, family);
      if (!c.exact) uncounted += c.tokens;
    }
    const c = components(input.messages, input.system, input.tools);
    const worstCase = c.system + c.rules + c.tools + c.deferredTools + c.summary + c.messages + c.toolResults + uncounted * (WORST_BYTE_ESTIMATE_FACTOR - 1);
    if (worstCase >= thresholds.compact * limits.effectiveWindow) await settlesWithin(all, options.exactCountMaxWaitMs ?? 30_000);
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
        const needs = input.reason === 'overflow' || asked !== undefined || (input.reason === 'request' && (r.status === 'compact' || r.status === 'block'));
        if (needs && !signal.aborted) {
          const started = Date.now();
          const before = r.projection.total;
          const fixed = c.system + c.tools + c.rules + c.deferredTools;
          let targetTokens = Math.max(0, Math.floor(compactTarget * limits.effectiveWindow) - fixed);
          // After an overflow our figures are not to be trusted, and a model that asks wants space now:
          // either way free at least half.
          if (trigger !== 'threshold') targetTokens = Math.min(targetTokens, Math.floor((c.messages + c.toolResults) / 2));
          let out: CompactOutput | undefined;
          try {
            out = await compactHook({ messages, tokensOf, targetTokens, trigger, focus: asked?.focus, effectiveWindow: limits.effectiveWindow, prefix: lastPrefix }, signal);
          } catch {
            out = undefined;
          }
          if (out && out.messages !== messages) {
            replaced = out.messages;
            const beforeMessages = messages.length;
            messages = out.messages;
            c = account(messages, input.system, input.tools).components;
            r = check(c, true);
            compaction = {
              beforeTokens: before,
              afterTokens: r.projection.total,
              beforeMessages,
              afterMessages: messages.length,
              strategies: out.strategies,
              durationMs: Date.now() - started,
              trigger,
              ...(out.summary !== undefined ? { summary: out.summary } : {}),
              ...(out.cost ? { cost: out.cost } : {}),
            };
          } else {
            r = check(c, true);
          }
        }
        if (!needs && options.prepare && input.reason === 'request' && r.prepareSummary && !signal.aborted) {
          const fixed = c.system + c.tools + c.rules + c.deferredTools;
          const growth = Math.max(0, thresholds.compact - thresholds.background) * limits.effectiveWindow;
          const targetTokens = Math.max(0, Math.floor(compactTarget * limits.effectiveWindow - fixed - growth));
          try {
            options.prepare({ messages, tokensOf, targetTokens, trigger: 'threshold', effectiveWindow: limits.effectiveWindow });
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
        const c = account(view, lastSystem, lastTools).components;
        const r = check(c, false);
        // Unscaled: a factor learned on other content must never lower the estimate of a new result.
        return admit({ bytes: sizes.bytes, tokens: sizes.estimatedTokens }, r.projection, guardOptions).decision;
      } catch {
        return 'offload';
      }
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
        status: statusOf(ratio, thresholds),
        budget: budget.toViewModel(),
      };
    },

    observe(request: ProviderRequest, reply: AssistantMessage): void {
      if (reply.stopReason === 'error' || reply.stopReason === 'aborted' || reply.usage.estimated) return;
      const u = reply.usage;
      const reported = reportedInputTokens(u);
      if (reported > 0) {
        // What the meter would have shown for this exact request, before learning from it.
        const a = account(request.messages, request.system, request.tools);
        const note = noteTokens(request.trailingNote);
        add(a.classes, 'prose', note);
        const shownEstimate = a.estimated + note;
        const actual = reported - (sumOf(a.components) + note - shownEstimate);
        const cls = dominantClass(a.classes);
        estimates.band.observe(limits.model, cls, shownEstimate, actual);
        // Calibrate the dominant class on its share of the truth (the other classes' estimates taken as they are).
        const own = a.classes[cls] ?? 0;
        const f = factor(cls);
        if (cls !== 'unmeasured' && own > 0 && f > 0) {
          const others = shownEstimate - own;
          calibration.observe(calibrationKey(limits.model, cls), own / f, { input: Math.max(0, actual - others), output: 0, cacheRead: 0, cacheWrite: 0 });
        }
        estimates.base = { model: limits.model, messages: request.messages, system: request.system, tools: request.tools, note: request.trailingNote, reported };
      }
      // The whole-request factor (raw estimate against the report), for byte estimates of a kind not seen yet.
      let raw = toolsParts(request.tools).reduce((t, p) => t + p.raw, 0) + (request.trailingNote ? ledger.countText(request.trailingNote, family).tokens : 0);
      for (const p of systemRaw(request.system)) raw += p.raw;
      for (const m of request.messages) raw += rawTokens(m);
      calibration.observe(limits.model, raw, u);
      if (request.tools.length) lastPrefix = { model: request.model, contextWindow: limits.contextWindow, system: request.system, tools: request.tools };
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

function statusOf(ratio: number, t: Thresholds): GuardStatus {
  if (ratio >= t.block) return 'block';
  if (ratio >= t.compact) return 'compact';
  if (ratio >= t.note) return 'note';
  return 'ok';
}

function safe<T>(fn: (() => T) | undefined): T | undefined {
  try {
    return fn?.();
  } catch {
    return undefined;
  }
}
