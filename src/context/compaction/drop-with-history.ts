/**
 * Chain step c: the deterministic fallback that needs no model. The oldest turns are
 * dropped at safe boundaries (`dropOldestTurns`) behind a history message that carries the earlier
 * summary, the pins and every user instruction of what was dropped, so a fallback forgets no
 * instruction. Always possible, even with a full window. Pure; never throws.
 */
import { historyMessage, isHistoryMessage, parseHistoryMessage } from './history-message';
import { historyPartsFor } from './history-parts';
import type { Message } from '../../providers/types';
import { dropOldestTurns } from './drop-oldest-turns';

export interface DropWithHistoryOptions {
  pins: string[];
  target: number;
  tokensOf: (message: Message) => number;
  instructionsShare?: number;
  /** The work ledger's block, carried verbatim in the history message. */
  ledger?: string;
  /** Why the summary this pass asked for is missing (the history message says so). */
  summaryFailure?: string;
  now?: () => number;
}

/** The compacted view and the messages it no longer holds; undefined when nothing can be dropped. */
export function dropWithHistory(
  view: readonly Message[],
  options: DropWithHistoryOptions,
): { messages: Message[]; gone: Message[] } | undefined {
  const { pins, target, tokensOf } = options;
  const hasHistory = isHistoryMessage(view[0]);
  const previous = hasHistory ? parseHistoryMessage(view[0]) : undefined;
  const body = hasHistory ? view.slice(1) : view;
  // Room for the history message: its fixed parts plus the whole instruction allowance.
  const instructionBudget = Math.floor(target * (options.instructionsShare ?? 0.3));
  let room =
    target -
    tokensOf(
      historyMessage(
        { summary: previous?.summary, pins, instructions: [], ledger: options.ledger, summaryFailure: options.summaryFailure },
        0,
      ),
    ) -
    instructionBudget -
    40;
  let best: { messages: Message[]; gone: Message[] } | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = dropOldestTurns(body, tokensOf, Math.max(0, room));
    if (r.dropped === 0) break;
    const kept = new Set<Message>(r.messages);
    const gone = [...(hasHistory ? [view[0]] : []), ...body.filter((m) => !kept.has(m))];
    const parts = historyPartsFor(gone, r.messages, {
      pins,
      target,
      summary: previous?.summary,
      tokensOf,
      instructionsShare: options.instructionsShare,
      ledger: options.ledger,
      summaryFailure: options.summaryFailure,
    });
    const last = gone[gone.length - 1];
    best = { messages: [historyMessage(parts, last?.timestamp ?? (options.now ?? Date.now)()), ...r.messages], gone };
    const over = best.messages.reduce((s, m) => s + tokensOf(m), 0) - target;
    if (over <= 0) break;
    room -= over; // the estimate was short (a tokenizer counting differently): drop a little more
  }
  return best;
}
