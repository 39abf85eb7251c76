/**
 * What a compaction did, as shown in the chat and saved with the compaction record: the one place the
 * report is assembled, from what the pass did and the context as measured before and after it. Pure.
 */
import type { Usage } from '../../providers/types';
import type { CompactionTrigger } from './target';

export interface CompactionReport {
  /** Tokens of the whole context (system, tools, conversation) before and after. */
  beforeTokens: number;
  afterTokens: number;
  beforeMessages: number;
  afterMessages: number;
  strategies: string[];
  durationMs: number;
  trigger: CompactionTrigger;
  /** The model summary the compacted view now starts with (persist it with the compaction record). */
  summary?: string;
  /** Tokens the summarizer used (absent when no model summary was made). */
  cost?: Usage;
  /** The model that made the summary (with `cost`): its prices are the card's, live and reopened. */
  model?: string;
}

/** What one pass produced (the chain's result or the gate hook's output). */
export interface CompactionOutcome {
  strategies: string[];
  summary?: string;
  cost?: Usage;
  model?: string;
}

/** The context measured around a compaction. */
export interface CompactionMeasure {
  trigger: CompactionTrigger;
  beforeTokens: number;
  afterTokens: number;
  beforeMessages: number;
  afterMessages: number;
  durationMs: number;
}

/** The report of one compaction; the cost is kept only when a model summary was made. */
export function compactionReport(outcome: CompactionOutcome, measured: CompactionMeasure): CompactionReport {
  const withSummary = outcome.summary !== undefined;
  return {
    beforeTokens: measured.beforeTokens,
    afterTokens: measured.afterTokens,
    beforeMessages: measured.beforeMessages,
    afterMessages: measured.afterMessages,
    strategies: outcome.strategies,
    durationMs: measured.durationMs,
    trigger: measured.trigger,
    ...(withSummary ? { summary: outcome.summary } : {}),
    ...(withSummary && outcome.cost ? { cost: outcome.cost } : {}),
    ...(withSummary && outcome.cost && outcome.model ? { model: outcome.model } : {}),
  };
}
