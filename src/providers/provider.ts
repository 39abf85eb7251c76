import type { AssistantMessage, ProviderId, ProviderRequest, StreamEvent } from './types';

/**
 * A model provider. `stream` never throws, not even synchronously: every failure (network, HTTP
 * error, malformed stream, abort) ends the iteration with a `done` event whose message has
 * `stopReason` 'error' or 'aborted' and an `error` of a known kind. Exactly one `done` is emitted,
 * always last. Retryable failures (rate limit, overload, connection) are retried inside `stream`
 * with a `retry` event before each wait.
 */
export interface Provider {
  readonly id: ProviderId;
  stream(req: ProviderRequest, signal?: AbortSignal): AsyncIterable<StreamEvent>;
}

/** Runs one request to completion and returns its final message. Never throws. */
export async function complete(provider: Provider, req: ProviderRequest, signal?: AbortSignal): Promise<AssistantMessage> {
  let last: AssistantMessage | undefined;
  for await (const e of provider.stream(req, signal)) {
    if (e.type === 'done') last = e.message;
  }
  // A Provider always emits done; the fallback keeps the contract even for a faulty implementation.
  return (
    last ?? {
      role: 'assistant',
      content: [],
      provider: provider.id,
      model: req.model,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'error',
      error: { kind: 'unknown', message: 'The provider ended without a result.' },
      timestamp: Date.now(),
    }
  );
}
