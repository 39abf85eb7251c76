/**
 * Every user instruction survives compaction: collected from user messages (and carried forward from
 * earlier history messages), de-duplicated, clipped when long, and fitted to a token budget: standing
 * instructions first ("from now on…", "always…", "never…", "don't…"), then the rest, newest first
 * within each. Pure; never throw.
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

/**
 * Words that make a user message a standing instruction, one that keeps applying after its turn
 * ("from now on run the linter", "never touch the migrations", "always use tabs"), as opposed to a
 * request for that turn ("carry on with part 12"). When not every user message fits, these are kept
 * first: in a 300-turn session a budget kept newest-first lost every early standing instruction to
 * the turn-by-turn requests that followed it (fidelity_instructions 0.46).
 */
const STANDING =
  /\b(from now on|going forward|always|never|do not|don't|dont|must|make sure|remember|every time|whenever|prefer|instead of|no more|stop)\b/i;

/** True when a user message reads as a standing instruction (see `STANDING`). */
export function isStandingInstruction(text: string): boolean {
  return STANDING.test(text.slice(0, 2000));
}

function fitWith(list: readonly string[], budgetTokens: number, maxChars: number): { instructions: string[]; omitted: number } {
  const keep = new Set<number>();
  let used = 0;
  const clip = (t: string) => (t.length > maxChars ? `${t.slice(0, maxChars)} … [clipped; the full text is in the transcript]` : t);
  const cost = (t: string) => byteEstimate(Buffer.byteLength(JSON.stringify(t), 'utf8') + 3);
  // Standing instructions newest first, then the other messages newest first, each until one does not fit.
  for (const standing of [true, false]) {
    for (let i = list.length - 1; i >= 0; i--) {
      if (isStandingInstruction(list[i]) !== standing) continue;
      const c = cost(clip(list[i]));
      if (used + c > budgetTokens) break;
      used += c;
      keep.add(i);
    }
  }
  const instructions = list.flatMap((t, i) => (keep.has(i) ? [clip(t)] : []));
  return { instructions, omitted: list.length - instructions.length };
}
