import { errorMessage } from '../common/errors';
import { providerEntry } from '../common/provider-catalogue';
import { serverAuthError } from './server-auth';
import type { IdleTimeouts } from './idle-watchdog';
import type { LmChatPort } from './lm-chat';
import { withParameterFallback, type RefusedParameters } from './parameter-fallback';
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
  /** How long a stream may stay silent before it ends with a retryable `network` error. */
  idleTimeouts?: Partial<IdleTimeouts>;
  /** Whether a model reasons (the model table's `supportsReasoning`); used by the OpenAI Responses adapter. */
  reasons?: (model: string) => boolean;
  /** VS Code's Language Model API, for 'vscode-lm' (only the vscode edge can build it). */
  lm?: LmChatPort;
  /** Said by the `auth` error when there is no key, e.g. why a key was withheld (`releaseApiKey`). */
  missingKeyMessage?: string;
  /** Parameters models refused (a 400 naming one): left out of later requests, and a refused request is sent again once without it. */
  refused?: RefusedParameters;
  /**
   * 'openai-compatible' only: the server is Ollama (discovery said so), so requests go to its native
   * chat API with this context (`ollama-chat.ts`); `numCtx` undefined: the server's own choice.
   */
  ollama?: { numCtx?: number };
}

/** What every adapter takes from the config. */
type CommonOptions = Pick<ProviderConfig, 'apiKey' | 'baseUrl' | 'retry' | 'timeoutMs' | 'idleTimeouts' | 'missingKeyMessage'>;

/**
 * The provider catalogue's factory column (`common/provider-catalogue.ts`): how each provider's adapter is loaded and
 * built. Keyed by every `ProviderId`, so a catalogue entry without an adapter does not compile. The
 * imports are dynamic so no SDK is evaluated before the first request.
 */
const ADAPTERS: { readonly [P in ProviderId]: (common: CommonOptions, config: ProviderConfig) => Promise<Provider> } = {
  anthropic: (common) => import('./anthropic').then((m) => new m.AnthropicProvider(common)),
  openai: (common, config) =>
    import('./openai-responses').then((m) => new m.OpenAIResponsesProvider({ ...common, reasons: config.reasons })),
  'openai-compatible': (common, config) =>
    config.ollama && common.baseUrl
      ? import('./ollama-chat').then(
          (m) => new m.OllamaChatProvider({ ...common, baseUrl: common.baseUrl!, numCtx: config.ollama?.numCtx }),
        )
      : import('./openai').then((m) => new m.OpenAIProvider({ provider: 'openai-compatible', ...common })),
  'vscode-lm': (_common, config) => {
    const lm = config.lm;
    if (!lm) return Promise.reject(new Error('VS Code language models are only available inside VS Code.'));
    return import('./lm-chat').then((m) => new m.LmChatProvider(lm, config.retry));
  },
};

function adapterFor(config: ProviderConfig): Promise<Provider> {
  const common: CommonOptions = {
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    retry: config.retry,
    timeoutMs: config.timeoutMs,
    idleTimeouts: config.idleTimeouts,
    missingKeyMessage: config.missingKeyMessage,
  };
  return ADAPTERS[config.provider](common, config);
}

/**
 * Builds the adapter for a provider: Anthropic Messages, OpenAI Responses for 'openai', Chat
 * Completions for 'openai-compatible' servers (which rarely speak Responses), VS Code's Language
 * Model API for 'vscode-lm'. Never throws: a missing key yields a provider whose every
 * request ends at once with an `auth` error that says how to set one. The adapter and its SDK are
 * loaded on the first request, so extension activation does not pay for evaluating either SDK.
 */
export function createProvider(config: ProviderConfig): Provider {
  let loaded: Promise<Provider> | undefined;
  const load = (): Promise<Provider> => (loaded ??= adapterFor(config));
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
            role: 'assistant',
            content: [],
            provider: config.provider,
            model: req.model,
            usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            stopReason: 'error',
            error: { kind: 'unknown', message: `Could not load the ${config.provider} adapter: ${errorMessage(err)}` },
            timestamp: Date.now(),
          },
        };
        return;
      }
      const events = (config.refused ? withParameterFallback(adapter, config.refused) : adapter).stream(req, signal);
      const server = providerEntry(config.provider).endpoint === 'server' ? config.baseUrl : undefined;
      if (!server) {
        yield* events;
        return;
      }
      // A server's refusal of the key is worded for that server (`server-auth.ts`).
      for await (const e of events)
        yield e.type === 'done' && e.message.error
          ? { ...e, message: { ...e.message, error: serverAuthError(e.message.error, server) } }
          : e;
    },
  };
}
