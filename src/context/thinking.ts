/**
 * Thinking as each model takes it, and its place in the output reservation. Pure; never throws.
 *
 * A level the person chose (off / low / medium / high / max) becomes what the model's capabilities
 * accept (`ModelCapabilities.thinking`):
 * - adaptive models get `thinking: adaptive` with the effort they declare nearest the level; their
 *   thinking is output inside `max_tokens`, so the reservation stays the answer's
 *   (https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking,
 *   https://platform.claude.com/docs/en/build-with-claude/effort);
 * - budget models get a token budget, which Anthropic counts inside `max_tokens`: the reservation
 *   grows to hold the answer's room plus the budget, up to what the model can emit
 *   (https://platform.claude.com/docs/en/build-with-claude/extended-thinking);
 * - OpenAI reasoning models get an effort (reasoning tokens are output inside `max_output_tokens`,
 *   https://developers.openai.com/api/docs/guides/reasoning);
 * - a model without thinking gets nothing. `off` turns thinking off only where the model allows it
 *   (else the model's own default stands); no level ever sends a parameter the model does not take.
 */
import type { EffortLevel, ModelCapabilities } from '../providers/model-info';
import { effortFor } from '../providers/model-info';
import type { RequestThinking } from '../providers/types';
import { findModel, type ModelLimits } from './models';

/** The levels people choose from; `off` sends no thinking (or turns it off where the model allows). */
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high', 'max'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Token budget per level, for models that take a budget. */
export const THINKING_BUDGETS: Readonly<Record<ThinkingLevel, number>> = { off: 0, low: 2_048, medium: 8_192, high: 24_576, max: 32_000 };

/** The effort a level asks for (`max` is the model's highest). */
const LEVEL_EFFORT: Readonly<Record<Exclude<ThinkingLevel, 'off'>, EffortLevel>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  max: 'max',
};

/** Limits with the thinking counted in: `maxOutput` is the whole output reservation. */
export interface ThinkingLimits extends ModelLimits {
  /** Of `maxOutput`, the tokens reserved for a thinking budget (0 unless the model takes a budget). */
  thinkingBudget: number;
  /** What every request of the session carries for thinking; absent: nothing. */
  thinking?: RequestThinking;
}

/**
 * The levels the picker offers for a model: none for a model without thinking; off and the three
 * budgets for a budget model; the levels whose effort the model declares (and off where thinking can
 * be turned off) for adaptive and effort models.
 */
export function thinkingLevels(caps: ModelCapabilities): readonly ThinkingLevel[] {
  if (caps.thinking === 'none') return [];
  if (caps.thinking === 'budget') return ['off', 'low', 'medium', 'high'];
  const levels: ThinkingLevel[] = caps.thinkingOff ? ['off'] : [];
  for (const level of ['low', 'medium', 'high'] as const) if (caps.efforts.includes(level)) levels.push(level);
  if (caps.efforts.includes('max') || caps.efforts.includes('xhigh')) levels.push('max');
  return levels.length > (caps.thinkingOff ? 1 : 0) ? levels : [];
}

/** A level the picker offers and what a request at it carries (absent: no thinking parameter). */
export interface ThinkingOffer {
  level: ThinkingLevel;
  request?: RequestThinking;
}

/**
 * The levels the picker offers for a model, each with what a request at that level sends, so the
 * picker words a level by what the model takes (a token budget or an effort), never by the list's shape.
 */
export function thinkingOffers(caps: ModelCapabilities): readonly ThinkingOffer[] {
  return thinkingLevels(caps).map((level) => {
    const request = requestThinking(caps, level);
    return request ? { level, request } : { level };
  });
}

/** What a request carries for `level` on a model with these capabilities (undefined: no thinking parameter). */
export function requestThinking(caps: ModelCapabilities, level: ThinkingLevel): RequestThinking | undefined {
  switch (caps.thinking) {
    case 'none':
      return undefined;
    case 'budget':
      return level === 'off' ? undefined : { mode: 'budget', budgetTokens: THINKING_BUDGETS[level] };
    case 'adaptive':
    case 'effort': {
      if (level === 'off') return caps.thinkingOff ? { mode: 'disabled' } : undefined;
      const effort = effortFor(LEVEL_EFFORT[level], caps.efforts);
      if (caps.thinking === 'effort') return effort ? { mode: 'effort', effort } : undefined;
      return effort ? { mode: 'adaptive', effort } : { mode: 'adaptive' };
    }
  }
}

/**
 * Counts a level's thinking in the output reservation. A budget makes `maxOutput` answer room +
 * budget, capped at the model's output limit (the table's, else half the window, the cap
 * `resolveModelLimits` uses); the buffer is kept, and `effectiveWindow` shrinks by what the
 * reservation grew. A model whose resolved `maxOutput` already is its output limit keeps it: the
 * budget is spent inside it (the adapters leave room for the answer). Adaptive and effort thinking is
 * inside `max_tokens` already: the reservation is unchanged. Never throws.
 */
export function withThinking(limits: ModelLimits, level: ThinkingLevel): ThinkingLimits {
  const thinking = requestThinking(limits.capabilities, level);
  if (thinking?.mode !== 'budget') return { ...limits, thinkingBudget: 0, ...(thinking ? { thinking } : {}) };
  const budget = thinking.budgetTokens;
  const halfWindow = Math.max(1, Math.floor(limits.contextWindow / 2));
  const ceiling = Math.min(halfWindow, Math.max(limits.maxOutput, findModel(limits.model)?.maxOutput ?? halfWindow));
  const maxOutput = Math.min(ceiling, limits.maxOutput + budget);
  const buffer = Math.min(limits.buffer, Math.max(0, limits.contextWindow - maxOutput - 1));
  const thinkingBudget = Math.min(budget, maxOutput);
  return {
    ...limits,
    maxOutput,
    buffer,
    effectiveWindow: Math.max(1, limits.contextWindow - maxOutput - buffer),
    thinkingBudget,
    thinking: { mode: 'budget', budgetTokens: thinkingBudget },
  };
}
