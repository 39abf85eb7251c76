/**
 * Neutral model → Ollama's native chat request (`POST /api/chat`,
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion). Pure.
 *
 * Why the native API for Ollama: it is the only one that takes the context length per request
 * (`options.num_ctx`; "The OpenAI API does not have a way of setting the context size for a model",
 * https://github.com/ollama/ollama/blob/main/docs/api/openai-compatibility.mdx), so the server runs
 * with the window Headroom budgets to; and from 0.12.6 it takes `truncate: false`, so a prompt over
 * that window is refused instead of silently cut (`ChatRequest.Truncate`,
 * https://github.com/ollama/ollama/blob/main/api/types.go; older servers ignore the field).
 */
import { TOOL_ERROR_PREFIX } from './openai-convert';
import { resultText } from './tool-result-text';
import type { AssistantMessage, ImagePart, ProviderRequest, TextPart } from './types';

/** One message of Ollama's chat request (`api.Message`). */
export interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  thinking?: string;
  /** Base64 image data, no data-URL prefix. */
  images?: string[];
  tool_calls?: Array<{ id?: string; function: { name: string; arguments: Record<string, unknown> } }>;
  tool_name?: string;
  tool_call_id?: string;
}

export interface OllamaChatBody {
  model: string;
  messages: OllamaMessage[];
  tools?: Array<{ type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
  stream: true;
  /** Refuse a prompt over `num_ctx` instead of dropping its oldest messages (Ollama ≥ 0.12.6). */
  truncate: false;
  think?: boolean;
  options: { num_ctx?: number; num_predict: number; temperature?: number };
}

const texts = (parts: ReadonlyArray<{ type: string }>) =>
  parts
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
const images = (parts: ReadonlyArray<{ type: string }>) => parts.filter((p): p is ImagePart => p.type === 'image').map((p) => p.data);

function assistant(m: AssistantMessage): OllamaMessage | undefined {
  const content = m.content
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('');
  const calls = m.content.flatMap((p) => (p.type === 'toolCall' ? [p] : []));
  if (!content && calls.length === 0) return undefined;
  const out: OllamaMessage = { role: 'assistant', content };
  if (calls.length) out.tool_calls = calls.map((c) => ({ id: c.id, function: { name: c.name, arguments: c.arguments } }));
  return out;
}

/** The neutral conversation as Ollama chat messages (system first, the per-request note last). */
export function toOllamaMessages(req: Pick<ProviderRequest, 'system' | 'messages' | 'trailingNote'>): OllamaMessage[] {
  const out: OllamaMessage[] = [];
  const system = req.system
    .map((s) => s.text)
    .filter(Boolean)
    .join('\n\n');
  if (system) out.push({ role: 'system', content: system });
  for (const m of req.messages) {
    if (m.role === 'user') {
      const imgs = images(m.content);
      out.push({ role: 'user', content: texts(m.content), ...(imgs.length ? { images: imgs } : {}) });
    } else if (m.role === 'assistant') {
      const a = assistant(m);
      if (a) out.push(a);
    } else {
      const imgs = images(m.content);
      out.push({
        role: 'tool',
        content: (m.isError ? TOOL_ERROR_PREFIX : '') + resultText({ ...m, content: m.content.filter((p) => p.type === 'text') }),
        tool_name: m.toolName,
        tool_call_id: m.toolCallId,
        ...(imgs.length ? { images: imgs } : {}),
      });
    }
  }
  if (req.trailingNote) out.push({ role: 'user', content: req.trailingNote });
  return out;
}

/**
 * The request body. `numCtx`: the context Headroom budgets to, sent so the server loads the model
 * with exactly that (undefined: the server's own choice, read back after the request).
 */
export function toOllamaBody(req: ProviderRequest, numCtx: number | undefined): OllamaChatBody {
  const body: OllamaChatBody = {
    model: req.model,
    messages: toOllamaMessages(req),
    stream: true,
    truncate: false,
    options: { num_predict: req.maxOutputTokens, ...(numCtx ? { num_ctx: numCtx } : {}) },
  };
  if (req.temperature !== undefined) body.options.temperature = req.temperature;
  // Ollama has no tool_choice: a request with `toolChoice: 'none'` (the summary request that reuses the
  // agent's prefix) still declares the tools, so the server's prompt cache serves that prefix; its
  // instruction asks for no tool call, and the summarizer reads only the reply's text.
  if (req.tools.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: { type: 'object', ...t.inputSchema } },
    }));
  }
  if (req.thinking && req.thinking.mode !== 'disabled') body.think = true;
  return body;
}
