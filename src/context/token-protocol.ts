/**
 * Messages between the extension host and the token worker. Validated with zod on both sides: the
 * worker is a separate program and a malformed message must not crash either end.
 */
import { z } from 'zod';
import { CONTENT_CLASSES, type ContentClass } from './text-composition';

export const encodingNameSchema = z.enum(['o200k_base', 'cl100k_base']);
const familySchema = z.enum(['o200k', 'cl100k', 'claude']);

/** Host → worker: count these texts in this tokenizer family. */
export const countRequestSchema = z.object({
  type: z.literal('count'),
  id: z.number().int(),
  family: familySchema,
  texts: z.array(z.string()),
});
export type CountRequest = z.infer<typeof countRequestSchema>;

const textCountSchema = z.object({
  tokens: z.number(),
  family: familySchema,
  bytes: z.number(),
  source: z.enum(['tokenizer', 'bytes']),
  contentClass: z.enum(CONTENT_CLASSES as [ContentClass, ...ContentClass[]]).optional(),
});

/** Worker → host. */
export const workerReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), encoding: encodingNameSchema, loadMs: z.number() }),
  z.object({ type: z.literal('counts'), id: z.number().int(), counts: z.array(textCountSchema), ms: z.number() }),
  z.object({ type: z.literal('error'), id: z.number().int().optional(), message: z.string() }),
]);
export type WorkerReply = z.infer<typeof workerReplySchema>;
