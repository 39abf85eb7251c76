/**
 * Reasoning effort / thinking budget and its place in the output reservation. Pure; never throws.
 *
 * A model's reasoning tokens are output tokens: Anthropic counts `thinking.budget_tokens` inside
 * `max_tokens`, OpenAI counts reasoning tokens inside `max_output_tokens`. So the budget is reserved
 * like the answer is: the reservation grows to hold the answer's room (`maxOutput` as resolved) plus
 * the budget, up to what the model can emit, and the usable input shrinks by as much.
 */
import { providerEntry, type ProviderId } from '../common/provider-catalogue';
import { findModel, supportsReasoning, type ModelLimits } from './models';

/** The levels people choose from; `off` sends no reasoning parameter at all. */
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/**
 * Token budget per level. OpenAI's effort is derived from it (`reasoningEffort`: ≤ 2,048 low,
 * ≤ 8,192 medium, above high), so each level maps back to its own effort.
 */
export const THINKING_BUDGETS: Readonly<Record<ThinkingLevel, number>> = { off: 0, low: 2_048, medium: 8_192, high: 24_576 };

/** Limits with the thinking budget counted in: `maxOutput` is the whole output reservation. */
export interface ThinkingLimits extends ModelLimits {
  /** Of `maxOutput`, the tokens reserved for reasoning (0 when off or unsupported). */
  thinkingBudget: number;
}

/**
 * Whether a thinking level can be chosen for a model: it reasons (the table's `reasoning`, else its
 * id) and its provider has a parameter to send it with (VS Code's Language Model API has none).
 */
export function thinkingConfigurable(provider: ProviderId, model: string): boolean {
  return providerEntry(provider).endpoint !== 'vscode' && supportsReasoning(model);
}

/** The thinking budget a model gets at a level: 0 when off or not configurable, so none is sent in vain. */
export function thinkingBudgetFor(provider: ProviderId, model: string, level: ThinkingLevel): number {
  return level === 'off' || !thinkingConfigurable(provider, model) ? 0 : THINKING_BUDGETS[level];
}

/**
 * Counts a thinking budget in the output reservation: `maxOutput` becomes answer room + budget,
 * capped at the model's output limit (the table's, else half the window, the cap `resolveModelLimits`
 * uses); the buffer is kept, and `effectiveWindow` shrinks by what the reservation grew. A model whose
 * resolved `maxOutput` already is its output limit keeps it: the budget is spent inside it (the
 * provider adapters leave room for the answer). Never throws.
 */
export function withThinking(limits: ModelLimits, level: ThinkingLevel): ThinkingLimits {
  const budget = thinkingBudgetFor(limits.provider, limits.model, level);
  if (!budget) return { ...limits, thinkingBudget: 0 };
  const halfWindow = Math.max(1, Math.floor(limits.contextWindow / 2));
  const ceiling = Math.min(halfWindow, Math.max(limits.maxOutput, findModel(limits.model)?.maxOutput ?? halfWindow));
  const maxOutput = Math.min(ceiling, limits.maxOutput + budget);
  const buffer = Math.min(limits.buffer, Math.max(0, limits.contextWindow - maxOutput - 1));
  return {
    ...limits,
    maxOutput,
    buffer,
    effectiveWindow: Math.max(1, limits.contextWindow - maxOutput - buffer),
    thinkingBudget: Math.min(budget, maxOutput),
  };
}
