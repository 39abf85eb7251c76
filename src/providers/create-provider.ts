import { errorMessage } from '../common/errors';
import type { Provider } from './provider';
import type { RetryPolicy } from './retry';
import type { ProviderId, ProviderRequest, StreamEvent } from './types';

/** What `createProvider` needs; the vscode edge fills it from settings and `resolveApiKey`. */
export interface ProviderConfig {
  provider: ProviderId;
  apiKey?: string;
  /** Custom endpoint; required in practice for 'openai-compatible' (e.g. http://localhost:11434/v1). */
  baseUrl?: string;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  /** Whether a model reasons (the model table's `supportsReasoning`); used by the OpenAI Responses adapter. */
  reasons?: (model: string) => boolean;
}

/**
 * Builds the adapter for a provider: Anthropic Messages, OpenAI Responses for 'openai', Chat
 * Completions for 'openai-compatible' servers (which rarely speak Responses). Never throws: a missing key yields a provider whose every
 * request ends at once with an `auth` error that says how to set one. The adapter and its SDK are
 * loaded on the first request, so extension activation does not pay for evaluating either SDK.
 */
export function createProvider(config: ProviderConfig): Provider {
  const common = { apiKey: config.apiKey, baseUrl: config.baseUrl, retry: config.retry, timeoutMs: config.timeoutMs };
  let loaded: Promise<Provider> | undefined;
  const load = (): Promise<Provider> =>
    (loaded ??=
      config.provider === 'anthropic'
        ? import('./anthropic').then((m) => new m.AnthropicProvider(common))
        : config.provider === 'openai'
          ? import('./openai-responses').then((m) => new m.OpenAIResponsesProvider({ ...common, reasons: config.reasons }))
          : import('./openai').then((m) => new m.OpenAIProvider({ provider: 'openai-compatible', ...common })));
  return {
    id: config.provider,
    async *stream(req: ProviderRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
      let adapter: Provider;
      try {
        adapter = await load();
      } catch (err) {
        loaded = undefined;
        yield { type: 'start' };
        yield {
          type: 'done',
          message: {
            role: 'assistant', content: [], provider: config.provider, model: req.model,
            usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, stopReason: 'error',
            error: { kind: 'unknown', message: `Could not load the ${config.provider} adapter: ${errorMessage(err)}` },
            timestamp: Date.now(),
          },
        };
        return;
      }
      yield* adapter.stream(req, signal);
    },
  };
}
