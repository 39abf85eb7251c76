/**
 * Ollama's native chat adapter (`POST {root}/api/chat`), used for an OpenAI-compatible base URL that
 * discovery found to be Ollama: it sends the context Headroom budgets to (`options.num_ctx`) and
 * `truncate: false` (see `ollama-convert.ts`). The reply streams as newline-delimited JSON
 * (https://github.com/ollama/ollama/blob/main/docs/api.md): `message.content` / `message.thinking`
 * pieces, whole tool calls in `message.tool_calls`, and a last object with `done: true`,
 * `done_reason` and the counts (`prompt_eval_count`, `eval_count`); an error is an HTTP status with
 * `{error}` before the stream or an `{error}` line in it. Never throws (see `Provider`).
 */
import { AssistantBuilder } from './assistant-builder';
import { normalizeErrorBody } from './error-body';
import { classifyProviderError } from './errors';
import { defaultIdleTimeouts, IdleWatchdog, type IdleTimeouts } from './idle-watchdog';
import { endOfStream, streamThrew } from './stream-end';
import { toOllamaBody } from './ollama-convert';
import type { Provider } from './provider';
import { DEFAULT_RETRY_POLICY, withRetries, type RetryPolicy } from './retry';
import { serverRoot } from './server-window';
import type { AssistantMessage, ProviderRequest, StreamEvent } from './types';
import { tokenCount } from './usage';

export interface OllamaChatOptions {
  /** The OpenAI-compatible base URL the user set (`…/v1`); the native API is at its root. */
  baseUrl: string;
  apiKey?: string;
  /** The context to ask for (`options.num_ctx`); undefined: the server's own. */
  numCtx?: number;
  retry?: Partial<RetryPolicy>;
  idleTimeouts?: Partial<IdleTimeouts>;
  timeoutMs?: number;
}

/** One line of the stream, as far as Headroom reads it. */
interface Line {
  error?: unknown;
  message?: { content?: unknown; thinking?: unknown; tool_calls?: unknown };
  done?: unknown;
  done_reason?: unknown;
  prompt_eval_count?: unknown;
  eval_count?: unknown;
}

/** Splits a byte stream into lines (the last one may arrive without a newline). */
async function* lines(body: ReadableStream<Uint8Array>, onData: () => void): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    onData();
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield line;
    }
  }
  buffered += decoder.decode();
  if (buffered.trim()) yield buffered.trim();
}

export class OllamaChatProvider implements Provider {
  readonly id = 'openai-compatible' as const;
  private readonly policy: RetryPolicy;
  private readonly idle: IdleTimeouts;
  private readonly secrets: string[];

  constructor(private readonly options: OllamaChatOptions) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.idle = { ...defaultIdleTimeouts('openai-compatible'), ...options.idleTimeouts };
    this.secrets = options.apiKey ? [options.apiKey] : [];
  }

  stream(req: ProviderRequest, signal: AbortSignal = new AbortController().signal): AsyncIterable<StreamEvent> {
    const aborted = () => new AssistantBuilder(this.id, req.model).fail({ kind: 'aborted', message: 'Request aborted.' });
    return withRetries((s) => this.attempt(req, s), this.policy, signal, aborted);
  }

  private async *attempt(req: ProviderRequest, signal: AbortSignal): AsyncGenerator<StreamEvent, AssistantMessage> {
    const b = new AssistantBuilder(this.id, req.model);
    if (signal.aborted) return b.fail({ kind: 'aborted', message: 'Request aborted.' });
    const watchdog = new IdleWatchdog(signal, this.idle);
    let done: Line | undefined;
    let calls = 0;
    try {
      const res = await fetch(`${serverRoot(this.options.baseUrl)}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify(toOllamaBody(req, this.options.numCtx)),
        signal: watchdog.signal,
      });
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // a plain-text error body
        }
        return b.fail(classifyProviderError({ status: res.status, ...(normalizeErrorBody(parsed) as object) }, this.secrets));
      }
      for await (const text of lines(res.body, () => watchdog.touch())) {
        let l: Line;
        try {
          l = JSON.parse(text) as Line;
        } catch (err) {
          return b.fail(classifyProviderError(err, this.secrets));
        }
        b.started = true;
        if (l.error !== undefined) return b.fail(classifyProviderError(normalizeErrorBody(l), this.secrets));
        const m = l.message ?? {};
        if (typeof m.thinking === 'string' && m.thinking) {
          const e = b.reasoning('reasoning', m.thinking);
          if (e) yield e;
        }
        if (typeof m.content === 'string' && m.content) {
          const e = b.text('text', m.content);
          if (e) yield e;
        }
        for (const c of Array.isArray(m.tool_calls)
          ? (m.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>)
          : []) {
          const key = `tool${calls++}`;
          const id = typeof c.id === 'string' && c.id ? c.id : `call_${Date.now().toString(36)}_${calls}`;
          const start = b.toolStart(key, id, typeof c.function?.name === 'string' ? c.function.name : '');
          if (start) yield start;
          const args = c.function?.arguments;
          b.toolArgs(key, typeof args === 'string' ? args : JSON.stringify(args ?? {}));
          const end = b.toolEnd(key);
          if (end) yield end;
        }
        if (l.done === true) done = l;
      }
    } catch (err) {
      return b.fail(streamThrew(err, signal, watchdog, this.secrets));
    } finally {
      watchdog.dispose();
    }
    const ended = endOfStream(signal, watchdog, done !== undefined);
    if (ended || !done) return b.fail(ended ?? { kind: 'network', message: 'The stream ended without its last line.' });
    // A local server is untrusted input like any other: every figure goes through tokenCount.
    b.usage = { input: tokenCount(done.prompt_eval_count), output: tokenCount(done.eval_count), cacheRead: 0, cacheWrite: 0 };
    // Ollama leaves the count out (`omitempty`) when it is 0: no figure, not a prompt of 0 tokens.
    if (done.prompt_eval_count === undefined) b.usage.estimated = true;
    b.stopReason = done.done_reason === 'length' ? 'maxTokens' : 'end';
    return b.finish();
  }
}
