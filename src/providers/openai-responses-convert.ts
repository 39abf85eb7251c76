import type OpenAI from 'openai';
import { TOOL_ERROR_PREFIX, wireEffort } from './openai-convert';
import type { AssistantMessage, ImagePart, Message, ProviderRequest, ReasoningPart, TextPart, ToolResultMessage } from './types';

/**
 * Neutral model → OpenAI Responses API request. Pure.
 *
 * Requests are stateless (`store: false`): the whole conversation is sent each time, and a reasoning
 * model's reasoning travels as encrypted reasoning items (`include: ["reasoning.encrypted_content"]`)
 * that come back on the next request. A reasoning item is kept in the neutral model as a
 * `ReasoningPart` whose `signature` is the item's JSON; it is sent back only to the model that made
 * it, and only in a tool round of the current turn (after the last user message), where OpenAI uses
 * it: older reasoning would be dropped by the model anyway, and Headroom budgets a reasoning part by
 * its visible summary, so sending old items would cost input tokens the budget does not see.
 */

type Params = OpenAI.Responses.ResponseCreateParamsStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;
type InputContent = OpenAI.Responses.ResponseInputText | OpenAI.Responses.ResponseInputImage;
type ReasoningItem = OpenAI.Responses.ResponseReasoningItem;

/** The JSON kept in `ReasoningPart.signature` for a Responses reasoning item. */
export function reasoningSignature(item: { id: string; summary?: unknown; encrypted_content?: string | null }): string | undefined {
  if (!item.encrypted_content) return undefined; // without it, a stateless request cannot use the item
  return JSON.stringify({
    type: 'reasoning',
    id: item.id,
    summary: Array.isArray(item.summary) ? item.summary : [],
    encrypted_content: item.encrypted_content,
  });
}

/** The reasoning item a `ReasoningPart` carries, or undefined when it came from another protocol. */
export function reasoningItemOf(part: ReasoningPart): ReasoningItem | undefined {
  if (!part.signature?.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(part.signature) as Partial<ReasoningItem>;
    if (v.type === 'reasoning' && typeof v.id === 'string' && typeof v.encrypted_content === 'string') {
      return { type: 'reasoning', id: v.id, summary: Array.isArray(v.summary) ? v.summary : [], encrypted_content: v.encrypted_content };
    }
  } catch {
    // an Anthropic signature or damaged data: not ours to send
  }
  return undefined;
}

function content(parts: Array<TextPart | ImagePart>): InputContent[] {
  return parts.map((p): InputContent =>
    p.type === 'text'
      ? { type: 'input_text', text: p.text }
      : { type: 'input_image', image_url: `data:${p.mediaType};base64,${p.data}`, detail: 'auto' },
  );
}

function assistantItems(m: AssistantMessage, model: string, currentTurn: boolean): InputItem[] {
  const toolRound = m.content.some((p) => p.type === 'toolCall');
  const ownReasoning = currentTurn && toolRound && m.provider === 'openai' && m.model === model;
  const out: InputItem[] = [];
  let sentReasoning = false;
  let text = '';
  const flushText = () => {
    if (text) out.push({ role: 'assistant', content: text });
    text = '';
  };
  for (const p of m.content) {
    if (p.type === 'text') {
      text += p.text;
    } else if (p.type === 'reasoning') {
      const item = ownReasoning ? reasoningItemOf(p) : undefined;
      if (item) {
        flushText();
        out.push(item);
        sentReasoning = true;
      }
    } else {
      flushText();
      const call: OpenAI.Responses.ResponseFunctionToolCall = {
        type: 'function_call',
        call_id: p.id,
        name: p.name,
        arguments: p.rawArguments ?? JSON.stringify(p.arguments),
      };
      // OpenAI pairs a call item's id with the reasoning item before it; without that item, no id.
      if (sentReasoning && p.itemId) call.id = p.itemId;
      out.push(call);
    }
  }
  flushText();
  return out;
}

function toolOutput(m: ToolResultMessage): InputItem {
  const text =
    (m.isError ? TOOL_ERROR_PREFIX : '') +
    m.content
      .filter((p): p is TextPart => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
  const images = m.content.filter((p): p is ImagePart => p.type === 'image');
  return {
    type: 'function_call_output',
    call_id: m.toolCallId,
    output: images.length ? [...(text ? content([{ type: 'text', text }]) : []), ...content(images)] : text,
  };
}

/** Converts neutral messages to Responses input items for `model`. */
export function toResponsesInput(messages: Message[], model: string): InputItem[] {
  const out: InputItem[] = [];
  const turnStart = messages.map((m) => m.role).lastIndexOf('user');
  messages.forEach((m, i) => {
    if (m.role === 'user') out.push({ role: 'user', content: content(m.content) });
    else if (m.role === 'assistant') out.push(...assistantItems(m, model, i > turnStart));
    else out.push(toolOutput(m));
  });
  return out;
}

/**
 * Builds the streaming request body. The system prompt is the stable `instructions` prefix and
 * `prompt_cache_key` routes a session to the same cache. Reasoning models get their encrypted
 * reasoning back; a thinking budget becomes a reasoning effort with summaries (the text shown).
 * `reasons` says whether the model reasons: OpenAI rejects both fields for other models.
 */
export function toResponsesParams(req: ProviderRequest, reasons: boolean): Params {
  const instructions = req.system
    .map((s) => s.text)
    .filter(Boolean)
    .join('\n\n');
  const params: Params = {
    model: req.model,
    // The per-request note comes last, after the stable prefix the automatic cache matches.
    input: [
      ...toResponsesInput(req.messages, req.model),
      ...(req.trailingNote ? [{ role: 'user' as const, content: content([{ type: 'text', text: req.trailingNote }]) }] : []),
    ],
    stream: true,
    store: false,
    max_output_tokens: req.maxOutputTokens,
  };
  if (instructions) params.instructions = instructions;
  if (req.tools.length) {
    params.tools = req.tools.map((t) => ({
      type: 'function' as const,
      name: t.name,
      description: t.description,
      parameters: { type: 'object', ...t.inputSchema },
      strict: false,
    }));
    // Declared but not callable: the same tools (the cached prefix) with an answer in text.
    if (req.toolChoice === 'none') params.tool_choice = 'none';
  }
  if (req.promptCacheKey) params.prompt_cache_key = req.promptCacheKey;
  // Extended retention keeps the prefix up to 24 hours at the same price; `5m` is the in-memory cache
  // (https://developers.openai.com/api/docs/guides/prompt-caching#prompt-cache-retention).
  if (req.cacheLifetime === '24h') params.prompt_cache_retention = '24h';
  else if (req.cacheLifetime === '5m') params.prompt_cache_retention = 'in_memory';
  const effort = reasons ? wireEffort(req.thinking) : undefined;
  if (reasons) {
    params.include = ['reasoning.encrypted_content'];
    if (effort) params.reasoning = effort === 'none' ? { effort } : { effort, summary: 'auto' };
  }
  // Reasoning models refuse sampling parameters unless their reasoning is off
  // (https://developers.openai.com/api/docs/guides/reasoning).
  if (req.temperature !== undefined && (!reasons || effort === 'none')) params.temperature = req.temperature;
  return params;
}
