/**
 * The deterministic compaction that needs no model (chain step 3): drop the oldest turns,
 * cutting only at safe boundaries, until what is kept fits a token target. A single huge turn keeps
 * its user message and its most recent steps. Pure; never throws. The compaction chain runs
 * before it; this is the step that always works, even with a full window.
 */
import { findSafeBoundary, safeCuts } from '../turns';
import type { Message, UserMessage } from '../../providers/types';

export interface DropResult {
  messages: Message[];
  /** How many messages of the input are not in `messages`. */
  dropped: number;
}

/** The note put in front of the first kept user message, so the model knows history is missing. */
export function droppedNote(count: number): string {
  return `[${count} earlier message${count === 1 ? ' was' : 's were'} removed from the context to free space.]`;
}

const NOTE_PATTERN = /^\[\d+ earlier messages? (was|were) removed from the context/;

/**
 * Keeps the newest messages whose tokens fit `targetTokens` (at least the last user message), cut at a
 * turn start when possible, else at a safe cut inside the last turn with that turn's user message
 * kept in front. Returns the input unchanged (`dropped: 0`) when nothing can be dropped.
 */
export function dropOldestTurns(messages: readonly Message[], tokensOf: (m: Message) => number, targetTokens: number): DropResult {
  const n = messages.length;
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + Math.max(0, tokensOf(messages[i]) || 0);
  let target = n;
  while (target > 0 && suffix[target - 1] <= targetTokens) target--;
  let lastUser = -1;
  for (let i = n - 1; i >= 0; i--) {
    if (messages[i].role === 'user') {
      lastUser = i;
      break;
    }
  }

  let kept: Message[];
  let cut = findSafeBoundary(messages, target, { direction: 'up' });
  if (lastUser < 0 || cut <= lastUser) {
    kept = messages.slice(cut);
  } else {
    cut = lastUser;
    kept = messages.slice(lastUser);
  }
  if (lastUser >= 0 && suffix[cut] > targetTokens) {
    // One turn alone is over the target: keep its user message and the newest steps that fit.
    const safe = safeCuts(messages);
    const userTokens = suffix[lastUser] - suffix[lastUser + 1];
    let c = lastUser + 1;
    while (c < n && (!safe[c] || suffix[c] + userTokens > targetTokens)) c++;
    if (c > lastUser + 1) {
      kept = [messages[lastUser], ...messages.slice(c)];
    }
  }
  const dropped = n - kept.length;
  if (dropped <= 0) return { messages: [...messages], dropped: 0 };
  return { messages: withNote(kept, dropped), dropped };
}

function withNote(kept: Message[], dropped: number): Message[] {
  const first = kept[0];
  if (first?.role !== 'user') return kept;
  // A note from an earlier pass is replaced, not stacked.
  const rest = first.content.filter((p, i) => !(i === 0 && p.type === 'text' && NOTE_PATTERN.test(p.text)));
  const noted: UserMessage = { ...first, content: [{ type: 'text', text: droppedNote(dropped) }, ...rest] };
  return [noted, ...kept.slice(1)];
}
