/**
 * Every user instruction survives compaction: collected from user messages (and carried forward from
 * earlier history messages), de-duplicated, clipped when long, and fitted to a token budget newest
 * first. Pure; never throw.
 */
import type { Message } from '../../providers/types';
import { byteEstimate } from '../utf8';
import { isHistoryMessage, parseHistoryMessage } from './history-message';

/** The note `dropOldestTurns` puts in front of a kept user message; not an instruction. */
const DROPPED_NOTE = /^\[\d+ earlier messages? (was|were) removed from the context to free space\.\]/;

/** User instructions in `messages`, oldest first; a history message contributes the ones it carries. */
export function collectInstructions(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user') continue;
    if (isHistoryMessage(m)) {
      out.push(...(parseHistoryMessage(m)?.instructions ?? []));
      continue;
    }
    const text = m.content
      .map((p) => (p.type === 'text' ? p.text : '[image]'))
      .join('\n')
      .replace(DROPPED_NOTE, '')
      .trim();
    if (text) out.push(text);
  }
  // A repeated instruction ("continue") is kept once, at its latest position.
  const last = new Map<string, number>();
  out.forEach((t, i) => last.set(t, i));
  return out.filter((t, i) => last.get(t) === i);
}

export interface FitInstructionsOptions {
  /** Token budget for all instructions together. */
  budgetTokens: number;
  /** Instructions longer than this are clipped (default 600 characters). */
  maxChars?: number;
}

/**
 * The instructions that fit, newest kept first. Long ones are clipped to `maxChars`; when not all fit,
 * they are clipped harder (240, then 100 characters) before the oldest are left out (`omitted`).
 */
export function fitInstructions(list: readonly string[], options: FitInstructionsOptions): { instructions: string[]; omitted: number } {
  const first = Math.max(40, options.maxChars ?? 600);
  const limits = [first, ...[240, 100].filter((x) => x < first)];
  let best = { instructions: [] as string[], omitted: list.length };
  for (const maxChars of limits) {
    best = fitWith(list, options.budgetTokens, maxChars);
    if (best.omitted === 0) break;
  }
  return best;
}

function fitWith(list: readonly string[], budgetTokens: number, maxChars: number): { instructions: string[]; omitted: number } {
  const kept: string[] = [];
  let used = 0;
  let i = list.length - 1;
  for (; i >= 0; i--) {
    const text = list[i].length > maxChars ? `${list[i].slice(0, maxChars)} … [clipped; the full text is in the transcript]` : list[i];
    const cost = byteEstimate(Buffer.byteLength(JSON.stringify(text), 'utf8') + 3);
    if (used + cost > budgetTokens) break;
    used += cost;
    kept.push(text);
  }
  return { instructions: kept.reverse(), omitted: i + 1 };
}
