import { z } from 'zod';
import type { Message } from '../providers/types';

/**
 * A structural check of the neutral `Message` model (src/providers/types.ts) for data crossing into
 * the store: roles, part kinds and the fields the rest of Headroom relies on. Unknown extra fields are
 * kept, so a newer message shape still round-trips.
 */
const Text = z.looseObject({ type: z.literal('text'), text: z.string() });
const Image = z.looseObject({ type: z.literal('image'), mediaType: z.string(), data: z.string() });
const Reasoning = z.looseObject({ type: z.literal('reasoning'), text: z.string() });
const ToolCall = z.looseObject({
  type: z.literal('toolCall'),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
const Usage = z.looseObject({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });

export const MessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.array(z.union([Text, Image])), timestamp: z.number() }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.array(z.union([Text, Reasoning, ToolCall])),
    provider: z.string(),
    model: z.string(),
    usage: Usage,
    stopReason: z.string(),
    timestamp: z.number(),
  }),
  z.looseObject({
    role: z.literal('toolResult'),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.array(z.union([Text, Image])),
    isError: z.boolean(),
    refId: z.string().optional(),
    stored: z.object({ bytes: z.number().nonnegative(), lines: z.number().int().nonnegative() }).optional(),
    decision: z.enum(['rejected', 'stopped']).optional(),
    toolReferences: z.array(z.string().max(256)).max(100).optional(),
    timestamp: z.number(),
  }),
]);

/** Describes why `value` is not a Message, or returns undefined when it is one. Never throws. */
export function messageProblem(value: unknown): string | undefined {
  const r = MessageSchema.safeParse(value);
  if (r.success) return undefined;
  const issue = r.error.issues[0];
  return `${issue.path.join('.') || '(message)'}: ${issue.message}`;
}

/** Narrowing helper for data read back from the store (already validated on the way in). */
export function asMessage(value: unknown): Message {
  return value as Message;
}
