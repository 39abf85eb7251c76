import type Anthropic from '@anthropic-ai/sdk';
import type { AssistantMessage, ImagePart, Message, ProviderRequest, TextPart, ToolResultMessage } from './types';

/**
 * Neutral model ⇄ Anthropic Messages API wire format. Pure. Only this file and `anthropic.ts` know the
 * Anthropic shapes.
 */

type WireMessage = Anthropic.MessageParam & { role: 'user' | 'assistant' };
type WireBlock =
  | Exclude<Anthropic.MessageContentParam, string>[number]
  | Anthropic.ThinkingBlockParam
  | Anthropic.RedactedThinkingBlockParam
  | Anthropic.ToolUseBlockParam
  | Anthropic.ToolResultBlockParam;
type ImageMediaType = Anthropic.Base64ImageSource['media_type'];

/** Anthropic accepts at most this many `cache_control` breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;
const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };
/**
 * Every breakpoint of a request asks for the same lifetime, so 1-hour entries never follow 5-minute
 * ones (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#mixing-different-ttls).
 */
const ONE_HOUR: Anthropic.CacheControlEphemeral = { type: 'ephemeral', ttl: '1h' };

function imageBlock(p: ImagePart): Anthropic.ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: p.mediaType as ImageMediaType, data: p.data } };
}

function userBlocks(content: Array<TextPart | ImagePart>): Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam> {
  const out: Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam> = [];
  for (const p of content) {
    if (p.type === 'image') out.push(imageBlock(p));
    else if (p.text) out.push({ type: 'text', text: p.text }); // the API rejects empty text blocks
  }
  return out;
}

function assistantBlocks(m: AssistantMessage): WireBlock[] {
  const out: WireBlock[] = [];
  for (const p of m.content) {
    if (p.type === 'text') {
      if (p.text) out.push({ type: 'text', text: p.text });
    } else if (p.type === 'reasoning') {
      // Thinking goes back only with the provider's proof; unsigned reasoning (another provider's) is dropped.
      if (p.redactedData) out.push({ type: 'redacted_thinking', data: p.redactedData });
      else if (p.signature) out.push({ type: 'thinking', thinking: p.text, signature: p.signature });
    } else {
      out.push({ type: 'tool_use', id: p.id, name: p.name, input: p.arguments });
    }
  }
  return out;
}

/**
 * A tool result; one that loads deferred tools the request declares is sent as `tool_reference` blocks
 * alone, which the API expands into their definitions where they stand, keeping the cached prefix
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching). A request
 * that does not declare them all (the forced final answer, a changed tool set) gets the text instead:
 * an unresolved reference is a 400.
 */
function toolResultBlock(m: ToolResultMessage, deferred: ReadonlySet<string>): Anthropic.ToolResultBlockParam {
  const refs = m.toolReferences;
  const byReference = !!refs?.length && !m.isError && refs.every((name) => deferred.has(name));
  const content = byReference ? refs.map((name) => ({ type: 'tool_reference' as const, tool_name: name })) : userBlocks(m.content);
  const block: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: m.toolCallId, content };
  if (m.isError) block.is_error = true;
  return block;
}

/**
 * Converts neutral messages; consecutive same-role messages merge into one wire turn. `deferred`: the
 * names the request declares with `defer_loading` (results that load them go as references).
 */
export function toAnthropicMessages(messages: Message[], deferred: ReadonlySet<string> = new Set()): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: WireBlock[]) => {
    if (blocks.length === 0) return; // the API rejects empty turns
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) (last.content as WireBlock[]).push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') push('user', userBlocks(m.content));
    else if (m.role === 'toolResult') push('user', [toolResultBlock(m, deferred)]);
    else push('assistant', assistantBlocks(m));
  }
  return out;
}

function markLastCacheable(messages: WireMessage[], marker: Anthropic.CacheControlEphemeral): boolean {
  const last = messages[messages.length - 1];
  if (!last || !Array.isArray(last.content)) return false;
  const blocks = last.content as WireBlock[];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i];
    // Thinking blocks cannot carry cache_control.
    if (b.type === 'text' || b.type === 'image' || b.type === 'tool_result' || b.type === 'tool_use') {
      (b as { cache_control?: Anthropic.CacheControlEphemeral }).cache_control = marker;
      return true;
    }
  }
  return false;
}

