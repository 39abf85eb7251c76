/**
 * Deferred tools loaded by reference (Anthropic `defer_loading` + `tool_reference`) around one request
 * of the loop: when the provider refuses them (a proxy or an older API that does not know them), the
 * request goes again with the tools its history loaded in the tool list instead, the turn's later
 * requests list activated tools as before, and the caller remembers it for the session. Never throws.
 */
import type { AssistantMessage, ProviderRequest } from '../providers/types';
import type { TurnConfig } from './turn-config';

/** The words a refusal of deferred loading names it by. */
const NAMES_REFERENCES = /defer_loading|tool_reference|tool search/i;

/** Whether the provider refused the request for its deferred tools (a 400 naming them). */
export function refusedReferences(request: ProviderRequest, reply: AssistantMessage): boolean {
  return (
    !!request.deferredTools?.length &&
    reply.stopReason === 'error' &&
    reply.error?.kind === 'invalid_request' &&
    !reply.content.length &&
    NAMES_REFERENCES.test(reply.error.message)
  );
}

/** `request` without deferred tools: the ones its history loaded join the tool list (results then carry their text). */
export function withLoadedTools(request: ProviderRequest): ProviderRequest {
  const loaded = new Set(request.messages.flatMap((m) => (m.role === 'toolResult' ? (m.toolReferences ?? []) : [])));
  const { deferredTools = [], ...rest } = request;
  return { ...rest, tools: [...request.tools, ...deferredTools.filter((t) => loaded.has(t.name))] };
}

/**
 * When the provider refused deferred loading: the session's deferral goes back to listing activated
 * tools (the loaded ones stay active this turn), the caller hears of it, and the request goes again
 * (`send`). Otherwise `reply` as it is.
 */
export async function withoutRefusedReferences(
  config: TurnConfig,
  request: ProviderRequest,
  reply: AssistantMessage,
  send: (request: ProviderRequest) => Promise<AssistantMessage>,
): Promise<{ request: ProviderRequest; reply: AssistantMessage }> {
  if (!refusedReferences(request, reply)) return { request, reply };
  const again = withLoadedTools(request);
  const policy = config.tools.policy;
  policy.setByReference(false);
  for (const t of again.tools) if (!request.tools.includes(t)) policy.activate(t.name);
  try {
    config.onToolReferencesRefused?.(reply.error?.message ?? '');
  } catch {
    // Remembering the refusal is best effort; the request goes again anyway.
  }
  return { request: again, reply: await send(again) };
}
