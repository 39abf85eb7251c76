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
 */
import { z } from 'zod';
import { toOpenAIParams } from './openai-convert';
import { getJson, serverRoot, type FetchLike } from './server-window';
import type { ProviderRequest } from './types';
import { MAX_REPORTED_TOKENS } from './usage';

/** Counts one request's prompt as the server will; undefined when it cannot. Never rejects. */
export type CountRequest = (request: ProviderRequest) => Promise<number | undefined>;

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
  return async (request) => {
    try {
      const params = toOpenAIParams(request, 'openai-compatible');
      if (options.kind === 'vllm') {
        const body = { model: request.model, messages: params.messages, tools: params.tools, add_generation_prompt: true };
        return (await getJson(fetch, `${root}/tokenize`, VllmTokenize, timeoutMs, body))?.count;
      }
      const template = await getJson(fetch, `${root}/apply-template`, LlamaTemplate, timeoutMs, { messages: params.messages });
      if (!template) return undefined;
      const prompt = await getJson(fetch, `${root}/tokenize`, LlamaTokens, timeoutMs, { content: template.prompt, add_special: true });
      if (!prompt) return undefined;
      if (!params.tools?.length) return prompt.tokens.length;
      const tools = await getJson(fetch, `${root}/tokenize`, LlamaTokens, timeoutMs, { content: JSON.stringify(params.tools) });
      return tools ? prompt.tokens.length + tools.tokens.length : undefined;
    } catch {
      return undefined;
    }
  };
}
