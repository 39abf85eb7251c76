import { isRetryableKind } from './errors';
import { IDLE_BUDGET_MS, IdleBudget } from './idle-watchdog';
import type { AssistantMessage, ProviderError, StreamEvent } from './types';

/** How an adapter retries transient failures. All fields have defaults (`DEFAULT_RETRY_POLICY`). */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. */
  maxRetries: number;
  /** First backoff delay; doubles on each retry unless the provider gave `retry-after`. */
  baseDelayMs: number;
  /** Upper bound of one computed backoff delay. */
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the error is returned so a person can decide. */
  maxRetryAfterMs: number;
  /** Waits `ms` or until `signal` aborts (then resolves early). Injectable so tests do not wait. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Most silence one request may meet over all its attempts (`IdleBudget`). */
  idleBudgetMs: number;
}

/** Resolves after `ms`, or as soon as `signal` aborts. Never rejects. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** 4 retries at 1, 2, 4, 8 s (or what retry-after says, up to 60 s). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  sleep: abortableSleep,
  idleBudgetMs: IDLE_BUDGET_MS,
};

/**
 * Delay before retry number `retry` (1-based) after `error`, or undefined when the policy says stop.
 * The provider's `retry-after` wins over the computed backoff.
 */
export function retryDelay(retry: number, error: ProviderError, policy: RetryPolicy): number | undefined {
  if (!isRetryableKind(error.kind) || error.retryable === false || retry > policy.maxRetries) return undefined;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : undefined;
  }
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
}

/**
 * One request attempt: yields content events and returns the final message (which carries the error
 * when the attempt failed). `idle` is the request's idle budget, the same for every attempt: the
 * attempt's watchdog comes from it (`idle.watch`). Must never throw.
 */
export type Attempt = (signal: AbortSignal, idle: IdleBudget) => AsyncGenerator<StreamEvent, AssistantMessage>;

function isContentEvent(e: StreamEvent): boolean {
  return e.type === 'text_delta' || e.type === 'reasoning_delta' || e.type === 'toolcall_start' || e.type === 'toolcall_end';
}

/**
 * Runs `attempt` with the retry policy: emits `start` once, forwards content, and retries a retryable
 * failure only when that attempt streamed no content (otherwise the partial message is returned as it
 * is, so nothing the user saw is silently replaced). Emits `retry` before each wait and always ends
 * with exactly one `done`. Never throws.
 */
export async function* withRetries(
  attempt: Attempt,
  policy: RetryPolicy,
  signal: AbortSignal,
  abortedMessage: () => AssistantMessage,
): AsyncGenerator<StreamEvent> {
  yield { type: 'start' };
  const idle = new IdleBudget(policy.idleBudgetMs);
  for (let retry = 1; ; retry++) {
    let streamedContent = false;
    const it = attempt(signal, idle);
    let message: AssistantMessage;
    for (;;) {
      const r = await it.next();
      if (r.done) {
        message = r.value;
        break;
      }
      if (isContentEvent(r.value)) streamedContent = true;
      yield r.value;
    }
    const error = message.error;
    if (message.stopReason !== 'error' || !error || streamedContent || signal.aborted) {
      yield { type: 'done', message };
      return;
    }
    const delayMs = retryDelay(retry, error, policy);
    if (delayMs === undefined) {
      yield { type: 'done', message };
      return;
    }
    yield { type: 'retry', attempt: retry, delayMs, error };
    await policy.sleep(delayMs, signal);
    if (signal.aborted) {
      yield { type: 'done', message: abortedMessage() };
      return;
    }
  }
}
