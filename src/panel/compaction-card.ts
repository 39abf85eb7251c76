/**
 * The compaction card in plain words (issue 19 item 2) and the view of what one compaction did to the
 * context (issue 14 item 6): what stayed verbatim, what the summary replaced, which tool results were
 * stored out of the context (openable by ref id), what was dropped. The one home for how a compaction
 * is described to people; strategy names never reach the panel. Pure (no vscode); never throws.
 */
import type { CompactionChange, CompactionReport } from '../agent/events';
import { isHistoryMessage, parseHistoryMessage } from '../context/compaction';
import { formatDuration, formatTokens, formatUsd } from '../protocol/format';
import type { ChatItemOf, CompactionDetails, ContextLine } from '../protocol/view-models';
import type { Message } from '../providers/types';
import { assistantText, userText } from './transcript-items';

/** Lines listed per section of the view (the counts say how many there are in all). */
const LISTED = 50;
const LINE_CHARS = 100;

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
  }
  return item;
}

/** "kept: summary + last 2 turns", "kept: every message; 4 old tool results stored", … */
export function keptWords(change: Pick<CompactionChange, 'after' | 'strategies' | 'storedRefIds'>): string {
  const turns = change.after.filter((m) => m.role === 'user' && !isHistoryMessage(m)).length;
  const last = turns === 0 ? 'no earlier turns' : turns === 1 ? 'the last turn' : `last ${turns} turns`;
  const summarized = change.strategies.some((s) => s === 'summary' || s === 'resummarize');
  const dropped = change.strategies.includes('drop_oldest_turns');
  const stored = change.storedRefIds.length;
  const storedWords = stored ? `; ${stored} tool ${stored === 1 ? 'result' : 'results'} stored out of context` : '';
  if (summarized && dropped) return `kept: summary + your instructions + ${last}; older turns dropped${storedWords}`;
  if (summarized) return `kept: summary + ${last}${storedWords}`;
  if (dropped) return `kept: your instructions + ${last}; older turns dropped${storedWords}`;
  return `kept: every message${storedWords}`;
}

/** What left the context and what stayed, message by message (lists capped; counts exact). */
export function compactionDetails(change: CompactionChange): CompactionDetails {
  const after = new Set(change.after);
  const afterCalls = new Set(change.after.flatMap((m) => (m.role === 'toolResult' ? [m.toolCallId] : [])));
  const kept = change.after.filter((m) => !isHistoryMessage(m));
  // Gone: neither kept as is nor replaced by a stored-result stub (the same call, cleared).
  const gone = change.before.filter(
    (m) => !after.has(m) && !isHistoryMessage(m) && !(m.role === 'toolResult' && afterCalls.has(m.toolCallId)),
  );
  const summarized = change.strategies.some((s) => s === 'summary' || s === 'resummarize');
  const toolOf = new Map<string, string>();
  for (const m of [...change.before, ...change.after]) if (m.role === 'toolResult' && m.refId) toolOf.set(m.refId, m.toolName);
  const details: CompactionDetails = {
    kept: kept.slice(-LISTED).map(contextLine),
    keptCount: kept.length,
    summarized: summarized ? gone.slice(0, LISTED).map(contextLine) : [],
    summarizedCount: summarized ? gone.length : 0,
    stored: [...new Set(change.storedRefIds)].slice(0, 200).map((refId) => {
      const toolName = toolOf.get(refId);
      return toolName ? { refId, toolName } : { refId };
    }),
    dropped: summarized ? [] : gone.slice(0, LISTED).map(contextLine),
    droppedCount: summarized ? 0 : gone.length,
  };
  if (change.summary) details.summary = change.summary;
  return details;
}

/** One message as one line: "You: fix the tests", "Headroom: …", "read_file result (stored as r12)". */
export function contextLine(m: Message): ContextLine {
  if (m.role === 'user') {
    if (isHistoryMessage(m)) return { role: 'summary', text: clip(parseHistoryMessage(m)?.summary ?? 'Earlier history') };
    return { role: 'user', text: clip(userText(m)) };
  }
  if (m.role === 'assistant') {
    const { text } = assistantText(m);
    const calls = m.content.flatMap((p) => (p.type === 'toolCall' ? [p.name] : []));
    const called = calls.length ? `${text ? ' ' : ''}[calls ${calls.join(', ')}]` : '';
    return { role: 'assistant', text: clip(`${text}${called}`) || '(empty answer)' };
  }
  return { role: 'tool', text: clip(`${m.toolName} result${m.refId ? ` (stored as ${m.refId})` : ''}${m.isError ? ', failed' : ''}`) };
}

function clip(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}
