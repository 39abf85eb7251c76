import OpenAI from 'openai';
import { providerEntry } from '../common/provider-catalogue';
import { normalizeErrorBody } from './error-body';
import { guardedSseFetch } from './sse-guard';

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
  // A server at a base URL takes no key (the catalogue says where each provider serves); the SDK insists on one.
  const atServer = providerEntry(options.provider).endpoint === 'server';
  const apiKey = options.apiKey || (atServer ? NO_KEY : undefined);
  if (!apiKey) return undefined;
  return new OpenAI({
    apiKey,
    baseURL: options.baseUrl || undefined,
    maxRetries: 0,
    timeout: options.timeoutMs,
    logLevel: 'off',
    // Every stream's events are size-capped and handed to the SDK's parser whole (linear time).
    fetch: guardedSseFetch(atServer ? nestingErrorBodies : undefined),
  });
}

/**
 * Compatible servers answer errors in their own shapes: vLLM a top-level `{"object":"error","message":…}`,
 * TGI and LM Studio `{"error":"text"}`, FastAPI servers `{"detail":"text"}`. The SDK reads only
 * `error.message`, so such a message (e.g. "This model's maximum context length is 4096 tokens") was
 * lost ("400 status code (no body)") and an overflow could not be told from any other 400. This fetch
 * brings the body to OpenAI's shape (`normalizeErrorBody`) before the SDK reads it.
 */
async function nestingErrorBodies(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (res.ok || !res.headers.get('content-type')?.includes('json')) return res;
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  const normalized = normalizeErrorBody(body);
  const fixed = normalized === body ? text : JSON.stringify(normalized);
  return new Response(fixed, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The message of the `auth` error an OpenAI adapter without a key answers with. */
export const NO_OPENAI_KEY = 'No OpenAI API key. Set one with "Headroom: Set API Key" or OPENAI_API_KEY.';
