import OpenAI from 'openai';

/** What both OpenAI adapters (Chat Completions and Responses) need to build their SDK client. */
export interface OpenAIClientOptions {
  /** 'openai' for api.openai.com; 'openai-compatible' for Ollama, LM Studio, vLLM and the like. */
  provider: 'openai' | 'openai-compatible';
  /** Optional for OpenAI-compatible servers, which often need none. */
  apiKey?: string;
  baseUrl?: string;
  timeoutMs?: number;
}

/** Sent when an OpenAI-compatible server needs no key; the SDK insists on one. Not a secret. */
const NO_KEY = 'no-key';

/**
 * The SDK client, or undefined when 'openai' has no key (the adapter then answers every request
 * with an `auth` error). The SDK never retries: Headroom retries itself, visibly, honouring retry-after.
 */
export function createOpenAIClient(options: OpenAIClientOptions): OpenAI | undefined {
  const apiKey = options.apiKey || (options.provider === 'openai-compatible' ? NO_KEY : undefined);
  if (!apiKey) return undefined;
  return new OpenAI({ apiKey, baseURL: options.baseUrl || undefined, maxRetries: 0, timeout: options.timeoutMs, logLevel: 'off' });
}

/** The message of the `auth` error an OpenAI adapter without a key answers with. */
export const NO_OPENAI_KEY = 'No OpenAI API key. Set one with "Headroom: Set API Key" or OPENAI_API_KEY.';
