/**
 * Exact prompt counts from the local servers that can tokenize, with the model's own tokenizer and chat
 * template: a request is counted before it is sent, where an estimate is not good enough (near a
 * threshold, the first request to a model). Each counter is one function, `(request) → Promise<number
 * | undefined>`, meant for the provider-neutral "count before send" port; undefined when the server
 * cannot say (not reachable, an older version, a malformed answer, too slow). Never throws.
 *
 * - vLLM (`vllm/entrypoints/serve/tokenize/protocol.py`, `TokenizeChatRequest`): `POST /tokenize` with
 *   the chat request's `messages` and `tools` and `add_generation_prompt` answers `{count, max_model_len,
 *   tokens}` — the prompt exactly as the chat endpoint will build it.
 * - llama.cpp's server (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md):
 *   `POST /apply-template {messages}` answers `{prompt}` (the chat template applied, no inference) and
 *   `POST /tokenize {content, add_special}` answers `{tokens}`. The template's documented input is the
 *   messages, so the tool definitions are counted as their JSON text, which is how templates render them.
 *
 * A count the server returns is evidence, not truth (a broken server, a proxy, another model behind
 * the URL): `doubtfulCount` checks it against the bytes of what was sent before it is used.
 */
import { z } from 'zod';
import { toOpenAIParams } from './openai-convert';
import { getJson, serverRoot, type FetchLike } from './server-window';
import type { ProviderRequest } from './types';
import { MAX_REPORTED_TOKENS } from './usage';

/** Counts one request's prompt as the server will; undefined when it cannot (or `signal` gave up). Never rejects. */
export type CountRequest = (request: ProviderRequest, signal?: AbortSignal) => Promise<number | undefined>;

export interface ServerTokenizeOptions {
  /** The OpenAI-compatible base URL (`…/v1`); the counting endpoints are at the server root. */
  baseUrl: string;
  kind: 'llamacpp' | 'vllm';
  fetch?: FetchLike;
  /** A count that takes longer is not worth waiting for (default 3 s). */
  timeoutMs?: number;
}

const tokenCount = z.number().int().nonnegative().max(MAX_REPORTED_TOKENS);
const VllmTokenize = z.object({ count: tokenCount });
const LlamaTemplate = z.object({ prompt: z.string() });
const LlamaTokens = z.object({ tokens: z.array(z.unknown()).max(MAX_REPORTED_TOKENS) });

/** A counter for one server (see the module comment). */
export function serverTokenCounter(options: ServerTokenizeOptions): CountRequest {
  const fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const root = serverRoot(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? 3000;
  return async (request, signal) => {
    try {
      const params = toOpenAIParams(request, 'openai-compatible');
      const post = <T>(path: string, schema: z.ZodType<T>, body: unknown) =>
        getJson(fetch, `${root}${path}`, schema, timeoutMs, body, signal);
      if (options.kind === 'vllm') {
        const body = { model: request.model, messages: params.messages, tools: params.tools, add_generation_prompt: true };
        return (await post('/tokenize', VllmTokenize, body))?.count;
      }
      const template = await post('/apply-template', LlamaTemplate, { messages: params.messages });
      if (!template) return undefined;
      const prompt = await post('/tokenize', LlamaTokens, { content: template.prompt, add_special: true });
      if (!prompt) return undefined;
      if (!params.tools?.length) return prompt.tokens.length;
      const tools = await post('/tokenize', LlamaTokens, { content: JSON.stringify(params.tools) });
      return tools ? prompt.tokens.length + tools.tokens.length : undefined;
    } catch {
      return undefined;
    }
  };
}

/**
 * Fewer tokens than one per this many characters of sent text is no count of it: the densest
 * tokenizers in use average under 5 characters a token on English prose (o200k: 4.5 on the test
 * corpus) and far fewer on code, logs, CJK, other scripts and base64, so a count under an eighth of
 * the characters means the server counted something else (a truncated prompt, another model, a
 * hostile answer). A refused honest count costs only exactness: the safe estimate stands.
 */
const MAX_CHARS_PER_TOKEN = 8;
/**
 * Byte-level tokenizers (and SentencePiece with byte fallback) never make more than one token of a
 * byte; the chat template adds its role markers and fixed text on top, which these allow for.
 */
const TEMPLATE_TOKENS = 1024;
const TEMPLATE_TOKENS_PER_MESSAGE = 32;

/** The text the chat request carries (message texts, tool calls, tool definitions; images aside). */
function sentTexts(params: ReturnType<typeof toOpenAIParams>): string[] {
  const texts: string[] = [];
  for (const m of params.messages) {
    if (typeof m.content === 'string') texts.push(m.content);
    else if (Array.isArray(m.content)) for (const part of m.content) if (part.type === 'text') texts.push(part.text);
    if ('tool_calls' in m) for (const c of m.tool_calls ?? []) if (c.type === 'function') texts.push(c.function.name, c.function.arguments);
  }
  if (params.tools?.length) texts.push(JSON.stringify(params.tools));
  return texts;
}

/**
 * Why `count` cannot be the server's count of `request` (far fewer tokens than its characters allow,
 * or more than one a byte plus the template), or undefined when it is plausible.
 */
export function doubtfulCount(request: ProviderRequest, count: number): string | undefined {
  const params = toOpenAIParams(request, 'openai-compatible');
  const texts = sentTexts(params);
  const chars = texts.reduce((sum, t) => sum + t.length, 0);
  if (count < Math.floor(chars / MAX_CHARS_PER_TOKEN))
    return `the server counted ${count} tokens for ${chars} characters of text, fewer than one token per ${MAX_CHARS_PER_TOKEN} characters`;
  const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8'), 0);
  if (count > bytes + TEMPLATE_TOKENS + TEMPLATE_TOKENS_PER_MESSAGE * params.messages.length)
    return `the server counted ${count} tokens for ${bytes} bytes of text, more than one token per byte`;
  return undefined;
}
