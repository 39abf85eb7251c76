import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import type { CompactPort } from '../ports';
import { modelNumber } from '../../common/model-numbers';

/** `compact_context`: the model asks for a compaction when it sees the context filling up. */
export function createCompactContextTool(port: CompactPort): Tool {
  return defineTool({
    name: 'compact_context',
    description:
      'Compact the conversation to free context space: old tool results are cleared (still readable with read_result) and ' +
      'older turns summarized. Use it when told the context is filling up, before starting a large new step.',
    brief: 'Compact the conversation to free context space.',
    deferWhenSmall: true,
    input: z.object({
      focus: z.string().optional().describe('What the summary should keep in particular'),
    }),
    timeoutMs: 5 * 60_000,
    async execute({ focus }, ctx) {
      const r = await port.compact({ focus }, ctx.signal);
      const freed = Math.max(0, r.beforeTokens - r.afterTokens);
      const how = r.strategies.length ? ` (${r.strategies.join(', ')})` : '';
      const note = r.note ? ` ${r.note}` : '';
      // A scheduled compaction has not freed anything yet: say so rather than "0 freed".
      if (r.note && r.strategies.length === 0 && r.beforeTokens === r.afterTokens)
        return `Compaction scheduled at ${modelNumber(r.beforeTokens)} tokens.${note}`;
      return `Context compacted${how}: ${modelNumber(r.beforeTokens)} → ${modelNumber(r.afterTokens)} tokens, ${modelNumber(freed)} freed.${note}`;
    },
  });
}
