import { classifyProviderError } from './errors';
import { TOOL_ERROR_PREFIX } from './openai-convert';
import type { ImagePart, Message, ProviderError, TextPart } from './types';

/**
 * Neutral model ⇄ VS Code Language Model API (`vscode.lm`), as plain data. Pure: `src/platform`
 * turns these into `LanguageModelChatMessage`s and back, nothing else. Lossy by the API's nature:
 * there is no system role (the system prompt is the first user message, as VS Code advises), no
 * reasoning, no images in 1.95 (an image becomes a short note), and the tool-error flag becomes a
 * text prefix.
 */

export type LmPart =
  | { kind: 'text'; text: string }
  | { kind: 'toolCall'; callId: string; name: string; input: Record<string, unknown> }
  | { kind: 'toolResult'; callId: string; text: string };

/** One chat message as the Language Model API takes it. */
export interface LmMessage {
  role: 'user' | 'assistant';
  parts: LmPart[];
}

/** One streamed part of a Language Model API reply, as plain data. */
export type LmStreamPart = { kind: 'text'; text: string } | { kind: 'toolCall'; callId: string; name: string; input: unknown };

function userText(parts: Array<TextPart | ImagePart>): string {
  return parts.map((p) => (p.type === 'text' ? p.text : `[image omitted (${p.mediaType}): this model API takes no images]`)).join('\n');
}

/**
 * Converts the system prompt and neutral messages; tool results of one round share one user message.
 * `note` (the per-request context status) goes last, into the final user message.
 */
export function toLmMessages(system: string, messages: Message[], note?: string): LmMessage[] {
  const out: LmMessage[] = [];
  const push = (role: LmMessage['role'], parts: LmPart[]) => {
    const last = out[out.length - 1];
    // Two user messages in a row (system + prompt, results + a steering note) are one message.
    if (last?.role === role && role === 'user') last.parts.push(...parts);
    else out.push({ role, parts });
  };
  if (system) push('user', [{ kind: 'text', text: system }]);
  for (const m of messages) {
    if (m.role === 'user') {
      push('user', [{ kind: 'text', text: userText(m.content) }]);
    } else if (m.role === 'toolResult') {
      push('user', [{ kind: 'toolResult', callId: m.toolCallId, text: (m.isError ? TOOL_ERROR_PREFIX : '') + userText(m.content) }]);
    } else {
      const parts: LmPart[] = [];
      for (const p of m.content) {
        if (p.type === 'text' && p.text) parts.push({ kind: 'text', text: p.text });
        else if (p.type === 'toolCall') parts.push({ kind: 'toolCall', callId: p.id, name: p.name, input: p.arguments });
      }
      if (parts.length) push('assistant', parts);
    }
  }
  if (note) push('user', [{ kind: 'text', text: note }]);
  return out;
}

/** The text of messages as a whole, for `countTokens` estimates. */
export function lmText(messages: LmMessage[]): string {
  return messages
    .flatMap((m) =>
      m.parts.map((p) => (p.kind === 'text' ? p.text : p.kind === 'toolResult' ? p.text : `${p.name}${JSON.stringify(p.input)}`)),
    )
    .join('\n');
}

function field(v: unknown, key: string): unknown {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

/**
 * Maps what `sendRequest` or its stream throws to a `ProviderError`. `LanguageModelError` codes:
 * NoPermissions (the person has not allowed Headroom to use the model, or withdrew consent),
 * Blocked (quota or rate limit), NotFound (the model is gone); anything else is classified by its
 * message like any provider's (so an overflow worded by the model's provider is still an overflow).
 */
export function lmError(err: unknown): ProviderError {
  const name = field(err, 'name');
  if (name === 'Canceled' || name === 'AbortError') return { kind: 'aborted', message: 'Request aborted.' };
  const code = field(err, 'code');
  const message = typeof field(err, 'message') === 'string' ? (field(err, 'message') as string) : '';
  switch (code) {
    case 'NoPermissions':
      return {
        kind: 'auth',
        message: `Headroom may not use this model${message ? ` (${message})` : ''}. Allow it when VS Code asks, or in the Accounts menu under "Manage Language Model Access".`,
      };
    case 'Blocked':
      return {
        kind: 'rate_limit',
        message: `The model refused the request for now (quota or rate limit)${message ? `: ${message}` : ''}.`,
      };
    case 'NotFound':
      return {
        kind: 'invalid_request',
        message: `The model is no longer available${message ? ` (${message})` : ''}. Pick another with "Headroom: Select Model".`,
      };
  }
  return classifyProviderError(err);
}