/** Adds the per-request note after the tail breakpoint: a last text block of the final user turn. */
function appendTrailingNote(messages: WireMessage[], note: string): void {
  const last = messages[messages.length - 1];
  if (last?.role === 'user' && Array.isArray(last.content)) (last.content as WireBlock[]).push({ type: 'text', text: note });
  else messages.push({ role: 'user', content: [{ type: 'text', text: note }] });
}

/**
 * Builds the request body. Cache breakpoints: one on the conversation tail when `req.cacheTail`, and
 * the rest (up to 4 in all) after system sections with `cacheBreakpoint`, keeping the latest ones
 * (a later breakpoint covers the longer stable prefix). Tools never carry a marker: the first system
 * breakpoint already caches them, and deferred tools must never be cached on their own.
 */
export function toAnthropicParams(req: ProviderRequest): Anthropic.MessageCreateParamsStreaming {
  // Deferred tools go only with the tools they defer from (never all deferred: the API refuses that).
  const deferredTools = req.tools.length ? (req.deferredTools ?? []) : [];
  const messages = toAnthropicMessages(req.messages, new Set(deferredTools.map((t) => t.name)));
  const marker = req.cacheLifetime === '1h' ? ONE_HOUR : EPHEMERAL;
  const tailMarked = req.cacheTail ? markLastCacheable(messages, marker) : false;
  if (req.trailingNote) appendTrailingNote(messages, req.trailingNote);
  const system: Anthropic.TextBlockParam[] = req.system.filter((s) => s.text).map((s) => ({ type: 'text', text: s.text }));
  const wanted = req.system
    .filter((s) => s.text)
    .map((s, i) => (s.cacheBreakpoint ? i : -1))
    .filter((i) => i >= 0);
  const budget = MAX_CACHE_BREAKPOINTS - (tailMarked ? 1 : 0);
  for (const i of wanted.slice(Math.max(0, wanted.length - budget))) system[i].cache_control = marker;

  const params: Anthropic.MessageCreateParamsStreaming = {
    model: req.model,
    max_tokens: req.maxOutputTokens,
    messages,
    stream: true,
  };
  if (system.length) params.system = system;
  if (req.tools.length) {
    params.tools = [
      ...req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: { type: 'object' as const, ...t.inputSchema } })),
      ...deferredTools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: { type: 'object' as const, ...t.inputSchema },
        defer_loading: true,
      })),
    ];
    if (req.toolChoice === 'none') params.tool_choice = { type: 'none' };
  } else {
    // A request without tools (the forced final turn) may still carry tool_use blocks in its history,
    // which the Messages API refuses unless those tools are declared: declare minimal stubs for them
    // and forbid tool use, so the model can only answer in text.
    const used = [
      ...new Set(
        req.messages.flatMap((m) => (m.role === 'assistant' ? m.content.filter((p) => p.type === 'toolCall').map((p) => p.name) : [])),
      ),
    ];
    if (used.length) {
      params.tools = used.map((name) => ({ name, description: 'Not available in this request.', input_schema: { type: 'object' } }));
      params.tool_choice = { type: 'none' };
    }
  }
  applyThinking(params, req);
  // `req.temperature` is not sent: this SDK's Messages API has no sampling parameters, which adaptive-only
  // models refuse (https://platform.claude.com/docs/en/about-claude/models/migration-guide).
  return params;
}

/**
 * Thinking as the request asks for it (`context/thinking.ts` chose the form the model takes):
 * adaptive with `output_config.effort` (https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking),
 * a budget (https://platform.claude.com/docs/en/build-with-claude/extended-thinking: `budget_tokens`
 * must be ≥ 1024 and below `max_tokens`; `max_tokens` itself is never raised, because the context
 * engine reserved exactly `maxOutputTokens`, and room is left for the visible answer), or off.
 */
function applyThinking(params: Anthropic.MessageCreateParamsStreaming, req: ProviderRequest): void {
  const t = req.thinking;
  if (!t) return;
  if (t.mode === 'disabled') params.thinking = { type: 'disabled' };
  else if (t.mode === 'adaptive' || t.mode === 'effort') {
    if (t.mode === 'adaptive') params.thinking = { type: 'adaptive' };
    if (t.effort) params.output_config = { effort: t.effort };
  } else {
    const budget = Math.min(t.budgetTokens, req.maxOutputTokens - 1024);
    if (budget >= 1024) params.thinking = { type: 'enabled', budget_tokens: budget };
  }
}
