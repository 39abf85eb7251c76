/**
 * What a provider says about one of its models, in Headroom's words: window, output limit, how it
 * takes thinking, image input, context-management strategies and where it is in its lifecycle. Filled
 * from the provider itself (Anthropic's Models API, VS Code's chat models) or, offline, from the model
 * table. Pure types and small helpers; never throws.
 */

/** Effort levels a model may declare (Anthropic `output_config.effort`, OpenAI `reasoning.effort`). */
export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

/**
 * How a model takes thinking:
 * - `adaptive`: the model decides how much to think, steered by an effort level; its thinking is
 *   output inside `max_tokens` (Anthropic `thinking: {type: "adaptive"}` + `output_config.effort`);
 * - `budget`: a token budget the caller sets (Anthropic `thinking: {type: "enabled", budget_tokens}`);
 * - `effort`: an effort level only (OpenAI `reasoning.effort`);
 * - `none`: no thinking parameter at all.
 */
export type ThinkingStyle = 'adaptive' | 'budget' | 'effort' | 'none';

/** Where a model is in its life: `retired` ones fail every request, `deprecated` ones will. */
export type ModelLifecycle = 'active' | 'deprecated' | 'retired';

export interface ModelCapabilities {
  thinking: ThinkingStyle;
  /** The effort levels it accepts, lowest first (empty: none). */
  efforts: readonly EffortLevel[];
  /** Whether thinking can be turned off (false for models whose thinking is always on). */
  thinkingOff: boolean;
  /** Whether it accepts image input (undefined: not said). */
  images?: boolean;
  /** Whether it accepts the sampling parameters `temperature`, `top_p`, `top_k` (false on adaptive-only models). */
  sampling: boolean;
  /** The provider-side context-management strategies it supports (e.g. `compact_20260112`). */
  contextManagement: readonly string[];
}

/** One model as its provider describes it. */
export interface ProviderModelInfo {
  id: string;
  displayName?: string;
  /** The context window in tokens: input plus `max_tokens` must fit in it. */
  contextWindow?: number;
  /** The largest `max_tokens` it accepts. */
  maxOutput?: number;
  capabilities?: ModelCapabilities;
  lifecycle: ModelLifecycle;
  /** RFC 3339 date of its scheduled retirement, when one is scheduled. */
  retiresAt?: string;
}

/** A positive whole number of tokens below 100M, or undefined (a hostile or broken report). */
export function tokenLimit(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n >= 1 && n < 100_000_000 ? Math.floor(n) : undefined;
}

/** The effort a thinking level asks for on a model that declares `efforts`: the level itself, else the nearest below it, else its lowest. */
export function effortFor(level: EffortLevel, efforts: readonly EffortLevel[]): EffortLevel | undefined {
  if (!efforts.length) return undefined;
  const rank = EFFORT_LEVELS.indexOf(level);
  const below = efforts.filter((e) => EFFORT_LEVELS.indexOf(e) <= rank);
  return below.length ? below.reduce((a, b) => (EFFORT_LEVELS.indexOf(b) > EFFORT_LEVELS.indexOf(a) ? b : a)) : efforts[0];
}
