import Anthropic from '@anthropic-ai/sdk';
import { compactionUsage } from './anthropic-compaction';
import { appliedContextEdits, managedParams } from './anthropic-context-editing';
import { toAnthropicParams } from './anthropic-convert';
import { AssistantBuilder } from './assistant-builder';
import { defaultIdleTimeouts, type IdleBudget, type IdleTimeouts } from './idle-watchdog';
import { endOfStream, streamThrew } from './stream-end';
import { guardedSseFetch } from './sse-guard';
import type { Provider } from './provider';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry';
import { tokenCount } from './usage';
import type { AppliedContextEdit, AssistantMessage, ProviderError, ProviderRequest, StopReason, StreamEvent, Usage } from './types';

/** Options of the Anthropic adapter. Without `apiKey` every request ends with an `auth` error. */
export interface AnthropicProviderOptions {
  apiKey?: string;
  /** Defaults to https://api.anthropic.com; tests point it at the fake provider. */
  baseUrl?: string;
  retry?: Partial<RetryPolicy>;
  /** Per-request timeout; the SDK default is 10 minutes. */
  timeoutMs?: number;
  /** How long the stream may stay silent (see `IdleTimeouts`); defaults to `defaultIdleTimeouts('anthropic')`. */
  idleTimeouts?: Partial<IdleTimeouts>;
  /** The `auth` error's message without a key (default: how to set one). */
  missingKeyMessage?: string;
}

function mapStop(reason: string | null | undefined): { stop: StopReason; error?: ProviderError } {
  switch (reason) {
    case 'tool_use':
      return { stop: 'toolUse' };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { stop: 'maxTokens' };
    case 'refusal':
      return { stop: 'error', error: { kind: 'invalid_request', message: 'The model declined to answer (refusal).' } };
    default:
      return { stop: 'end' };
  }
}

