/**
 * What the history message says for a compaction: the summary, the pins, and the user instructions of
 * the compacted messages that the kept messages do not already quote. Pure; never throws.
 */
import type { Message } from '../../providers/types';
import { historyMessage, isHistoryMessage, parseHistoryMessage, type HistoryParts } from './history-message';
import { collectInstructions, fitInstructions } from './instructions';

export interface HistoryPartsOptions {
  pins: string[];
  /** Tokens the compacted view (history message + kept messages) should fit in. */
  target: number;
  /** The model summary; undefined for a compaction without a model. */
  summary: string | undefined;
  tokensOf: (message: Message) => number;
  /** Share of `target` the instructions may always take (default 0.3); more when the target leaves room. */
  instructionsShare?: number;
  /** The work ledger's block, carried verbatim. */
  ledger?: string;
  /** True when `summary` was just made from `gone` (the summary step); false for a carried one or none. */
  freshSummary?: boolean;
  /** Why a summary that was asked for is missing. */
  summaryFailure?: string;
}

/** History parts for the messages compacted away (`gone`, possibly led by an earlier history message). */
export function historyPartsFor(gone: readonly Message[], kept: readonly Message[], options: HistoryPartsOptions): HistoryParts {
  const { pins, target, summary, tokensOf } = options;
  const stillThere = new Set(collectInstructions(kept.filter((m) => !isHistoryMessage(m))));
  const all = collectInstructions(gone).filter((t) => !stillThere.has(t));
  // The instruction allowance, or whatever room the target leaves beside the kept messages if that is more.
  const ledger = options.ledger?.trim() ? options.ledger : undefined;
  const fixed = tokensOf(
    historyMessage({ summary, pins, instructions: [], omittedInstructions: all.length, ledger, summaryFailure: options.summaryFailure }, 0),
  );
  const room = target - kept.reduce((s, m) => s + tokensOf(m), 0) - fixed - 24;
  // Without a summary made from these messages, the instructions are all that carries the user's words:
  // verbatim first, clipped only when that does not fit.
  const fresh = summary !== undefined && options.freshSummary === true;
  const fitted = fitInstructions(all, {
    budgetTokens: Math.max(Math.floor(target * (options.instructionsShare ?? 0.3)), room),
    maxChars: fresh ? undefined : Number.POSITIVE_INFINITY,
  });
  const carried = parseHistoryMessage(gone[0])?.omittedInstructions ?? 0;
  return {
    summary,
    pins,
    instructions: fitted.instructions,
    omittedInstructions: fitted.omitted + carried || undefined,
    ...(fresh ? { summaryCoversOmitted: true } : {}),
    ...(options.summaryFailure && !fresh ? { summaryFailure: options.summaryFailure } : {}),
    ...(ledger ? { ledger } : {}),
  };
}
