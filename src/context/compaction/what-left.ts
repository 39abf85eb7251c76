/**
 * What one compaction did to the context, message by message: what stayed verbatim,
 * what the summary replaced, which tool results were stored out of the context (openable by ref id),
 * what was dropped. The one home for that account: the panel's card shows it live, and the compaction
 * record stores it (`StoredCompactionView`) so a reopened session shows the same view. Pure; never throws.
 */
import { z } from 'zod';
import { CompactionDetails, CompactionReceipt, type ContextLine } from '../../protocol/view-models';
import { assistantText, toolSummary, userText } from '../../providers/message-text';
import type { Message, ToolCallPart, ToolResultMessage, Usage } from '../../providers/types';
import { isHistoryMessage, parseHistoryMessage } from './history-message';
import type { CompactionTrigger } from './target';

/** What one compaction pass changed: the view before and after. */
export interface CompactionChange {
  before: readonly Message[];
  after: readonly Message[];
  /** In order: `clear_tool_results`, `summary` | `resummarize`, `drop_oldest_turns`. */
  strategies: readonly string[];
  summary?: string;
  /** Ref ids of the tool results the pass stored or cleared (each opens with read_result). */
  storedRefIds: readonly string[];
  /**
   * The results of `before` the pass stored that had no ref id there (a summary stores the small ones
   * it summarizes), as stored: with their ref ids, so each is listed by its tool and what its call read.
   */
  storedResults?: readonly ToolResultMessage[];
  /** Which specifics of what left the context the next request still carries. */
  receipt?: CompactionReceipt;
}

/** Whether a chain step summarized (Headroom's summary, its rebuild from the originals, or the provider's own compaction). */
export function isSummaryStrategy(strategy: string): boolean {
  return strategy === 'summary' || strategy === 'resummarize' || strategy === 'native_summary';
}

/** Lines listed per section of the view (the counts say how many there are in all). */
const LISTED = 50;
const LINE_CHARS = 100;

/** "kept: summary + last 2 turns", "kept: every message; 4 old tool results stored", … */
export function keptWords(change: Pick<CompactionChange, 'after' | 'strategies' | 'storedRefIds'>): string {
  const turns = change.after.filter((m) => m.role === 'user' && !isHistoryMessage(m)).length;
  const last = turns === 0 ? 'no earlier turns' : turns === 1 ? 'the last turn' : `last ${turns} turns`;
  const summarized = change.strategies.some(isSummaryStrategy);
  const dropped = change.strategies.includes('drop_oldest_turns');
  const stored = change.storedRefIds.length;
  const storedWords = stored ? `; ${stored} tool ${stored === 1 ? 'result' : 'results'} stored out of context` : '';
  // The provider's own compaction wrote the summary: said, since its cost and wording are the provider's.
  const summary = change.strategies.includes('native_summary') ? 'summary (by the provider’s compaction)' : 'summary';
  if (summarized && dropped) return `kept: ${summary} + your instructions + ${last}; older turns dropped${storedWords}`;
  if (summarized) return `kept: ${summary} + ${last}${storedWords}`;
  if (dropped) return `kept: your instructions + ${last}; older turns dropped${storedWords}`;
  return `kept: every message${storedWords}`;
}

/**
 * The turns a compacted view kept verbatim (its prompts, not the summary standing in for the rest):
 * the chat's divider goes above the first of them, live and in a reopened transcript.
 */
export function keptTurns(after: readonly Message[]): number {
  return after.filter((m) => m.role === 'user' && !isHistoryMessage(m)).length;
}

/** What left the context and what stayed, message by message (lists capped; counts exact). */
export function compactionDetails(change: CompactionChange): CompactionDetails {
  const after = new Set(change.after);
  // A stub keeps its result's call id and time: both, since a server may give calls of different answers one id.
  const resultKey = (m: ToolResultMessage) => `${m.timestamp}|${m.toolCallId}`;
  const afterCalls = new Set(change.after.flatMap((m) => (m.role === 'toolResult' ? [resultKey(m)] : [])));
  const kept = change.after.filter((m) => !isHistoryMessage(m));
  // Gone: neither kept as is nor replaced by a stored-result stub (the same call, cleared).
  const gone = change.before.filter(
    (m) => !after.has(m) && !isHistoryMessage(m) && !(m.role === 'toolResult' && afterCalls.has(resultKey(m))),
  );
  const summarized = change.strategies.some(isSummaryStrategy);
  const copies = new Map((change.storedResults ?? []).map((m) => [resultKey(m), m]));
  const named = change.before.map((m) => (m.role === 'toolResult' && !m.refId ? (copies.get(resultKey(m)) ?? m) : m));
  const storedAs = storedResults([...named, ...change.after]);
  const details: CompactionDetails = {
    kept: kept.slice(-LISTED).map(contextLine),
    keptCount: kept.length,
    summarized: summarized ? gone.slice(0, LISTED).map(contextLine) : [],
    summarizedCount: summarized ? gone.length : 0,
    // Every tool result that left with a ref id: stored by this pass, or stored earlier and now summarized or dropped.
    stored: [...new Set([...change.storedRefIds, ...gone.flatMap((m) => (m.role === 'toolResult' && m.refId ? [m.refId] : []))])]
      .slice(0, 200)
      .map((refId) => ({ refId, ...storedAs.get(refId) })),
    dropped: summarized ? [] : gone.slice(0, LISTED).map(contextLine),
    droppedCount: summarized ? 0 : gone.length,
  };
  if (change.summary) details.summary = change.summary;
  return details;
}

