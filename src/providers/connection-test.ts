/**
 * Test connection (the first-run view's button): one request of at most 16 output tokens to the configured
 * provider and model, through the same adapter and SDK a turn uses, with no retries and a bounded
 * wait. The result is worded for a person: who answered, or what failed, at which URL, and what to do
 * next. Pure apart from the provider it is given; never throws; the key never appears in a result.
 */
import { providerEntry } from '../common/provider-catalogue';
import { redactSecrets } from './errors';
import { complete, type Provider } from './provider';
import { listsModel, modelListWords } from './server-models';
import type { ProviderError, ProviderId } from './types';

/** What the panel shows: ✓ and who answered, or the failure, its URL and the next step. */
export interface ConnectionResult {
  ok: boolean;
  message: string;
  /** The URL the request went to (shown with a failure). */
  url?: string;
}

export interface ConnectionTarget {
  provider: ProviderId;
  model: string;
  baseUrl: string | undefined;
  /** The key the request carries, only so it can be cut out of any error text; never shown or logged. */
  apiKey?: string;
  /**
   * The models a server at a base URL lists (`/v1/models`); empty or absent when it did not say. Many
   * servers answer any model name (llama.cpp's serves its one model whatever the request names), so a
   * reply proves nothing about the name: the list does.
   */
  serverModels?: readonly string[];
}

/** How long Test connection waits for the answer's first token before it says the server did not answer. */
export const CONNECTION_TEST_TIMEOUT_MS = 20_000;

/** Where requests go: the base URL, or the provider's own endpoint; VS Code's models have none. */
export function endpointUrl(target: Pick<ConnectionTarget, 'provider' | 'baseUrl'>): string | undefined {
  return target.baseUrl || providerEntry(target.provider).defaultOrigin;
}

/** What to do after a failure of this kind. */
function nextStep(error: ProviderError, target: ConnectionTarget): string {
  const server = providerEntry(target.provider).endpoint === 'server';
  switch (error.kind) {
    case 'auth':
      return server
        ? 'Check the key the server expects (Set API Key…), or leave it empty if the server takes none.'
        : `Use Set API Key… to set a valid ${providerEntry(target.provider).label} API key.`;
    case 'network':
      return server
        ? 'Check that the server is running and that the base URL is right (for Ollama: http://localhost:11434/v1).'
        : 'Check your network connection or proxy, and the base URL if you set one.';
    case 'invalid_request':
      return error.status === 404
        ? `Check the model name (“${target.model}”) and the base URL (it usually ends in /v1).`
        : `Check the model name (“${target.model}”) in the model picker or the headroom.model setting.`;
    case 'rate_limit':
    case 'overloaded':
      return 'The key works; the provider is busy or rate-limited now. Try again in a minute.';
    default:
      return 'See Headroom’s log (Show Log) for the details.';
  }
}

/** The failure in one sentence: own words for the common kinds, the provider's (key scrubbed) otherwise. */
function headline(error: ProviderError, target: ConnectionTarget, url: string | undefined): string {
  const at = url ?? providerEntry(target.provider).label;
  const status = error.status ? ` (${error.status})` : '';
  switch (error.kind) {
    case 'auth':
      return `${at} refused the API key${status}.`;
    case 'network':
      return `Could not reach ${at}.`;
    default:
      return redactSecrets(error.message, target.apiKey ? [target.apiKey] : [])
        .trim()
        .replace(/([^.!?])$/, '$1.');
  }
}

/** Sends the tiny request and words its outcome. `timeoutMs` bounds the whole test. */
export async function testConnection(
  provider: Provider,
  target: ConnectionTarget,
  timeoutMs = CONNECTION_TEST_TIMEOUT_MS,
): Promise<ConnectionResult> {
  const url = endpointUrl(target);
  const where = url ? ` at ${url}` : '';
  const listed = target.serverModels ?? [];
  if (listed.length && !listsModel(listed, target.model))
    return {
      ok: false,
      message: `${target.model || 'The configured model'} is not on this server; it has: ${modelListWords(listed)}. Pick one with Select Model.`,
      url,
    };
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  try {
    const reply = await complete(
      provider,
      {
        model: target.model,
        system: [{ id: 'test', text: 'Reply with OK.' }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply with OK.' }], timestamp: Date.now() }],
        tools: [],
        // OpenAI's Responses API refuses fewer than 16; the answer is a word or two either way.
        maxOutputTokens: 16,
      },
      abort.signal,
    );
    if (timedOut || reply.stopReason === 'aborted')
      return {
        ok: false,
        message: `No answer${where} within ${Math.round(timeoutMs / 1000)} s. ${nextStep({ kind: 'network', message: '' }, target)}`,
        url,
      };
    if (reply.stopReason === 'error' && reply.error)
      return { ok: false, message: `${headline(reply.error, target, url)} ${nextStep(reply.error, target)}`, url };
    const model = reply.model || target.model;
    return { ok: true, message: `Connected: ${model} answered${where}.`, url };
  } catch (err) {
    const error: ProviderError = { kind: 'unknown', message: err instanceof Error ? err.message : String(err) };
    return { ok: false, message: `${headline(error, target, url)} ${nextStep(error, target)}`, url };
  } finally {
    clearTimeout(timer);
  }
}
