import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { COMPACTION_BETA, compactionEdit } from './anthropic-compaction';
import { toAnthropicParams } from './anthropic-convert';
import type { AppliedContextEdit, ProviderRequest } from './types';

/**
 * Anthropic's context editing as one request asks for it and as its answer reports it
 * (https://platform.claude.com/docs/en/build-with-claude/context-editing): `context_management.edits`
 * behind the `context-management-2025-06-27` beta; `clear_tool_uses_20250919` with `trigger`, `keep`,
 * `clear_at_least`, `exclude_tools`, `clear_tool_inputs`; `clear_thinking_20251015` only with thinking
 * on, listed before the other edits. The edits apply on the server to what the model reads; the
 * answer's `context_management.applied_edits` says what went (tool uses or thinking turns cleared,
 * and the input tokens that took out). That answer is hostile input: parsed, bounded, else ignored. Pure.
 */

export const CONTEXT_EDITING_BETA = 'context-management-2025-06-27';
export const CLEAR_TOOL_USES_EDIT = 'clear_tool_uses_20250919';
export const CLEAR_THINKING_EDIT = 'clear_thinking_20251015';

type BetaParams = Anthropic.Beta.Messages.MessageCreateParamsStreaming;
type Edit = NonNullable<Anthropic.Beta.Messages.BetaContextManagementConfig['edits']>[number];

/** The context-editing edits a request asks for, in the order the API takes them (thinking first). */
export function contextEditingEdits(req: ProviderRequest, thinkingOn: boolean): Edit[] {
  const asked = req.contextEditing;
  if (!asked) return [];
  const edits: Edit[] = [];
  if (asked.clearThinking && thinkingOn)
    edits.push({ type: CLEAR_THINKING_EDIT, keep: { type: 'thinking_turns', value: Math.max(1, Math.floor(asked.keepToolUses)) } });
  edits.push({
    type: CLEAR_TOOL_USES_EDIT,
    trigger: { type: 'input_tokens', value: Math.max(1, Math.floor(asked.triggerTokens)) },
    keep: { type: 'tool_uses', value: Math.max(0, Math.floor(asked.keepToolUses)) },
    ...(asked.clearAtLeastTokens > 0 ? { clear_at_least: { type: 'input_tokens', value: Math.floor(asked.clearAtLeastTokens) } } : {}),
    ...(asked.excludeTools.length ? { exclude_tools: [...asked.excludeTools] } : {}),
    clear_tool_inputs: asked.clearToolInputs,
  });
  return edits;
}

/**
 * The beta request for whatever the provider is asked to manage itself (context editing, native
 * compaction or both), or undefined when the request asks for neither (it goes to the Messages API).
 */
export function managedParams(req: ProviderRequest): BetaParams | undefined {
  // The Messages API body is a subset of the beta one: the same blocks, tools and thinking.
  const params = toAnthropicParams(req) as unknown as BetaParams;
  const thinking = params.thinking?.type;
  const editing = contextEditingEdits(req, thinking === 'enabled' || thinking === 'adaptive');
  const compaction = compactionEdit(req);
  if (!editing.length && !compaction) return undefined;
  const betas = [...(editing.length ? [CONTEXT_EDITING_BETA] : []), ...(compaction ? [COMPACTION_BETA] : [])];
  return { ...params, betas, context_management: { edits: [...editing, ...(compaction ? [compaction] : [])] } };
}

/** No request clears more tokens than this (beyond any context window) or more tool uses or turns. */
const MAX_CLEARED_TOKENS = 10_000_000;
const MAX_CLEARED_ITEMS = 100_000;
const count = (max: number) => z.number().int().nonnegative().max(max);
const Applied = z.discriminatedUnion('type', [
  z.object({
    type: z.literal(CLEAR_TOOL_USES_EDIT),
    cleared_tool_uses: count(MAX_CLEARED_ITEMS),
    cleared_input_tokens: count(MAX_CLEARED_TOKENS),
  }),
  z.object({
    type: z.literal(CLEAR_THINKING_EDIT),
    cleared_thinking_turns: count(MAX_CLEARED_ITEMS),
    cleared_input_tokens: count(MAX_CLEARED_TOKENS),
  }),
]);
const Response = z.object({ applied_edits: z.array(z.unknown()).max(16) });

/** The edits an answer's `context_management` reports, each checked on its own; anything else is dropped. */
export function appliedContextEdits(raw: unknown): AppliedContextEdit[] {
  const r = Response.safeParse(raw);
  if (!r.success) return [];
  return r.data.applied_edits.flatMap((e): AppliedContextEdit[] => {
    const a = Applied.safeParse(e);
    if (!a.success) return [];
    const d = a.data;
    return d.type === CLEAR_TOOL_USES_EDIT
      ? [{ kind: 'toolUses', cleared: d.cleared_tool_uses, inputTokens: d.cleared_input_tokens }]
      : [{ kind: 'thinking', cleared: d.cleared_thinking_turns, inputTokens: d.cleared_input_tokens }];
  });
}
