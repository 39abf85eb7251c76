/**
 * How far a compaction compacts: the one definition of the compaction target (the
 * effective window used right after a compaction ≤ 30 %). The gate (threshold, overflow, the model's
 * tool), manual compaction and the background summary all take their target from here. Pure; never throws.
 */
import type { Thresholds } from '../settings';

/** Share of the effective window a compaction aims for. */
export const DEFAULT_COMPACT_TARGET_SHARE = 0.3;

/** Why a compaction runs: the threshold, a provider overflow error, the model's tool, the user. */
export type CompactionTrigger = 'threshold' | 'overflow' | 'tool' | 'manual';

export interface CompactionTargetInput {
  effectiveWindow: number;
  /** Tokens sent with every request besides the conversation: system prompt, rules, tool definitions, stubs. */
  fixedTokens: number;
  /** Tokens the conversation (messages and tool results) holds now. */
  conversationTokens: number;
  trigger: CompactionTrigger;
  thresholds: Pick<Thresholds, 'compact'>;
  /** Default `DEFAULT_COMPACT_TARGET_SHARE`. */
  share?: number;
}

/**
 * Tokens the compacted conversation should fit in: the target share of the effective window minus what
 * is always sent, but never less than that share of the room the conversation has below the compact
 * threshold — in a small window (8k) the system prompt and tool definitions alone can exceed 30 %, and a
 * target of 0 would compact the current turn's own work away, again and again. Any trigger but the
 * threshold also frees at least half of the conversation: after an overflow our figures are not to be
 * trusted, and a model that asks or a person who presses Compact wants space now, even below 30 %.
 */
export function compactionTarget(input: CompactionTargetInput): number {
  const share = input.share ?? DEFAULT_COMPACT_TARGET_SHARE;
  const window = input.effectiveWindow;
  const fixed = Math.max(0, input.fixedTokens);
  const room = Math.max(0, input.thresholds.compact * window - fixed);
  const target = Math.max(0, Math.floor(Math.max(share * window - fixed, share * room)));
  if (input.trigger === 'threshold') return target;
  return Math.min(target, Math.floor(Math.max(0, input.conversationTokens) / 2));
}

/**
 * The target of a summary prepared in the background (from the `background` threshold): the compaction
 * target less the growth the conversation may still see before the compact threshold, so the prepared
 * summary still fits when the compaction comes.
 */
export function preparedSummaryTarget(
  input: Pick<CompactionTargetInput, 'effectiveWindow' | 'fixedTokens' | 'share'> & {
    thresholds: Pick<Thresholds, 'compact' | 'background'>;
  },
): number {
  const share = input.share ?? DEFAULT_COMPACT_TARGET_SHARE;
  const window = input.effectiveWindow;
  const growth = Math.max(0, input.thresholds.compact - input.thresholds.background) * window;
  return Math.max(0, Math.floor(share * window - Math.max(0, input.fixedTokens) - growth));
}
