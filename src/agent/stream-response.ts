/**
 * Streams one model request and forwards its events, each tool call under an id no other call of the
 * conversation has (`call-ids.ts`). Resolves to the final assistant message;
 * never throws (a provider that breaks its contract still yields an `error` message).
 */
import { errorMessage } from '../common/errors';
import type { Provider } from '../providers/provider';
import type { AssistantMessage, ProviderError, ProviderId, ProviderRequest } from '../providers/types';
import { CallIds } from './call-ids';
import type { AgentEventSink } from './events';

export async function streamResponse(
  provider: Provider,
  request: ProviderRequest,
  signal: AbortSignal,
  emit: AgentEventSink,
): Promise<AssistantMessage> {
  emit({ type: 'message_start', role: 'assistant' });
  const ids = new CallIds(request.messages);
  let final: AssistantMessage | undefined;
  let text = '';
  try {
    for await (const e of provider.stream(request, signal)) {
      switch (e.type) {
        case 'text_delta':
          text += e.delta;
          emit({ type: 'message_delta', kind: 'text', delta: e.delta });
          break;
        case 'reasoning_delta':
          emit({ type: 'message_delta', kind: 'reasoning', delta: e.delta });
          break;
        case 'toolcall_start':
          emit({ type: 'message_delta', kind: 'toolCall', toolCallId: ids.start(e.id), name: e.name });
          break;
        case 'retry':
          emit({ type: 'retry', attempt: e.attempt, delayMs: e.delayMs, error: e.error });
          break;
        case 'done':
          final = ids.finish(e.message);
          break;
        default:
          break;
      }
    }
  } catch (err) {
    final = failed(
      provider.id,
      request,
      text,
      signal.aborted ? { kind: 'aborted', message: 'Request aborted.' } : { kind: 'unknown', message: errorMessage(err) },
    );
  }
  final ??= failed(
    provider.id,
    request,
    text,
    signal.aborted
      ? { kind: 'aborted', message: 'Request aborted.' }
      : { kind: 'unknown', message: 'The provider ended without a result.' },
  );
  emit({ type: 'message_end', message: final });
  return final;
}

function failed(providerId: ProviderId, request: ProviderRequest, text: string, error: ProviderError): AssistantMessage {
  return {
    role: 'assistant',
    content: text ? [{ type: 'text', text }] : [],
    provider: providerId,
    model: request.model,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, estimated: true },
    stopReason: error.kind === 'aborted' ? 'aborted' : 'error',
    error,
    partial: text !== '',
    timestamp: Date.now(),
  };
}
