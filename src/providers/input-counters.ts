/**
 * The `InputCounter` of each provider that can count (`input-count.ts`), over the same request
 * conversion its adapter sends, so the count is of exactly what will go out. SDKs are loaded on the
 * first count. Pure apart from the SDK calls; never rejects (see `InputCounter`).
 */
import { safeCounter, type InputCounter } from './input-count';
import type { LmChatPort } from './lm-chat';
import { doubtfulCount, serverTokenCounter } from './server-tokenize';
import type { FetchLike, ServerKind } from './server-window';
import type { ProviderId, ProviderRequest } from './types';

export interface CounterOptions {
  provider: ProviderId;
  apiKey?: string;
  baseUrl?: string;
  /** Whether the model reasons (OpenAI's Responses request carries reasoning only then). */
  reasons?: (model: string) => boolean;
  lm?: LmChatPort;
  /** What the OpenAI-compatible server at `baseUrl` was found to be (`server-probes.ts`); undefined when unknown. */
  serverKind?: ServerKind;
  /** For the local servers' counting endpoints (default: the global `fetch`). */
  fetch?: FetchLike;
  timeoutMs?: number;
  onError?: (message: string) => void;
}

async function anthropicCount(o: CounterOptions, req: ProviderRequest, signal?: AbortSignal): Promise<number> {
  const [{ default: Anthropic }, { toAnthropicParams }] = await Promise.all([import('@anthropic-ai/sdk'), import('./anthropic-convert')]);
  const client = new Anthropic({ apiKey: o.apiKey, baseURL: o.baseUrl || undefined, maxRetries: 0, timeout: o.timeoutMs, logLevel: 'off' });
  const { model, messages, system, tools, tool_choice, thinking } = toAnthropicParams(req);
  const params = {
    model,
    messages,
    ...(system ? { system } : {}),
    ...(tools ? { tools } : {}),
    ...(tool_choice ? { tool_choice } : {}),
    ...(thinking ? { thinking } : {}),
  };
  return (await client.messages.countTokens(params, { signal })).input_tokens;
}

async function responsesCount(o: CounterOptions, req: ProviderRequest, signal?: AbortSignal): Promise<number> {
  const [{ createOpenAIClient }, { toResponsesParams }] = await Promise.all([
    import('./openai-client'),
    import('./openai-responses-convert'),
  ]);
  const client = createOpenAIClient({ provider: 'openai', apiKey: o.apiKey, baseUrl: o.baseUrl, timeoutMs: o.timeoutMs });
  if (!client) throw new Error('no OpenAI API key');
  const { model, input, instructions, tools, tool_choice, reasoning } = toResponsesParams(req, o.reasons?.(req.model) ?? false);
  const params = {
    model,
    input,
    ...(instructions ? { instructions } : {}),
    ...(tools ? { tools } : {}),
    ...(tool_choice ? { tool_choice } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
  return (await client.responses.inputTokens.count(params, { signal })).input_tokens;
}

async function lmCount(port: LmChatPort, req: ProviderRequest, signal: AbortSignal): Promise<number> {
  const { lmText, toLmMessages } = await import('./lm-chat-convert');
  const system = req.system
    .map((s) => s.text)
    .filter(Boolean)
    .join('\n\n');
  return port.countTokens(lmText(toLmMessages(system, req.messages, req.trailingNote)) + JSON.stringify(req.tools), signal);
}

/**
 * A llama.cpp or vLLM server counts with its own tokenizer and chat template (`server-tokenize.ts`);
 * a count it cannot give, or one the bytes sent make implausible, is a failure: the estimate stands.
 */
function serverCount(o: CounterOptions & { baseUrl: string; serverKind: 'llamacpp' | 'vllm' }) {
  const count = serverTokenCounter({ baseUrl: o.baseUrl, kind: o.serverKind, fetch: o.fetch, timeoutMs: o.timeoutMs });
  return async (req: ProviderRequest, signal?: AbortSignal): Promise<number> => {
    const n = await count(req, signal);
    if (n === undefined) throw new Error(`the ${o.serverKind} server did not count it`);
    const doubt = doubtfulCount(req, n);
    if (doubt) throw new Error(`count not used: ${doubt}`);
    return n;
  };
}

/**
 * The counter for `provider`, or undefined where Headroom has no way to count: an OpenAI-compatible
 * server that cannot tokenize (Ollama, LM Studio, one not identified).
 */
export function createInputCounter(o: CounterOptions): InputCounter | undefined {
  switch (o.provider) {
    case 'anthropic':
      return o.apiKey ? safeCounter((req, signal) => anthropicCount(o, req, signal), o.onError) : undefined;
    case 'openai':
      return o.apiKey ? safeCounter((req, signal) => responsesCount(o, req, signal), o.onError) : undefined;
    case 'vscode-lm': {
      const port = o.lm;
      return port ? safeCounter((req, signal) => lmCount(port, req, signal ?? new AbortController().signal), o.onError) : undefined;
    }
    case 'openai-compatible': {
      const { baseUrl, serverKind } = o;
      if (!baseUrl || (serverKind !== 'llamacpp' && serverKind !== 'vllm')) return undefined;
      return safeCounter(serverCount({ ...o, baseUrl, serverKind }), o.onError);
    }
    default:
      return undefined;
  }
}