/**
 * Each stored result's tool and what its call acted on ("read_file", "src/parser.ts"), by ref id: a
 * result follows its call, the latest call of its id before it (servers may repeat ids).
 */
function storedResults(messages: readonly Message[]): Map<string, { toolName: string; target?: string }> {
  const calls = new Map<string, ToolCallPart>();
  const out = new Map<string, { toolName: string; target?: string }>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const p of m.content) if (p.type === 'toolCall') calls.set(p.id, p);
    if (m.role !== 'toolResult' || !m.refId || out.has(m.refId)) continue;
    const call = calls.get(m.toolCallId);
    const target = call ? toolSummary(call) : '';
    out.set(m.refId, target ? { toolName: m.toolName, target } : { toolName: m.toolName });
  }
  return out;
}

/** One message as one line: "You: fix the tests", "Headroom: …", "read_file result (stored)" (the stored list opens it). */
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
  return { role: 'tool', text: clip(`${m.toolName} result${m.refId ? ' (stored)' : ''}${m.isError ? ', failed' : ''}`) };
}

function clip(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

const tokens = z.number().nonnegative().finite();

/**
 * The "what left" view as stored with a compaction record (version 1). Read back as hostile input:
 * a record that does not parse is shown without its view, never trusted.
 */
export const StoredCompactionView = z.object({
  v: z.literal(1),
  trigger: z.enum(['threshold', 'overflow', 'tool', 'manual']),
  kept: z.string().max(1_000),
  details: CompactionDetails,
  /** The summarizer's tokens and model (for the card's cost), when a model summary was made. */
  cost: z.object({ input: tokens, output: tokens, cacheRead: tokens, cacheWrite: tokens }).optional(),
  model: z.string().max(200).optional(),
  receipt: CompactionReceipt.optional(),
});
export type StoredCompactionView = z.infer<typeof StoredCompactionView>;

/** The view to store with a compaction record. */
export function storedCompactionView(
  change: CompactionChange,
  pass: { trigger: CompactionTrigger; cost?: Usage; model?: string },
): StoredCompactionView {
  const view: StoredCompactionView = { v: 1, trigger: pass.trigger, kept: keptWords(change), details: compactionDetails(change) };
  if (change.receipt) view.receipt = change.receipt;
  const used = pass.cost;
  if (change.summary !== undefined && used && used.input + used.output > 0) {
    view.cost = { input: used.input, output: used.output, cacheRead: used.cacheRead, cacheWrite: used.cacheWrite };
    if (pass.model) view.model = pass.model.slice(0, 200);
  }
  return view;
}

/** A stored view read back (undefined when absent or not valid). */
export function parseStoredCompactionView(value: unknown): StoredCompactionView | undefined {
  const parsed = StoredCompactionView.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A stored compaction, as a reopened session's panel rebuilds its card (its figures and stored view). */
export interface StoredCompaction {
  id: string;
  beforeTokens: number;
  afterTokens: number;
  durationMs: number | null;
  summary: string | null;
  /** The stored "what left" view; absent for compactions recorded before it was stored. */
  view?: StoredCompactionView;
}

/** A compaction record (the store's) as a `StoredCompaction`: its view only when it is valid. */
export function storedCompaction(record: {
  id: string;
  beforeTokens: number;
  afterTokens: number;
  durationMs: number | null;
  summary: string | null;
  report: unknown;
}): StoredCompaction {
  const view = parseStoredCompactionView(record.report);
  return {
    id: record.id,
    beforeTokens: record.beforeTokens,
    afterTokens: record.afterTokens,
    durationMs: record.durationMs,
    summary: record.summary,
    ...(view ? { view } : {}),
  };
}
