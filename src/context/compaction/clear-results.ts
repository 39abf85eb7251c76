/**
 * Chain step a: clear old tool results. The newest results stay; older ones are replaced
 * by a short stub that names the `read_result` ref id, so nothing becomes unreachable. A result that
 * was never offloaded must be stored first (the plan says which); the caller does that I/O and hands
 * the ref ids to `applyClearPlan`. Pure; never throw.
 */
import { resultText } from '../../providers/tool-result-text';
import type { Message, ToolResultMessage } from '../../providers/types';

export const CLEARED_PREFIX = '[Old tool result cleared to free context';
/**
 * How many of the newest tool results a clearing keeps as they are: the work the model is in the
 * middle of. Headroom's own clearing and the provider's (`context-editing.ts`) keep the same number.
 */
export const KEEP_RECENT_RESULTS = 3;

export interface ClearOptions {
  /** The newest results kept as they are, at most this many… */
  keepRecent: number;
  /** …and at most this many tokens of them together. */
  keepTokens: number;
  tokensOf(message: Message): number;
  /** Results at or under this many tokens are not worth clearing (default 60: about a stub). */
  minTokens?: number;
}

export interface ClearItem {
  /** Index of the tool result in the view. */
  index: number;
  toolName: string;
  toolCallId: string;
  tokens: number;
  /** Ref id of the full output when it was already offloaded. */
  refId?: string;
  /** The text to store first when it was never offloaded (then `refId` is undefined). */
  store?: string;
}

export interface ClearPlan {
  items: ClearItem[];
  /** Tokens of the cleared results (what clearing frees, before the stubs). */
  tokens: number;
}

/** The stub that replaces a cleared result. */
export function clearedStub(toolName: string, refId: string, isError: boolean): string {
  return `${CLEARED_PREFIX}: ${isError ? 'an error ' : ''}output of "${toolName}". read_result ref_id="${refId}" returns it (offset/limit/grep).]`;
}

/** True for a result that is already a cleared stub. */
export function isCleared(m: Message): boolean {
  return m.role === 'toolResult' && m.content[0]?.type === 'text' && m.content[0].text.startsWith(CLEARED_PREFIX);
}

/** Which results to clear: all but the newest `keepRecent` within `keepTokens`, skipping small and cleared ones. */
export function planClearToolResults(view: readonly Message[], options: ClearOptions): ClearPlan {
  const minTokens = options.minTokens ?? 60;
  const items: ClearItem[] = [];
  let keptCount = 0;
  let keptTokens = 0;
  let keeping = true;
  let tokens = 0;
  for (let i = view.length - 1; i >= 0; i--) {
    const m = view[i];
    if (m.role !== 'toolResult' || isCleared(m)) continue;
    const t = Math.max(0, options.tokensOf(m) || 0);
    if (keeping && keptCount < options.keepRecent && keptTokens + t <= options.keepTokens) {
      keptCount++;
      keptTokens += t;
      continue;
    }
    keeping = false; // everything older than the first result not kept is cleared
    if (t <= minTokens) continue;
    items.push({
      index: i,
      toolName: m.toolName,
      toolCallId: m.toolCallId,
      tokens: t,
      refId: m.refId,
      store: m.refId ? undefined : resultText(m),
    });
    tokens += t;
  }
  return { items: items.reverse(), tokens };
}

/**
 * The view with the planned results replaced by stubs. `refIds` gives the ref id of each stored item
 * by view index; an item with neither a ref id in the plan nor one in `refIds` (its store failed) is
 * left as it is, so nothing is lost. The input is not modified.
 */
export function applyClearPlan(
  view: readonly Message[],
  plan: ClearPlan,
  refIds: ReadonlyMap<number, string> = new Map(),
): { messages: Message[]; cleared: number } {
  const out = [...view];
  let cleared = 0;
  for (const item of plan.items) {
    const m = out[item.index];
    const refId = item.refId ?? refIds.get(item.index);
    if (m?.role !== 'toolResult' || !refId) continue;
    const stub: ToolResultMessage = { ...m, content: [{ type: 'text', text: clearedStub(m.toolName, refId, m.isError) }], refId };
    out[item.index] = stub;
    cleared++;
  }
  return { messages: out, cleared };
}

/** The text of a result as it is stored: the one definition lives with the message model. */
export { resultText } from '../../providers/tool-result-text';
