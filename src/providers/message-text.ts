/** The plain text of a neutral message, for people (the chat, the compaction view). Pure; never throws. */
import type { AssistantMessage, UserMessage } from './types';

/**
 * A user message's text; its images as "[image]" (the compaction view), or left out (the chat bubble
 * shows them). With @-mentions, the text parts after the prompt's own are their attached blocks: left
 * out (the chips name them).
 */
export function userText(m: UserMessage, images: 'marker' | 'omit' = 'marker'): string {
  let prompt = false;
  return m.content
    .map((p) => {
      if (p.type !== 'text') return images === 'marker' ? '[image]' : '';
      if (prompt && m.mentions?.length) return '';
      prompt = true;
      return p.text;
    })
    .join('');
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