/** Anthropic Messages API adapter (streaming, tools, thinking, prompt caching). See `Provider`. */
export class AnthropicProvider implements Provider {
  readonly id = 'anthropic' as const;
  private readonly client: Anthropic | undefined;
  private readonly policy: RetryPolicy;
  private readonly secrets: string[];
  private readonly idle: IdleTimeouts;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.idle = { ...defaultIdleTimeouts('anthropic'), ...options.idleTimeouts };
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.secrets = options.apiKey ? [options.apiKey] : [];
    if (options.apiKey) {
      this.client = new Anthropic({
        apiKey: options.apiKey,
        baseURL: options.baseUrl || undefined,
        maxRetries: 0, // Headroom retries itself, visibly, honouring retry-after
        timeout: options.timeoutMs,
        logLevel: 'off',
        fetch: guardedSseFetch(), // event size capped, parsed in linear time
      });
    }
  }

  stream(req: ProviderRequest, signal: AbortSignal = new AbortController().signal): AsyncIterable<StreamEvent> {
    const aborted = () => new AssistantBuilder(this.id, req.model).fail({ kind: 'aborted', message: 'Request aborted.' });
    return withRetries((s, budget) => this.attempt(req, s, budget), this.policy, signal, aborted);
  }

  private async *attempt(req: ProviderRequest, signal: AbortSignal, budget: IdleBudget): AsyncGenerator<StreamEvent, AssistantMessage> {
    const b = new AssistantBuilder(this.id, req.model);
    if (!this.client) {
      return b.fail({
        kind: 'auth',
        message: this.options.missingKeyMessage ?? 'No Anthropic API key. Set one with "Headroom: Set API Key" or ANTHROPIC_API_KEY.',
      });
    }
    if (signal.aborted) return b.fail({ kind: 'aborted', message: 'Request aborted.' });
    let finished = false;
    let stopError: ProviderError | undefined;
    // A server-side compaction's summary and cost (`anthropic-compaction.ts`), when the request asked for one.
    let compacted: string | undefined;
    let compactionCost: Usage | undefined;
    // What the server's context editing cleared (`anthropic-context-editing.ts`), when the request asked for it.
    let edits: AppliedContextEdit[] | undefined;
    const watchdog = budget.watch(signal, this.idle);
    try {
      const managed = managedParams(req);
      const stream = managed
        ? await this.client.beta.messages.create(managed, { signal: watchdog.signal })
        : await this.client.messages.create(toAnthropicParams(req), { signal: watchdog.signal });
      for await (const ev of stream) {
        // The SDK swallows `ping` events and comments, so keep-alives never reach this loop or the watchdog.
        watchdog.touch();
        switch (ev.type) {
          case 'message_start': {
            b.started = true;
            const u = ev.message.usage;
            b.usage = {
              input: tokenCount(u.input_tokens),
              output: tokenCount(u.output_tokens),
              cacheRead: tokenCount(u.cache_read_input_tokens),
              cacheWrite: tokenCount(u.cache_creation_input_tokens),
            };
            // Writes asked to live 1 hour are billed higher: https://platform.claude.com/docs/en/build-with-claude/prompt-caching#1-hour-cache-duration
            const longWrites = tokenCount(u.cache_creation?.ephemeral_1h_input_tokens);
            if (longWrites > 0) b.usage.cacheWrite1h = longWrites;
            break;
          }
          case 'content_block_start': {
            const key = String(ev.index);
            const block = ev.content_block;
            if (block.type === 'text') {
              const e = b.text(key, block.text);
              if (e) yield e;
            } else if (block.type === 'thinking') {
              const e = b.reasoning(key, block.thinking);
              if (block.signature) b.reasoningSignature(key, block.signature);
              if (e) yield e;
            } else if (block.type === 'redacted_thinking') {
              b.redactedReasoning(key, block.data);
            } else if (block.type === 'tool_use') {
              const e = b.toolStart(key, block.id, block.name);
              if (e) yield e;
            } else if (block.type === 'compaction') {
              compacted = (compacted ?? '') + (block.content ?? '');
            }
            break;
          }
          case 'content_block_delta': {
            const key = String(ev.index);
            const d = ev.delta;
            let e: StreamEvent | undefined;
            if (d.type === 'text_delta') e = b.text(key, d.text);
            else if (d.type === 'thinking_delta') e = b.reasoning(key, d.thinking);
            else if (d.type === 'signature_delta') b.reasoningSignature(key, d.signature);
            else if (d.type === 'input_json_delta') b.toolArgs(key, d.partial_json);
            else if (d.type === 'compaction_delta') compacted = (compacted ?? '') + (d.content ?? '');
            if (e) yield e;
            break;
          }
          case 'content_block_stop': {
            const e = b.toolEnd(String(ev.index));
            if (e) yield e;
            break;
          }
          case 'message_delta': {
            const u = ev.usage;
            b.usage.output = tokenCount(u.output_tokens, b.usage.output);
            if (u.input_tokens != null) b.usage.input = tokenCount(u.input_tokens, b.usage.input);
            if (u.cache_read_input_tokens != null) b.usage.cacheRead = tokenCount(u.cache_read_input_tokens, b.usage.cacheRead);
            if (u.cache_creation_input_tokens != null) b.usage.cacheWrite = tokenCount(u.cache_creation_input_tokens, b.usage.cacheWrite);
            compactionCost = compactionUsage((u as { iterations?: unknown }).iterations) ?? compactionCost;
            const cm = (ev as { context_management?: unknown }).context_management;
            if (req.contextEditing && cm != null) edits = appliedContextEdits(cm);
            const mapped = mapStop(ev.delta.stop_reason);
            b.stopReason = mapped.stop;
            stopError = mapped.error;
            break;
          }
          case 'message_stop':
            finished = true;
            break;
        }
      }
    } catch (err) {
      return b.fail(streamThrew(err, signal, watchdog, this.secrets));
    } finally {
      watchdog.dispose();
    }
    const ended = endOfStream(signal, watchdog, finished);
    if (ended) return b.fail(ended);
    if (stopError) return b.fail(stopError);
    const message = b.finish();
    if (compacted?.trim())
      message.compaction = { summary: compacted.trim(), usage: compactionCost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
    if (edits?.length) message.contextEdits = edits;
    return message;
  }
}
