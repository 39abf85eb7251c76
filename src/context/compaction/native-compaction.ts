/**
 * Whether the summary step of a compaction may be the provider's own compaction, and the request it
 * sends then. The provider compacts on its server (Anthropic `compact_20260112`,
 * https://platform.claude.com/docs/en/build-with-claude/compaction): cheaper than a summary of
 * Headroom's, it reads the agent's cached prefix and needs no second model. Headroom keeps what it
 * promises around it: the summary goes into Headroom's own history message with the ledger, pins and
 * instructions, the transcript keeps every message, and a failure falls back to Headroom's summary.
 * Pure; never throws.
 */
import { COMPACTION_EDIT, MIN_COMPACTION_TRIGGER } from '../../providers/anthropic-compaction';
import type { ModelCapabilities } from '../../providers/model-info';
import type { ProviderId, ProviderRequest } from '../../providers/types';
import { CACHED_SUMMARY_MARK } from './summary-cached';

/** What a pass may ask of the provider's own compaction. */
export interface NativeCompaction {
  /** The smallest prompt the provider compacts (a smaller one would be answered instead). */
  minTokens: number;
}

/**
 * The edits of its context the provider may make itself for a session's model: only on Anthropic,
 * those the model's capabilities (from the Models API) declare, and none when the user does not allow
 * it (`headroom.compaction.native`). The one check of both native compaction and context editing.
 */
export function serverEdits(provider: ProviderId, capabilities: ModelCapabilities | undefined, allowed: boolean): readonly string[] {
  if (!allowed || provider !== 'anthropic') return [];
  return capabilities?.contextManagement ?? [];
}

/**
 * The provider's compaction for a session, or undefined: where `serverEdits` has it, and when the
 * summary goes to the session's own model (another summarizer model is the user's choice of who summarizes).
 */
export function nativeCompactionFor(s: {
  provider: ProviderId;
  capabilities: ModelCapabilities | undefined;
  allowed: boolean;
  summarizerIsSessionModel: boolean;
}): NativeCompaction | undefined {
  if (!s.summarizerIsSessionModel || !serverEdits(s.provider, s.capabilities, s.allowed).includes(COMPACTION_EDIT)) return undefined;
  return { minTokens: MIN_COMPACTION_TRIGGER };
}

/**
 * The native form of a cache-preserving summary request (`buildCachedSummaryRequest`): the agent's
 * own prefix as it was sent, so the compaction reads the cache, and the request's instruction as the
 * compaction's `instructions` (they replace the provider's summary prompt); undefined when the view is
 * under the provider's smallest trigger (`viewTokens`: the messages alone, a floor of the prompt).
 */
export function nativeSummaryRequest(cached: ProviderRequest, native: NativeCompaction, viewTokens: number): ProviderRequest | undefined {
  if (viewTokens < native.minTokens) return undefined;
  const last = cached.messages[cached.messages.length - 1];
  const text = last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n') : undefined;
  // The mark tells the agent model the message is not the user's; the provider's summarizer needs no such note.
  const instructions = text?.startsWith(CACHED_SUMMARY_MARK) ? text.slice(CACHED_SUMMARY_MARK.length).trim() : text;
  return {
    ...cached,
    messages: text === undefined ? cached.messages : cached.messages.slice(0, -1),
    nativeCompaction: { triggerTokens: native.minTokens, ...(instructions ? { instructions } : {}) },
  };
}
