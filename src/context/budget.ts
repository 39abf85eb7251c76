/**
 * The component-level context budget and the plain-JSON view model the meter renders.
 * Pure; never throws (negative or non-finite component values count as 0).
 */
import { tokensUntil } from './compaction/context-status';
import { contextShare } from './context-share';
import type { ModelLimits } from './models';
import { DEFAULT_THRESHOLDS, type Thresholds } from './settings';

/** Input-token components of a request. The output reservation is separate (`ModelLimits.maxOutput`). */
export interface BudgetComponents {
  /** System prompt sections (base instructions, context status…). */
  system: number;
  /** Rules and memory files (AGENTS.md, .headroom/rules). */
  rules: number;
  /** Active tool definitions. */
  tools: number;
  /** Deferred-tool stubs (what remains in context of deferred tools). */
  deferredTools: number;
  /** Compaction summary. */
  summary: number;
  /** Conversation messages except tool results. */
  messages: number;
  /** Tool results (inline or their stubs). */
  toolResults: number;
}

export const COMPONENT_NAMES = [
  'system',
  'rules',
  'tools',
  'deferredTools',
  'summary',
  'messages',
  'toolResults',
] as const satisfies ReadonlyArray<keyof BudgetComponents>;

/** Extra facts the meter shows besides the numbers. */
export interface BudgetMeta {
  /** True when `used` is the provider-reported figure of the last request with nothing added since. */
  confirmed?: boolean;
  /** Provider-reported input the figure rests on (the last request, still in the view); absent: all estimated. */
  confirmedTokens?: number;
  /** Tokens estimated on top of `confirmedTokens` (all of `used` without a confirmed base). */
  estimatedTokens?: number;
  /** The estimate's error band in tokens (from observed errors): the truth lies within `used ± bandTokens`. */
  bandTokens?: number;
  /** Relative error of the estimate (e.g. 0.05 for ±5 %): `bandTokens / used`. */
  errorBand?: number;
  /** Share of the last request's input served from cache, 0..1. */
  cacheReadShare?: number;
  /** Deferred tools and the tokens their full definitions would cost. */
  deferredCount?: number;
  deferredSavedTokens?: number;
  /** Tokens freed by the last compaction. */
  lastCompactionFreed?: number;
  thresholds?: Thresholds;
}

/**
 * What the meter needs, as plain JSON. Every fraction is of the effective window (`context-share.ts`):
 * the bar is the input this model can take, its markers are the thresholds themselves.
 */
export interface BudgetViewModel {
  model: string;
  window: number;
  effectiveWindow: number;
  maxOutput: number;
  buffer: number;
  used: number;
  remaining: number;
  /** used / effectiveWindow, 0..1+ (`contextShare`: what the thresholds compare against, and every percent shown). */
  percent: number;
  /** Each component's tokens and share of the effective window. */
  components: Array<{ name: keyof BudgetComponents; tokens: number; fraction: number }>;
  /** Output reservation and buffer in tokens: outside the effective window, so on no bar. */
  reserved: { output: number; buffer: number };
  /** Threshold markers as fractions of the effective window: the thresholds themselves. */
  markers: { note: number; background: number; compact: number; block: number };
  /** True when a provider-reported figure is the base of `used`. */
  confirmed: boolean;
  /** The provider-reported base (null: all estimated). */
  confirmedTokens: number | null;
  /** Tokens estimated on top of the base (may be negative when something left the view since). */
  estimatedTokens: number;
  /** The truth lies within `used ± bandTokens` (0 when nothing is estimated). */
  bandTokens: number;
  /** 'confirmed' (nothing estimated on top), 'confirmed + estimated' or 'estimated ±x %'. */
  accuracy: string;
  errorBand: number;
  cacheReadShare: number | null;
  deferred: { count: number; savedTokens: number };
  lastCompactionFreed: number | null;
  limitSource: ModelLimits['source'];
  /** Tokens until the compact threshold (`tokensUntil`, the rule of `statusAt`); 0 once it is reached. */
  untilCompact: number;
}

const clean = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) && n > 0 ? n : 0);

/** An immutable budget: components against a model's limits. */
export class ContextBudget {
  readonly components: Readonly<BudgetComponents>;

