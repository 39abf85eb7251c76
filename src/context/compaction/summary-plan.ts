/**
 * Chain step b, the planning half: where to cut so the turns before the cut are summarized and the
 * recent ones stay verbatim (reference 000's rolling window of N raw turns; reference 003's
 * safe boundaries). Pure; never throws.
 */
import type { Message } from '../../providers/types';
import { findSafeBoundary, safeCuts } from '../turns';
import { isHistoryMessage, parseHistoryMessage, type HistoryParts } from './history-message';

export interface SummaryPlanOptions {
  /** Tokens the compacted messages should fit in (history message + tail). */
  targetTokens: number;
  tokensOf(message: Message): number;
  /** Tokens set aside for the history message (summary, pins, instructions). */
  reserveTokens: number;
  /** Reference 000's rolling window: at most this many recent turns stay raw (0 or undefined: as many as fit). */
  keepTurns?: number;
}

export interface SummaryPlan {
  /** View index of the first message kept after the cut. */
  cut: number;
  /** The messages to summarize, oldest first (an earlier history message is not among them: see `previous`). */
  head: Message[];
  /**
   * The messages kept verbatim. When the cut falls inside the newest turn, that turn's user message is
   * kept in front (the active request is never summarized away).
   */
  tail: Message[];
  /** The history message at the front of the view, parsed (the summary to update). */
  previous?: HistoryParts;
  headTokens: number;
  tailTokens: number;
}

/** The summary plan, or undefined when there is nothing before a safe cut to summarize. */
export function planSummary(view: readonly Message[], options: SummaryPlanOptions): SummaryPlan | undefined {
  const n = view.length;
  const start = isHistoryMessage(view[0]) ? 1 : 0;
  const tokens = view.map((m) => Math.max(0, options.tokensOf(m) || 0));
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + tokens[i];
  const keepBudget = Math.max(0, options.targetTokens - options.reserveTokens);

  let lastUser = -1;
  for (let i = n - 1; i >= start; i--) {
    if (view[i].role === 'user') {
      lastUser = i;
      break;
    }
  }
  // The smallest index whose suffix fits, snapped to a safe cut: down (keeps more) if that still fits, else up.
  let target = n;
  while (target > start && suffix[target - 1] <= keepBudget) target--;
  let cut = findSafeBoundary(view, target, { direction: 'down' });
  if (suffix[cut] > keepBudget) {
    // Keep less: the next turn start at or after the target, else any safe cut (n always is one).
    const safe = safeCuts(view);
    let up = -1;
    for (let i = target; i < n && up < 0; i++) if (view[i].role === 'user' && safe[i]) up = i;
    for (let i = target; i <= n && up < 0; i++) if (safe[i]) up = i;
    cut = up;
  }
  if (options.keepTurns && options.keepTurns > 0) {
    const starts: number[] = [];
    for (let i = start; i < n; i++) if (view[i].role === 'user') starts.push(i);
    const nth = starts[starts.length - options.keepTurns];
    if (nth !== undefined) cut = Math.max(cut, nth);
  }
  cut = Math.max(cut, start);

  let tail: Message[];
  if (lastUser >= 0 && cut > lastUser) {
    // Inside the newest turn: its user message stays in front of the kept steps.
    tail = [view[lastUser], ...view.slice(cut)];
  } else {
    tail = view.slice(cut);
  }
  const head = view.slice(start, cut);
  if (head.length === 0 || (head.length === 1 && head[0] === view[lastUser] && tail[0] === view[lastUser])) return undefined;
  const tailTokens = tail.reduce((s, m) => s + Math.max(0, options.tokensOf(m) || 0), 0);
  return {
    cut,
    head,
    tail,
    previous: start === 1 ? parseHistoryMessage(view[0]) : undefined,
    headTokens: suffix[start] - suffix[cut],
    tailTokens,
  };
}
