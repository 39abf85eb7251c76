/**
 * A reply as it may stay in the conversation. A reply cut off by `max_tokens` while the model was
 * still thinking ends in thinking, and the providers refuse such a message on every later request:
 * Anthropic answers "The final block in an assistant message cannot be `thinking`"
 * (https://platform.claude.com/docs/en/build-with-claude/extended-thinking), OpenAI refuses a reasoning
 * item without the item it leads to (https://developers.openai.com/api/docs/guides/reasoning). The
 * thinking that led nowhere is left out; everything else is kept. A tool call of a cut-off reply gets
 * its "not run" result from the loop, so no call is ever stored without its result. Pure; never throws.
 */
import type { AssistantMessage } from '../providers/types';

export function storableReply(reply: AssistantMessage): AssistantMessage {
  let end = reply.content.length;
  while (end > 0 && reply.content[end - 1].type === 'reasoning') end--;
  return end === reply.content.length ? reply : { ...reply, content: reply.content.slice(0, end) };
}
