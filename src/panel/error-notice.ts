/**
 * The error block: one per failure, worded for people, with the next step as buttons. The one home
 * for "which failure offers which action". Pure (no vscode); never throws.
 */
import type { ErrorKind } from '../common/errors';
import type { ChatItemOf, NoticeAction } from '../protocol/view-models';

interface Advice {
  /** The headline; the provider's own message follows it as detail. */
  title: string;
  actions: NoticeAction[];
}

const ADVICE: Partial<Record<ErrorKind, Advice>> = {
  auth: { title: 'The provider did not accept the API key.', actions: ['setApiKey', 'retry'] },
  network: { title: 'Headroom could not reach the model server.', actions: ['retry', 'openSettings'] },
  rate_limit: { title: 'The provider is limiting requests right now.', actions: ['retry'] },
  overloaded: { title: 'The provider is overloaded right now.', actions: ['retry'] },
  not_found: { title: 'The provider does not know this model or address.', actions: ['selectModel', 'openSettings', 'retry'] },
  invalid_request: { title: 'The provider rejected the request.', actions: ['retry', 'openSettings'] },
  context_overflow: { title: 'The conversation is too large for the model, even after compaction.', actions: ['retry'] },
  storage: { title: 'Headroom could not save the conversation.', actions: ['showLog'] },
  invalid_setting: { title: 'A Headroom setting is not valid.', actions: ['openSettings'] },
};
const FALLBACK: Advice = { title: 'The model request failed.', actions: ['retry', 'showLog'] };

/**
 * The error block for a failure of this kind. `retryable`: a turn failed, so [Retry] can run it again;
 * otherwise (a failure outside a turn's request) the block offers no Retry.
 */
export function errorNotice(id: string, kind: ErrorKind, message: string, retryable = false): ChatItemOf<'notice'> {
  const advice = ADVICE[kind] ?? FALLBACK;
  const actions = advice.actions.filter((a) => a !== 'retry' || retryable);
  const item: ChatItemOf<'notice'> = { kind: 'notice', id, level: 'error', title: advice.title, text: message };
  if (actions.length) item.actions = actions;
  if (kind === 'network') item.unreachable = true;
  return item;
}
