import type Anthropic from '@anthropic-ai/sdk';
import { toAnthropicParams } from './anthropic-convert';
import { tokenCount } from './usage';
import type { ProviderRequest, Usage } from './types';

/**
 * Anthropic's server-side compaction as one request asks for it
 * (https://platform.claude.com/docs/en/build-with-claude/compaction): the `compact_20260112` edit of
 * `context_management`, behind the `compact-2026-01-12` beta, with `pause_after_compaction` so the
 * answer is the compaction block alone (stop reason `compaction`) and nothing is sampled after it; its
 * cost is a `compaction` entry of `usage.iterations`, not part of the top-level usage. Pure.
 */

export const COMPACTION_BETA = 'compact-2026-01-12';
/** The edit's type, as the Models API lists it under `capabilities.context_management`. */
export const COMPACTION_EDIT = 'compact_20260112';
/** The smallest `trigger` the API takes (a lower one is a 400). */
export const MIN_COMPACTION_TRIGGER = 50_000;

type BetaParams = Anthropic.Beta.Messages.MessageCreateParamsStreaming;

/** The compaction edit a request asks for, or undefined when it asks for none. */
export function compactionEdit(req: ProviderRequest): Anthropic.Beta.Messages.BetaCompact20260112Edit | undefined {
  const asked = req.nativeCompaction;
  if (!asked) return undefined;
  const edit: Anthropic.Beta.Messages.BetaCompact20260112Edit = {
    type: COMPACTION_EDIT,
    trigger: { type: 'input_tokens', value: Math.max(MIN_COMPACTION_TRIGGER, Math.floor(asked.triggerTokens)) },
    pause_after_compaction: true,
  };
  if (asked.instructions?.trim()) edit.instructions = asked.instructions;
  return edit;
}

/** The request with the compaction edit, or undefined when the request does not ask for one. */
export function nativeCompactionParams(req: ProviderRequest): BetaParams | undefined {
  const edit = compactionEdit(req);
  if (!edit) return undefined;
  // The Messages API body is a subset of the beta one: the same blocks, tools and thinking.
  const params = toAnthropicParams(req) as unknown as BetaParams;
  return { ...params, betas: [COMPACTION_BETA], context_management: { edits: [edit] } };
}

/**
 * The cost of the compaction iterations of a reply's `usage.iterations` (hostile input: anything but
 * an array of objects is ignored); undefined when there was none.
 */
export function compactionUsage(iterations: unknown): Usage | undefined {
  if (!Array.isArray(iterations)) return undefined;
  const entries = (iterations as unknown[]).filter(
    (i): i is Record<string, unknown> => typeof i === 'object' && i !== null && (i as Record<string, unknown>).type === 'compaction',
  );
  if (!entries.length) return undefined;
  const sum = (key: string) => entries.reduce((s, e) => s + tokenCount(e[key]), 0);
  return {
    input: sum('input_tokens'),
    output: sum('output_tokens'),
    cacheRead: sum('cache_read_input_tokens'),
    cacheWrite: sum('cache_creation_input_tokens'),
  };
}
