/**
 * A summary prepared in the background from the `background` threshold (85 %) on, so that the
 * compaction at 95 % usually need not wait for the summarizer (reference 003's async
 * summarization). It covers the turns before a turn start; it is applied only while the view still
 * begins with exactly those turns (after the same earlier summary), and discarded otherwise. Never throws.
 */
import type { Message, Usage } from '../../providers/types';
import { isHistoryMessage, parseHistoryMessage } from '../../context/compaction';

export interface SummaryOutcome {
  summary: string;
  cost: Usage;
  /** Ref ids of results stored so the summarized turns stay retrievable. */
  refs: string[];
  /** Written by the provider's own compaction. */
  native?: boolean;
}

export interface PreparedSummary extends SummaryOutcome {
  /** View index after the summarized turns (the first kept message, a turn start). */
  cut: number;
}

/** What to summarize: `head` = view[start, cut), with `cut` at a turn start. */
export interface BackgroundPlan {
  start: number;
  cut: number;
}

export type SummarizeHead = (
  head: Message[],
  previousSummary: string | undefined,
  signal: AbortSignal,
) => Promise<SummaryOutcome | undefined>;

interface Pending {
  keys: string[];
  previous: string | undefined;
  start: number;
  controller: AbortController;
  promise: Promise<SummaryOutcome | undefined>;
}

/** Identity of a message that survives clearing its tool result (stubs keep role, time and call id). */
function keyOf(m: Message): string {
  if (m.role === 'toolResult') return `r|${m.timestamp}|${m.toolCallId}`;
  const text = m.content.map((p) => (p.type === 'text' ? p.text : p.type === 'toolCall' ? p.id : '')).join('|');
  return `${m.role}|${m.timestamp}|${text.length}|${text.slice(0, 64)}`;
}

export class BackgroundSummary {
  private pending: Pending | undefined;

  /** True while a summary is being prepared or waits to be applied. */
  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Starts preparing a summary of view[plan.start, plan.cut) unless one for the same turns is under way. */
  prepare(view: readonly Message[], plan: BackgroundPlan, summarizeHead: SummarizeHead): void {
    if (this.pending && this.matches(this.pending, view)) return;
    this.discard();
    if (plan.cut <= plan.start || view[plan.cut]?.role !== 'user') return;
    const head = view.slice(plan.start, plan.cut);
    const previous = plan.start === 1 ? parseHistoryMessage(view[0])?.summary : undefined;
    const controller = new AbortController();
    const promise = summarizeHead(head, previous, controller.signal).catch(() => undefined);
    this.pending = { keys: head.map(keyOf), previous, start: plan.start, controller, promise };
  }

  /**
   * The prepared summary when `view` still begins with the turns it covers (waiting for it if it is
   * still running); 'stale' when the history changed under it (it is then discarded); undefined when
   * there is none or it failed.
   */
  async take(view: readonly Message[]): Promise<PreparedSummary | 'stale' | undefined> {
    const p = this.pending;
    if (!p) return undefined;
    if (!this.matches(p, view)) {
      this.discard();
      return 'stale';
    }
    this.pending = undefined;
    const r = await p.promise;
    return r ? { ...r, cut: p.start + p.keys.length } : undefined;
  }

  /** Drops (and aborts) any prepared summary. */
  discard(): void {
    this.pending?.controller.abort();
    this.pending = undefined;
  }

  private matches(p: Pending, view: readonly Message[]): boolean {
    const start = isHistoryMessage(view[0]) ? 1 : 0;
    if (start !== p.start) return false;
    if (start === 1 && parseHistoryMessage(view[0])?.summary !== p.previous) return false;
    const cut = start + p.keys.length;
    if (view.length <= cut || view[cut].role !== 'user') return false;
    for (let i = 0; i < p.keys.length; i++) if (keyOf(view[start + i]) !== p.keys[i]) return false;
    return true;
  }
}
