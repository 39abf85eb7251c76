/** The plain text of a neutral message, for people (the chat, the compaction view). Pure; never throws. */
import type { AssistantMessage, UserMessage } from './types';

/** A user message's text; its images as "[image]" (the compaction view), or left out (the chat bubble shows them). */
export function userText(m: UserMessage, images: 'marker' | 'omit' = 'marker'): string {
  return m.content.map((p) => (p.type === 'text' ? p.text : images === 'marker' ? '[image]' : '')).join('');
}

export function assistantText(m: AssistantMessage): { text: string; reasoning: string } {
  let text = '';
  let reasoning = '';
  for (const p of m.content) {
    if (p.type === 'text') text += p.text;
    else if (p.type === 'reasoning') reasoning += p.text;
  }
  return { text, reasoning };
}
