/** The plain text of a neutral message, for people (the chat, the compaction view). Pure; never throws. */
import type { AssistantMessage, ToolCallPart, UserMessage } from './types';

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

/**
 * What a call acted on, in one line: its path, command or query when there is one (the tool card's
 * summary, and what a stored result was in "what left the context").
 */
export function toolSummary(call: Pick<ToolCallPart, 'arguments' | 'rawArguments'>): string {
  const a = call.arguments ?? {};
  for (const key of ['path', 'command', 'query', 'pattern', 'refId', 'url']) {
    const v = a[key];
    if (typeof v === 'string' && v) return oneLine(v, 120);
  }
  const first = Object.values(a).find((v) => typeof v === 'string');
  return typeof first === 'string' ? oneLine(first, 120) : '';
}

function oneLine(s: string, max: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
