import type OpenAI from 'openai';
import { AssistantBuilder } from './assistant-builder';
import { classifyProviderError } from './errors';
import { tokenCount } from './usage';
import { defaultIdleTimeouts, type IdleBudget, type IdleTimeouts } from './idle-watchdog';
import { endOfStream, streamThrew } from './stream-end';
import { createOpenAIClient, NO_OPENAI_KEY, type OpenAIClientOptions } from './openai-client';
import { reasoningSignature, toResponsesParams } from './openai-responses-convert';
import type { Provider } from './provider';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry';
import type { AssistantMessage, ProviderError, ProviderRequest, StreamEvent, Usage } from './types';

/** Options of the Responses adapter. Without `apiKey`, every request ends with an `auth` error. */
export interface OpenAIResponsesProviderOptions extends Omit<OpenAIClientOptions, 'provider'> {
  retry?: Partial<RetryPolicy>;
  /**
   * Whether a model reasons (the model table's `supportsReasoning`, injected because providers sit
   * below the context layer). Default: no model reasons, so no reasoning fields are sent.
   */
  reasons?: (model: string) => boolean;
  /** How long the stream may stay silent (see `IdleTimeouts`); defaults to `defaultIdleTimeouts('openai')`. */
  idleTimeouts?: Partial<IdleTimeouts>;
  /** The `auth` error's message without a key (default: how to set one). */
  missingKeyMessage?: string;
}

type Event = OpenAI.Responses.ResponseStreamEvent;
type ResponseBody = OpenAI.Responses.Response;

/** Normalized usage: `input` without the cached and cache-written tokens OpenAI counts in `input_tokens`. */
export function responsesUsage(u: OpenAI.Responses.ResponseUsage): Usage {
  // Every figure through tokenCount: a gateway speaking this API is as untrusted as any server.
  const cacheRead = tokenCount(u.input_tokens_details?.cached_tokens);
  const cacheWrite = tokenCount(u.input_tokens_details?.cache_write_tokens);
  const usage: Usage = {
    input: Math.max(0, tokenCount(u.input_tokens) - cacheRead - cacheWrite),
    output: tokenCount(u.output_tokens),
    cacheRead,
    cacheWrite,
  };
  const reasoning = tokenCount(u.output_tokens_details?.reasoning_tokens);
  if (reasoning) usage.reasoning = reasoning;
  return usage;
}

/** An in-stream failure (`response.failed` or an `error` event) as a `ProviderError`. */
function streamFailure(error: { message?: string; code?: string | null } | null | undefined, secrets: string[]): ProviderError {
  return classifyProviderError(
    { error: { message: error?.message || 'The response failed.', code: error?.code ?? undefined, type: error?.code ?? undefined } },
    secrets,
  );
}

/**
 * OpenAI Responses API adapter for api.openai.com models (OpenAI-compatible servers keep Chat
 * Completions). Stateless requests (`store: false`); reasoning items are carried between requests
 * encrypted (see `openai-responses-convert.ts`). See `Provider` for the contract: never throws.
 */
export class OpenAIResponsesProvider implements Provider {
  readonly id = 'openai' as const;
  private readonly client: OpenAI | undefined;
  private readonly policy: RetryPolicy;
  private readonly secrets: string[];
  private readonly reasons: (model: string) => boolean;
  private readonly idle: IdleTimeouts;
  private readonly missingKeyMessage: string;

  constructor(options: OpenAIResponsesProviderOptions) {
    this.idle = { ...defaultIdleTimeouts('openai'), ...options.idleTimeouts };
    this.missingKeyMessage = options.missingKeyMessage ?? NO_OPENAI_KEY;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.secrets = options.apiKey ? [options.apiKey] : [];
    this.client = createOpenAIClient({ ...options, provider: 'openai' });
    this.reasons = options.reasons ?? (() => false);
  }

  stream(req: ProviderRequest, signal: AbortSignal = new AbortController().signal): AsyncIterable<StreamEvent> {
    const aborted = () => new AssistantBuilder(this.id, req.model).fail({ kind: 'aborted', message: 'Request aborted.' });
    return withRetries((s, budget) => this.attempt(req, s, budget), this.policy, signal, aborted);
  }

  private async *attempt(req: ProviderRequest, signal: AbortSignal, budget: IdleBudget): AsyncGenerator<StreamEvent, AssistantMessage> {
    const b = new AssistantBuilder(this.id, req.model);
    if (!this.client) return b.fail({ kind: 'auth', message: this.missingKeyMessage });
    if (signal.aborted) return b.fail({ kind: 'aborted', message: 'Request aborted.' });
    const params = toResponsesParams(req, this.reasons(req.model));
    let final: ResponseBody | undefined;
    let failure: ProviderError | undefined;
    const watchdog = budget.watch(signal, this.idle);
    try {
      const stream = await this.client.responses.create(params, { signal: watchdog.signal });
      for await (const event of stream) {
        watchdog.touch();
        b.started = true;
        for (const e of this.apply(b, event)) yield e;
        if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
        else if (event.type === 'response.failed') failure = streamFailure(event.response.error, this.secrets);
        else if (event.type === 'error') failure = streamFailure(event, this.secrets);
        if (final || failure) break;
      }
    } catch (err) {
      return b.fail(streamThrew(err, signal, watchdog, this.secrets));
    } finally {
      watchdog.dispose();
    }
    const ended = endOfStream(signal, watchdog, final !== undefined || failure !== undefined);
    if (ended || failure || !final)
      return b.fail(ended ?? failure ?? { kind: 'network', message: 'The stream ended without a final response.' });
    if (final.usage) b.usage = responsesUsage(final.usage);
    for (const e of b.endAllTools()) yield e;
    if (final.status === 'incomplete') {
      const reason = final.incomplete_details?.reason;
      if (reason === 'content_filter')
        return b.fail({ kind: 'invalid_request', message: 'The reply was stopped by the provider content filter.' });
      b.stopReason = 'maxTokens';
    }
    return b.finish();
  }

  /** Folds one stream event into the builder; returns the neutral events it produces. */
  private *apply(b: AssistantBuilder, event: Event): Generator<StreamEvent> {
    const key = 'output_index' in event ? `item${event.output_index}` : '';
    switch (event.type) {
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          const e = b.toolStart(key, event.item.call_id, event.item.name, event.item.id);
          if (e) yield e;
        }
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const e = b.text(key, event.delta);
        if (e) yield e;
        return;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const e = b.reasoning(key, event.delta);
        if (e) yield e;
        return;
      }
      case 'response.reasoning_summary_part.added': {
        const e = event.summary_index > 0 ? b.reasoning(key, '\n\n') : undefined;
        if (e) yield e;
        return;
      }
      case 'response.function_call_arguments.delta':
        b.toolArgs(key, event.delta);
        return;
      case 'response.output_item.done': {
        const item = event.item;
        if (item.type === 'function_call') {
          // Some servers send the arguments only with the finished item.
          if (!b.toolArgsSoFar(key) && item.arguments) b.toolArgs(key, item.arguments);
          const e = b.toolEnd(key);
          if (e) yield e;
        } else if (item.type === 'reasoning') {
          const signature = reasoningSignature(item);
          if (signature) b.reasoningSignature(key, signature);
        }
        return;
      }
    }
  }
}
