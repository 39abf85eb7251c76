/**
 * Whether a request asks the provider to clear old tool uses itself (Anthropic context editing,
 * https://platform.claude.com/docs/en/build-with-claude/context-editing), with which settings, and
 * what its answer says it cleared, judged against what Headroom sent. The server clears only what the
 * model reads for that request: Headroom's transcript, view, store and `search_history` keep every
 * result, and Headroom's own compaction still runs at its thresholds on the view as sent. Pure; never throws.
 */
import { CLEAR_THINKING_EDIT, CLEAR_TOOL_USES_EDIT } from '../../providers/anthropic-context-editing';
import { formatTokens } from '../../protocol/format';
import { toolSummary } from '../../providers/message-text';
import type { ModelCapabilities } from '../../providers/model-info';
import type {
  AppliedContextEdit,
  ContextEditingRequest,
  Message,
  ProviderId,
  ProviderRequest,
  ToolCallPart,
  Usage,
} from '../../providers/types';
import type { Thresholds } from '../settings';
import { FAR_ABOVE, SLACK } from '../usage-evidence';
import { KEEP_RECENT_RESULTS } from './clear-results';
import { tokensUntil } from './context-status';
import { serverEdits } from './native-compaction';

/**
 * The clearing a session's requests ask for, or undefined: where the model declares it and the user
 * allows it (`serverEdits`), unless the provider refused it earlier in the session (`refused`).
 * - trigger: the `note` threshold, where Headroom starts telling the model the context fills up;
 * - keep: the newest results Headroom's own clearing keeps (`KEEP_RECENT_RESULTS`);
 * - clear at least: the band from `note` to `compact`, since a clearing rewrites the cache from the
 *   first cleared result on and should buy as much room as Headroom would fill before compacting;
 * - never the tools whose results the model finds its way back with (`keptTools`);
 * - the calls' inputs stay: they are small, and the ledger and receipts read the model's own calls;
 * - thinking of older turns, when thinking is on and the model declares that edit too.
 */
export function contextEditingFor(s: {
  provider: ProviderId;
  capabilities: ModelCapabilities | undefined;
  allowed: boolean;
  refused: boolean;
  effectiveWindow: number;
  thresholds: Pick<Thresholds, 'note' | 'compact' | 'block'>;
  thinking: boolean;
  keptTools: readonly string[];
}): ContextEditingRequest | undefined {
  const edits = serverEdits(s.provider, s.capabilities, s.allowed);
  if (s.refused || !edits.includes(CLEAR_TOOL_USES_EDIT)) return undefined;
  const trigger = tokensUntil(0, s.effectiveWindow, 'note', s.thresholds);
  const compact = tokensUntil(0, s.effectiveWindow, 'compact', s.thresholds);
  if (!trigger || compact === undefined) return undefined;
  return {
    triggerTokens: trigger,
    keepToolUses: KEEP_RECENT_RESULTS,
    clearAtLeastTokens: Math.max(0, compact - trigger),
    excludeTools: [...new Set(s.keptTools)],
    clearToolInputs: false,
    clearThinking: s.thinking && edits.includes(CLEAR_THINKING_EDIT),
  };
}

/** One tool use the provider cleared: its call, what it acted on ("src/a.ts", "npm test"). */
export interface ClearedToolUse {
  callId: string;
  toolName: string;
  target: string;
}

/** What the provider cleared from one request, as far as what Headroom sent explains it. */
export interface ProviderClearing {
  /** The tool uses cleared, oldest first: the oldest ones it was allowed to clear, as many as it said. */
  toolUses: ClearedToolUse[];
  thinkingTurns: number;
  /** Input tokens the clearing took out, when the figure is plausible (else 0: it is not used). */
  tokens: number;
  /** The provider's own figure. */
  reportedTokens: number;
  /** Why a figure of the answer was not believed, in words; absent when all of it was. */
  doubt?: string;
}

/**
 * The clearing an answer reports, judged against the request it answers: no more tool uses than the
 * request had to clear (those not excluded, but the newest `keep`), and no more tokens than Headroom
 * counted in them by more than any tokenizer it knows over-counts (`FAR_ABOVE`, `SLACK`: the same
 * bounds `UsageEvidence` judges a prompt figure by). Undefined when nothing was cleared.
 */
export function providerClearing(
  request: Pick<ProviderRequest, 'messages' | 'contextEditing'>,
  edits: readonly AppliedContextEdit[] | undefined,
  tokensOf: (m: Message) => number,
): ProviderClearing | undefined {
  const asked = request.contextEditing;
  if (!asked || !edits?.length) return undefined;
  const excluded = new Set(asked.excludeTools);
  const calls = request.messages.flatMap((m) =>
    m.role === 'assistant' ? m.content.filter((p): p is ToolCallPart => p.type === 'toolCall' && !excluded.has(p.name)) : [],
  );
  const clearable = calls.slice(0, Math.max(0, calls.length - asked.keepToolUses));
  const doubts: string[] = [];
  const toolEdit = edits.find((e) => e.kind === 'toolUses');
  const thinkingEdit = edits.find((e) => e.kind === 'thinking');
  let count = toolEdit?.cleared ?? 0;
  if (count > clearable.length) {
    doubts.push(`${count} tool uses reported cleared, ${clearable.length} could be`);
    count = clearable.length;
  }
  const cleared = clearable.slice(0, count);
  const ids = new Set(cleared.map((c) => c.id));
  const results = request.messages.filter((m) => m.role === 'toolResult' && ids.has(m.toolCallId));
  const assistants = request.messages.filter((m) => m.role === 'assistant');
  // Thinking is cleared from older turns than the newest kept; its tokens are within those turns'.
  const thinkingRoom = thinkingEdit ? assistants.slice(0, Math.max(0, assistants.length - 1)) : [];
  const counted = [...results, ...thinkingRoom].reduce((s, m) => s + Math.max(0, tokensOf(m) || 0), 0);
  const reported = (toolEdit?.inputTokens ?? 0) + (thinkingEdit?.inputTokens ?? 0);
  const plausible = reported <= FAR_ABOVE * counted + SLACK;
  if (!plausible) doubts.push(`${formatTokens(reported)} tokens reported cleared, ~${formatTokens(counted)} sent in what could be`);
  if (!cleared.length && !thinkingEdit?.cleared) return undefined;
  const clearing: ProviderClearing = {
    toolUses: cleared.map((c) => ({ callId: c.id, toolName: c.name, target: toolSummary(c) })),
    thinkingTurns: Math.min(thinkingEdit?.cleared ?? 0, thinkingRoom.length),
    tokens: plausible ? reported : 0,
    reportedTokens: reported,
  };
  if (doubts.length) clearing.doubt = doubts.join('; ');
  return clearing;
}

/**
 * The usage of the prompt as sent: the provider's figures count what the model read after the
 * clearing, so the cleared tokens it reported (when believed) are added back as input before the
 * figure is judged and calibrates Headroom's counts of the view, which still holds them.
 */
export function sentUsage(usage: Usage, clearing: ProviderClearing | undefined): Usage {
  return clearing?.tokens ? { ...usage, input: usage.input + clearing.tokens } : usage;
}
