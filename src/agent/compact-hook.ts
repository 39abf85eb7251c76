/**
 * The compaction hook: what the context gate hands a compaction (the view, a counter, the target, why)
 * and what it gets back. The chain (`agent/compaction/`) implements it; `dropOldestTurnsHook` is the
 * default that needs no model.
 */
import { dropOldestTurns, type AgentPrefix, type CompactionTrigger } from '../context/compaction';
import type { Message, Usage } from '../providers/types';

/** What a compaction hook is given: the view, a token counter for its messages, and the target. */
export interface CompactInput {
  messages: readonly Message[];
  /** Calibrated tokens of one message (memoized). */
  tokensOf: (message: Message) => number;
  /**
   * Calibrated safe estimate of a message outside the conversation (a summary request), with nothing
   * memoized and no tokenizer count started. Default: `tokensOf`.
   */
  estimateOf?: (message: Message) => number;
  /** Tokens the compacted messages should fit in (system and tools already subtracted). */
  targetTokens: number;
  /** `manual`: the user asked (button, command, `/compact`); the gate itself never passes it. */
  trigger: CompactionTrigger;
  /** What the summary should keep (from `compact_context` / `/compact <focus>`). */
  focus?: string;
  /** The model's effective window in tokens (what "freed N %" is measured against). */
  effectiveWindow?: number;
  /** The model's whole context window: a summary request (input and its own output) must fit it. */
  contextWindow?: number;
  /**
   * The agent's request prefix (model, system sections and tools of the last request sent), so the
   * summary request can reuse it and be served from the prompt cache. Absent before any request.
   */
  prefix?: AgentPrefix;
  /**
   * True when the request cannot be sent without compacting (at the block threshold, or refused by the
   * provider): the pass runs even while the loop breaker pauses automatic compaction, because the
   * alternative is a forced final answer (or a failed turn) without compaction having been tried.
   */
  force?: boolean;
}

export interface CompactOutput {
  messages: Message[];
  strategies: string[];
  /** The model summary the compacted view carries, when one was made. */
  summary?: string;
  /** Tokens the summarizer used, when a model was called. */
  cost?: Usage;
  /** The summarizer's model (with `cost`), so the compaction card prices the summary at its rates. */
  model?: string;
}

/**
 * Compacts the view (the compaction chain plugs in here). Resolves undefined when it could not; may reject
 * (treated as undefined). The result must keep every tool call with its result.
 */
export type CompactHook = (input: CompactInput, signal: AbortSignal) => Promise<CompactOutput | undefined>;

/** The deterministic fallback: drop the oldest turns at safe boundaries. */
export const dropOldestTurnsHook: CompactHook = (input) => {
  const r = dropOldestTurns(input.messages, input.tokensOf, input.targetTokens);
  return Promise.resolve(r.dropped > 0 ? { messages: r.messages, strategies: ['drop_oldest_turns'] } : undefined);
};
