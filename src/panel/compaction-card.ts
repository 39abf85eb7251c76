/**
 * The compaction card in plain words, live or rebuilt from a stored compaction, with
 * the view of what it did to the context (assembled in `context/compaction/what-left.ts`).
 * The one home for how a compaction is described to people; strategy names never reach the panel.
 * Pure (no vscode); never throws.
 */
import type { CompactionChange, CompactionReport } from '../agent/events';
import { compactionDetails, keptWords, type StoredCompaction } from '../context/compaction';
import { formatDuration, formatTokens, formatUsd } from '../protocol/format';
import type { ChatItemOf } from '../protocol/view-models';
import { receiptView } from './receipt-view';

/** The divider's words: everything above it has left the model's context (the transcript keeps it). */
export const DIVIDER_TEXT = 'above: no longer in the model’s context';

export { compactionDetails, contextLine, keptWords } from '../context/compaction';

const TRIGGER: Record<CompactionReport['trigger'], string> = {
  threshold: 'Compacted automatically',
  overflow: 'Compacted after the provider said the request was too long',
  tool: 'Compacted at the model’s request',
  manual: 'Compacted',
};

/**
 * The card for a finished compaction; `change` (from the pass's `compaction_end`) adds "kept" and the
 * view; `cost` is what its summary request cost in US dollars (undefined: unknown or no model call).
 */
export function compactionCard(
  id: string,
  report: CompactionReport,
  change: CompactionChange | undefined,
  cost?: number,
): ChatItemOf<'compaction'> {
  const freed = Math.max(0, report.beforeTokens - report.afterTokens);
  const took = ` Took ${formatDuration(report.durationMs)}${cost !== undefined ? `, cost ${formatUsd(cost)}` : report.cost ? '' : ', no model call'}.`;
  const item: ChatItemOf<'compaction'> = {
    kind: 'compaction',
    id,
    freedTokens: freed,
    durationMs: Math.max(0, report.durationMs),
    ...(cost !== undefined ? { cost } : {}),
    text: `${TRIGGER[report.trigger]}: ${formatTokens(report.beforeTokens)} → ${formatTokens(report.afterTokens)} tokens, freed ${formatTokens(freed)}. The whole conversation stays in the transcript.${took}`,
  };
  const summary = report.summary ?? change?.summary;
  if (summary) item.summary = summary;
  if (change) {
    item.kept = keptWords(change);
    item.details = compactionDetails(change);
    if (change.receipt) item.receipt = receiptView(change.receipt);
  }
  return item;
}

/**
 * The card of a compaction read back from the store: the same words, view and receipt as when it ran
 * (`cost`: its summary in US dollars, when known; `pins`: the session's, so a pinned missing item says
 * so). Without a stored view (an older session) the card says only what the record knows.
 */
export function storedCompactionCard(id: string, c: StoredCompaction, cost?: number, pins?: readonly string[]): ChatItemOf<'compaction'> {
  const report: CompactionReport = {
    beforeTokens: c.beforeTokens,
    afterTokens: c.afterTokens,
    beforeMessages: 0,
    afterMessages: 0,
    strategies: [],
    durationMs: c.durationMs ?? 0,
    trigger: c.view?.trigger ?? 'manual',
    ...(c.summary !== null ? { summary: c.summary } : {}),
    ...(c.view?.cost ? { cost: c.view.cost } : {}),
  };
  const item = compactionCard(id, report, undefined, cost);
  if (c.view) {
    item.kept = c.view.kept;
    item.details = c.view.details;
    if (c.view.receipt) item.receipt = receiptView(c.view.receipt, pins);
  }
  return item;
}
