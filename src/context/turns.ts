/**
 * Turns as the atomic unit of history (reference 003) and the rolling time window
 * (reference 004), applied to the live view (`selectWindow`) and to stored messages at open
 * (`SessionStore.contextView`, through `windowSince`/`windowStart`). Pure; never throw.
 *
 * A cut index `c` splits a history into `messages[0, c)` (compacted away) and `messages[c, n)` (kept).
 * A cut is safe when no tool call before it has its result at or after it. 0 and n are always safe.
 */
import type { Message } from '../providers/types';
import { isHistoryMessage } from './compaction/history-message';

/** Indices where a turn starts: every user message. */
export function parseTurnBoundaries(messages: readonly Message[]): number[] {
  const out: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') out.push(i);
  });
  return out;
}

/** For every cut index 0..n, whether cutting there keeps each tool call with its result. O(n). */
export function safeCuts(messages: readonly Message[]): boolean[] {
  const n = messages.length;
  // A result answers the latest call of its id before it: a server may give calls of different answers
  // one id (every answer's `call_0`), and pairing with the first would forbid every cut between them.
  const callAt = new Map<string, number>();
  // Difference array: a call at c with its result at r forbids cuts c+1..r.
  const delta = new Array<number>(n + 2).fill(0);
  messages.forEach((m, r) => {
    if (m.role === 'assistant') for (const part of m.content) if (part.type === 'toolCall') callAt.set(part.id, r);
    if (m.role !== 'toolResult') return;
    const c = callAt.get(m.toolCallId);
    if (c === undefined || c >= r) return;
    delta[c + 1]++;
    delta[r + 1]--;
  });
  const safe: boolean[] = [];
  let open = 0;
  for (let i = 0; i <= n; i++) {
    open += delta[i];
    safe.push(open === 0);
  }
  return safe;
}

export interface SafeBoundaryOptions {
  /** `down` (default): prefer the nearest cut at or before the target (keeps more); `up`: at or after it. */
  direction?: 'down' | 'up';
}

/**
 * Snaps a target cut index to the nearest safe cut, preferring turn starts (user messages) in the
 * preferred direction, then turn starts in the other direction, then any safe cut, then 0.
 * The result is in [0, n] and never separates a tool call from its result.
 */
export function findSafeBoundary(messages: readonly Message[], target: number, options: SafeBoundaryOptions = {}): number {
  const n = messages.length;
  const t = Math.min(n, Math.max(0, Number.isFinite(target) ? Math.round(target) : 0));
  const safe = safeCuts(messages);
  const isTurnStart = (i: number) => i < n && messages[i].role === 'user' && safe[i];
  const down = (pred: (i: number) => boolean) => {
    for (let i = t; i >= 0; i--) if (pred(i)) return i;
    return -1;
  };
  const up = (pred: (i: number) => boolean) => {
    for (let i = t; i <= n; i++) if (pred(i)) return i;
    return -1;
  };
  const [first, second] = options.direction === 'up' ? [up, down] : [down, up];
  for (const pick of [() => first(isTurnStart), () => second(isTurnStart), () => first((i) => safe[i]), () => second((i) => safe[i])]) {
    const i = pick();
    if (i >= 0) return i;
  }
  return 0;
}

/**
 * The cut index that keeps (roughly) the last `keepTokens` tokens verbatim: the smallest index whose
 * suffix fits, snapped down to a safe boundary (which keeps a little more, never less).
 */
export function boundaryForKeepTokens(messages: readonly Message[], tokensPerMessage: readonly number[], keepTokens: number): number {
  let kept = 0;
  let target = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const t = tokensPerMessage[i] ?? 0;
    if (kept + t > keepTokens) break;
    kept += t;
    target = i;
  }
  return findSafeBoundary(messages, target, { direction: 'down' });
}

export interface WindowOptions {
  /** Time of the last clear (ms since epoch); messages at or before it are out. */
  lastClearAt?: number;
  /** Rolling window length in ms; 0 or undefined = off. */
  windowMs?: number;
  now: number;
}

export interface WindowSelection {
  messages: Message[];
  /** Index in the input of the first message kept after the floor (the history message, when there is one). */
  startIndex: number;
  /** Messages the window took out of the view (0: nothing changed). */
  dropped: number;
  /** The cutoff time used: messages with `timestamp > since` are in. */
  since: number;
}

/** The window's cutoff, max(last clear, now − window): messages with a time after it are in (-Infinity: all). */
export function windowSince(options: WindowOptions): number {
  const clear = Number.isFinite(options.lastClearAt) ? options.lastClearAt! : -Infinity;
  const rolling = options.windowMs && options.windowMs > 0 ? options.now - options.windowMs : -Infinity;
  return Math.max(clear, rolling);
}

/**
 * Index of the first message whose time (`timeOf(i)`, ascending) is after `since`, moved forward to a
 * safe cut so the window never begins with a tool result whose call is outside it.
 */
export function windowStart(messages: readonly Message[], timeOf: (index: number) => number, since: number): number {
  let start = messages.length;
  for (let i = 0; i < messages.length; i++) {
    if (timeOf(i) > since) {
      start = i;
      break;
    }
  }
  if (start === 0) return 0;
  const safe = safeCuts(messages);
  while (start < messages.length && !safe[start]) start++;
  return start;
}

/**
 * How many leading messages the time window never cuts: the history message a compaction put first
 * (summary, pins, carried instructions, work ledger). It stands for everything before it, so it is
 * older than the window by construction; cutting it would make all of that leave the context
 * silently. Only a clear after it removes it (`clearedAt`: the last clear's time).
 */
export function windowFloor(messages: readonly Message[], timeOf: (index: number) => number, clearedAt = -Infinity): number {
  return isHistoryMessage(messages[0]) && timeOf(0) > clearedAt ? 1 : 0;
}

/**
 * Messages since max(last clear, now − window), by their timestamps (the live view), behind the
 * floor (`windowFloor`). The one rule of the rolling window: `SessionStore.contextView` applies the
 * same functions to stored messages.
 */
export function selectWindow(messages: readonly Message[], options: WindowOptions): WindowSelection {
  const since = windowSince(options);
  const timeOf = (i: number) => messages[i].timestamp;
  const floor = windowFloor(messages, timeOf, options.lastClearAt);
  const rest = messages.slice(floor);
  const start = floor + windowStart(rest, (i) => timeOf(floor + i), since);
  return { messages: [...messages.slice(0, floor), ...messages.slice(start)], startIndex: start, dropped: start - floor, since };
}
