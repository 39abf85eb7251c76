/**
 * The provider's own clearing around one request of the loop: a request whose context editing the
 * provider refuses goes again without it (once; the turn's later requests go without it too and the
 * caller remembers it for the session), and an answer's clearing is reported to the panel. Never throws.
 */
import type { AssistantMessage, ProviderRequest } from '../providers/types';
import type { AgentEvent } from './events';
import type { TurnConfig } from './turn-config';

/** The words a refusal of the edits names them by (Anthropic: the field, an edit type, or the beta). */
const NAMES_EDITS = /context[_ ]management|clear_tool_uses|clear_thinking|anthropic-beta|\bbeta\b/i;

/** Whether the provider refused the request for its context editing (a 400 naming it). */
export function refusedEdits(request: ProviderRequest, reply: AssistantMessage): boolean {
  return (
    request.contextEditing !== undefined &&
    reply.stopReason === 'error' &&
    reply.error?.kind === 'invalid_request' &&
    !reply.content.length &&
    NAMES_EDITS.test(reply.error.message)
  );
}

/** `request` without context editing. */
export function withoutEdits<R extends Pick<ProviderRequest, 'contextEditing'>>(request: R): R {
  const rest = { ...request };
  delete rest.contextEditing;
  return rest;
}

/**
 * When the provider refused the edits: the turn's later requests go without them, the caller hears
 * of it, and the request goes again without them (`send`). Otherwise `reply` as it is.
 */
export async function withoutRefusedEdits(
  config: TurnConfig,
  request: ProviderRequest,
  reply: AssistantMessage,
  send: (request: ProviderRequest) => Promise<AssistantMessage>,
): Promise<{ request: ProviderRequest; reply: AssistantMessage }> {
  if (!refusedEdits(request, reply)) return { request, reply };
  if (config.request) config.request = withoutEdits(config.request);
  try {
    config.onContextEditingRefused?.(reply.error?.message ?? '');
  } catch {
    // Remembering the refusal is best effort; the request goes again anyway.
  }
  const again = withoutEdits(request);
  return { request: again, reply: await send(again) };
}

/** The event that shows what the provider cleared for `request`, when it says it cleared anything. */
export function clearingEvent(config: TurnConfig, request: ProviderRequest, reply: AssistantMessage): AgentEvent | undefined {
  if (!reply.contextEdits?.length) return undefined;
  try {
    const clearing = config.gate.clearing?.(request, reply);
    return clearing ? { type: 'context_edits', clearing } : undefined;
  } catch {
    return undefined;
  }
}