  constructor(
    readonly limits: ModelLimits,
    components: Partial<BudgetComponents>,
    readonly meta: BudgetMeta = {},
  ) {
    const c = {} as BudgetComponents;
    for (const name of COMPONENT_NAMES) c[name] = Math.round(clean(components[name]));
    this.components = Object.freeze(c);
  }

  /** `contextWindow − maxOutput − buffer`. */
  get effectiveWindow(): number {
    return this.limits.effectiveWindow;
  }

  /** Sum of the input components. */
  get used(): number {
    let sum = 0;
    for (const name of COMPONENT_NAMES) sum += this.components[name];
    return sum;
  }

  /** Input tokens left before the effective window is full (negative when over). */
  get remaining(): number {
    return this.effectiveWindow - this.used;
  }

  /** `used / effectiveWindow` (`contextShare`, the one denominator of every percent). */
  get percent(): number {
    return contextShare(this.used, this.effectiveWindow);
  }

  /** A copy with some components replaced (e.g. a new message added). */
  with(components: Partial<BudgetComponents>, meta?: BudgetMeta): ContextBudget {
    return new ContextBudget(this.limits, { ...this.components, ...components }, { ...this.meta, ...meta });
  }

  toViewModel(): BudgetViewModel {
    const w = this.limits.contextWindow;
    const eff = this.effectiveWindow;
    const t = this.meta.thresholds ?? DEFAULT_THRESHOLDS;
    const band = clean(this.meta.errorBand);
    const confirmedTokens =
      this.meta.confirmedTokens !== undefined && Number.isFinite(this.meta.confirmedTokens)
        ? Math.round(clean(this.meta.confirmedTokens))
        : null;
    const confirmed = this.meta.confirmed === true || confirmedTokens !== null;
    const estimatedTokens = Number.isFinite(this.meta.estimatedTokens) ? Math.round(this.meta.estimatedTokens!) : confirmed ? 0 : this.used;
    const bandTokens = estimatedTokens > 0 ? Math.round(clean(this.meta.bandTokens ?? band * this.used)) : 0;
    return {
      model: this.limits.model,
      window: w,
      effectiveWindow: eff,
      maxOutput: this.limits.maxOutput,
      buffer: this.limits.buffer,
      used: this.used,
      remaining: this.remaining,
      percent: this.percent,
      components: COMPONENT_NAMES.map((name) => ({
        name,
        tokens: this.components[name],
        fraction: contextShare(this.components[name], eff),
      })),
      reserved: { output: this.limits.maxOutput, buffer: this.limits.buffer },
      markers: { note: t.note, background: t.background, compact: t.compact, block: t.block },
      confirmed,
      confirmedTokens,
      estimatedTokens,
      bandTokens,
      accuracy: !confirmed ? accuracyLabel(band) : estimatedTokens > 0 ? 'confirmed + estimated' : 'confirmed',
      errorBand: band,
      cacheReadShare: this.meta.cacheReadShare === undefined ? null : Math.min(1, clean(this.meta.cacheReadShare)),
      deferred: { count: Math.round(clean(this.meta.deferredCount)), savedTokens: Math.round(clean(this.meta.deferredSavedTokens)) },
      lastCompactionFreed: this.meta.lastCompactionFreed === undefined ? null : Math.round(clean(this.meta.lastCompactionFreed)),
      limitSource: this.limits.source,
      untilCompact: tokensUntil(this.used, eff, 'compact', t) ?? 0,
    };
  }
}

/**
 * Applies a calibration factor to estimated components (rounded up). Use it when the figures are our
 * estimates; provider-confirmed figures are shown as they are.
 */
export function scaleComponents(components: Partial<BudgetComponents>, factor: number): Partial<BudgetComponents> {
  const f = Number.isFinite(factor) && factor > 0 ? factor : 1;
  const out: Partial<BudgetComponents> = {};
  for (const name of COMPONENT_NAMES) if (components[name] !== undefined) out[name] = Math.ceil(clean(components[name]) * f);
  return out;
}

/** "estimated ±x %" with x rounded to a whole percent (at least 1). */
export function accuracyLabel(errorBand: number): string {
  return `estimated ±${Math.max(1, Math.round(clean(errorBand) * 100))} %`;
}
