import type OpenAI from 'openai';
import { AssistantBuilder } from './assistant-builder';
import { normalizeErrorBody } from './error-body';
import { defaultIdleTimeouts, type IdleBudget, type IdleTimeouts } from './idle-watchdog';
import { endOfStream, streamThrew } from './stream-end';
import { classifyProviderError } from './errors';
import { createOpenAIClient, NO_OPENAI_KEY, type OpenAIClientOptions } from './openai-client';
import { toOpenAIParams } from './openai-convert';
import type { Provider } from './provider';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry';
import type { AssistantMessage, ProviderError, ProviderRequest, StopReason, StreamEvent } from './types';
import { tokenCount } from './usage';
import { estimateTokens } from './usage-estimate';

/** Options of the OpenAI adapter. Without `apiKey`, 'openai' requests end with an `auth` error. */
export interface OpenAIProviderOptions extends OpenAIClientOptions {
  retry?: Partial<RetryPolicy>;
  /** How long the stream may stay silent (see `IdleTimeouts`); defaults to `defaultIdleTimeouts(provider)`. */
  idleTimeouts?: Partial<IdleTimeouts>;
  /** The `auth` error's message without a key (default: how to set one). */
  missingKeyMessage?: string;
}

function mapFinish(reason: string | null | undefined): { stop: StopReason; error?: ProviderError } {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return { stop: 'toolUse' };
    case 'length':
      return { stop: 'maxTokens' };
    case 'content_filter':
      return { stop: 'error', error: { kind: 'invalid_request', message: 'The reply was stopped by the provider content filter.' } };
    default:
      return { stop: 'end' };
  }
}

/** Reasoning text from compatible servers: `reasoning_content` (vLLM, DeepSeek) or `reasoning` (Ollama, OpenRouter). */
function reasoningDelta(delta: unknown): string {
  const d = delta as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof d.reasoning_content === 'string') return d.reasoning_content;
  if (typeof d.reasoning === 'string') return d.reasoning;
  return '';
}

/** A compatible server's error sent as a stream chunk, shaped like an SDK error for classification. */
function streamedError(chunk: unknown): { error: unknown } | undefined {
  const c = chunk as { object?: unknown; message?: unknown };
  if (c.object !== 'error' || typeof c.message !== 'string') return undefined;
  return { error: (normalizeErrorBody(chunk) as { error: unknown }).error };
}

/** OpenAI Chat Completions adapter, also for any OpenAI-compatible base URL. See `Provider`. */
export class OpenAIProvider implements Provider {
  readonly id: 'openai' | 'openai-compatible';
  private readonly client: OpenAI | undefined;
  private readonly policy: RetryPolicy;
  private readonly secrets: string[];
  private readonly idle: IdleTimeouts;
  private readonly missingKeyMessage: string;

  constructor(options: OpenAIProviderOptions) {
    this.missingKeyMessage = options.missingKeyMessage ?? NO_OPENAI_KEY;
    this.id = options.provider;
    this.idle = { ...defaultIdleTimeouts(options.provider), ...options.idleTimeouts };
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.secrets = options.apiKey ? [options.apiKey] : [];
    this.client = createOpenAIClient(options);
  }

  stream(req: ProviderRequest, signal: AbortSignal = new AbortController().signal): AsyncIterable<StreamEvent> {
    const aborted = () => new AssistantBuilder(this.id, req.model).fail({ kind: 'aborted', message: 'Request aborted.' });
    return withRetries((s, budget) => this.attempt(req, s, budget), this.policy, signal, aborted);
  }

  private async *attempt(req: ProviderRequest, signal: AbortSignal, budget: IdleBudget): AsyncGenerator<StreamEvent, AssistantMessage> {
    const b = new AssistantBuilder(this.id, req.model);
    if (!this.client) {
      return b.fail({ kind: 'auth', message: this.missingKeyMessage });
    }
    if (signal.aborted) return b.fail({ kind: 'aborted', message: 'Request aborted.' });
    const params = toOpenAIParams(req, this.id);
    let finishReason: string | undefined;
    let sawUsage = false;
    // Keep-alive comments never reach this loop (the SDK skips them), so they do not touch the watchdog.
    const watchdog = budget.watch(signal, this.idle);
    try {
      const stream = await this.client.chat.completions.create(params, { signal: watchdog.signal });
      for await (const chunk of stream) {
        watchdog.touch();
        b.started = true;
        if (chunk.usage) {
          sawUsage = true;
          // Compatible servers are untrusted: every figure goes through tokenCount.
          const cached = tokenCount(chunk.usage.prompt_tokens_details?.cached_tokens);
          b.usage = {
            input: Math.max(0, tokenCount(chunk.usage.prompt_tokens) - cached),
            output: tokenCount(chunk.usage.completion_tokens),
            cacheRead: cached,
            cacheWrite: 0,
          };
        }
        const choice = chunk.choices?.[0];
        if (!choice) {
          // vLLM streams its errors as a top-level body (`{object: 'error', message, …}`), which the SDK
          // passes on as a chunk: without this the reply would just stop, and an overflow go unnoticed.
          const inStream = streamedError(chunk);
          if (inStream) return b.fail(classifyProviderError(inStream, this.secrets));
          continue;
        }
        const delta = choice.delta ?? {};
        const r = reasoningDelta(delta);
        if (r) {
          const e = b.reasoning('reasoning', r);
          if (e) yield e;
        }
        if (delta.content) {
          const e = b.text('text', delta.content);
          if (e) yield e;
        }
        for (const tc of delta.tool_calls ?? []) {
          const key = `tool${tc.index}`;
          const e = b.toolStart(key, tc.id ?? '', tc.function?.name ?? '');
          if (e) yield e;
          if (tc.function?.arguments) b.toolArgs(key, tc.function.arguments);
        }
        if (choice.finish_reason) {
          finishReason = choice.finish_reason;
          for (const e of b.endAllTools()) yield e;
        }
      }
    } catch (err) {
      return b.fail(streamThrew(err, signal, watchdog, this.secrets));
    } finally {
      watchdog.dispose();
    }
    const ended = endOfStream(signal, watchdog, finishReason !== undefined);
    if (ended || finishReason === undefined)
      return b.fail(ended ?? { kind: 'network', message: 'The stream ended without a finish reason.' });
    if (!sawUsage) {
      b.usage = {
        input: estimateTokens(JSON.stringify(params.messages) + JSON.stringify(params.tools ?? [])),
        output: estimateTokens(b.outputText()),
        cacheRead: 0,
        cacheWrite: 0,
        estimated: true,
      };
    }
    const mapped = mapFinish(finishReason);
    b.stopReason = mapped.stop;
    return mapped.error ? b.fail(mapped.error) : b.finish();
  }
}
