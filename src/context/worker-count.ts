/**
 * What the token worker answers for one text in one tokenizer family. o200k and cl100k: the exact count,
 * every token of it (`exact-counter.ts`). Claude, whose tokenizer Headroom does not ship: the exact o200k
 * count times the worst ratio of the public legacy Claude tokenizer to o200k seen in the text's class
 * (`CLAUDE_CLASS_FACTORS`), an upper bound that stays proportional to the exact count, so what the
 * provider's usage teaches calibration about a class holds for every text of that class (a tighter
 * figure from the text's composition varies from text to text, and a factor learned on one text then
 * under-counted the next by 10 %). Pure; never throws.
 */
import type { ExactCounter } from './exact-counter';
import type { TextCount } from './message-tokens';
import { claudeBound, type TokenizerFamily } from './models';
import { contentClassOf } from './safe-estimate';
import { composition } from './text-composition';

/** `counter` counts the family's encoding: o200k for `o200k` and `claude`, cl100k for `cl100k`. */
export function countInFamily(text: string, family: TokenizerFamily, counter: ExactCounter): TextCount {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (text.length === 0) return { tokens: 0, family, bytes, source: 'tokenizer', contentClass: 'prose' };
  const c = composition(text);
  const contentClass = contentClassOf(c);
  const exact = counter.count(text);
  const tokens = family === 'claude' ? claudeBound(exact, contentClass) : exact;
  return { tokens, family, bytes, source: 'tokenizer', contentClass };
}
