import type OpenAI from 'openai';
import type {
  AssistantMessage,
  ImagePart,
  Message,
  ProviderId,
  ProviderRequest,
  RequestThinking,
  TextPart,
  ToolResultMessage,
} from './types';

/**
 * Neutral model ⇄ OpenAI Chat Completions wire format. Pure. Lossy by the protocol's nature:
 * reasoning is not sent back (Chat Completions has no field for it), tool results can carry only
 * text (their images follow in a user message), and the tool-error flag becomes a text prefix.
 */

type WireMessage = OpenAI.Chat.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.ChatCompletionContentPartText | OpenAI.Chat.ChatCompletionContentPartImage;

/** Prefix that marks a failed tool result on the wire (OpenAI has no is_error flag). */
export const TOOL_ERROR_PREFIX = '[tool error] ';

function userContent(parts: Array<TextPart | ImagePart>): string | UserPart[] {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => p.text).join('\n');
  return parts.map((p): UserPart =>
    p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } },
  );
}

function assistantMessage(m: AssistantMessage): OpenAI.Chat.ChatCompletionAssistantMessageParam | undefined {
  const text = m.content
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('');
  const calls = m.content.flatMap((p) => (p.type === 'toolCall' ? [p] : []));
  if (!text && calls.length === 0) return undefined;
  const out: OpenAI.Chat.ChatCompletionAssistantMessageParam = { role: 'assistant', content: text || null };
  if (calls.length) {
    out.tool_calls = calls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.rawArguments ?? JSON.stringify(c.arguments) },
    }));
  }
  return out;
}

function toolMessage(m: ToolResultMessage): { tool: OpenAI.Chat.ChatCompletionToolMessageParam; images: ImagePart[] } {
  const text = m.content
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
  const images = m.content.filter((p): p is ImagePart => p.type === 'image');
  return { tool: { role: 'tool', tool_call_id: m.toolCallId, content: (m.isError ? TOOL_ERROR_PREFIX : '') + text }, images };
}

/** Converts the system sections and neutral messages to Chat Completions messages. */
export function toOpenAIMessages(system: string, messages: Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  if (system) out.push({ role: 'system', content: system });
  let images: ImagePart[] = [];
  const flushImages = () => {
    // Tool messages must directly follow their assistant message, so images wait until the run ends.
    if (images.length) out.push({ role: 'user', content: userContent(images) as UserPart[] });
    images = [];
  };
  for (const m of messages) {
    if (m.role === 'toolResult') {
      const t = toolMessage(m);
      out.push(t.tool);
      images.push(...t.images);
      continue;
    }
    flushImages();
    if (m.role === 'user') out.push({ role: 'user', content: userContent(m.content) });
    else {
      const a = assistantMessage(m);
      if (a) out.push(a);
    }
  }
  flushImages();
  return out;
}

/** Maps a thinking budget to a reasoning effort. */
export function reasoningEffort(budget: number): 'low' | 'medium' | 'high' {
  return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

/**
 * The OpenAI `reasoning.effort` / `reasoning_effort` a request's thinking asks for: its effort, the
 * effort a budget corresponds to, `none` when turned off (https://developers.openai.com/api/docs/guides/reasoning).
 */
export function wireEffort(thinking: RequestThinking | undefined): OpenAI.ReasoningEffort | undefined {
  if (!thinking) return undefined;
  switch (thinking.mode) {
    case 'disabled':
      return 'none';
    case 'budget':
      return reasoningEffort(thinking.budgetTokens);
    default:
      return thinking.effort;
  }
}

/**
 * Builds the streaming request body. The system prompt is one stable leading message so OpenAI's
 * automatic prefix cache can hit; `prompt_cache_key` routes a session to the same cache.
 * OpenAI-compatible servers get `max_tokens` (many do not know `max_completion_tokens`).
 */
export function toOpenAIParams(req: ProviderRequest, provider: ProviderId): OpenAI.Chat.ChatCompletionCreateParamsStreaming {
  const system = req.system
    .map((s) => s.text)
    .filter(Boolean)
    .join('\n\n');
  const params: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
    model: req.model,
    // The per-request note comes last, after the stable prefix the automatic cache matches.
    messages: [
      ...toOpenAIMessages(system, req.messages),
      ...(req.trailingNote ? [{ role: 'user' as const, content: req.trailingNote }] : []),
    ],
    stream: true,
    stream_options: { include_usage: true },
  };
  if (provider === 'openai') params.max_completion_tokens = req.maxOutputTokens;
  else params.max_tokens = req.maxOutputTokens;
  if (req.tools.length) {
    params.tools = req.tools.map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: { type: 'object', ...t.inputSchema } },
    }));
    if (req.toolChoice === 'none') params.tool_choice = 'none';
  }
  // OpenAI-only fields: strict compatible servers reject unknown parameters.
  if (provider === 'openai' && req.promptCacheKey) params.prompt_cache_key = req.promptCacheKey;
  const effort = provider === 'openai' ? wireEffort(req.thinking) : undefined;
  if (effort) params.reasoning_effort = effort;
  // A reasoning model refuses sampling parameters unless its reasoning is off.
  if (req.temperature !== undefined && (!effort || effort === 'none')) params.temperature = req.temperature;
  return params;
}
