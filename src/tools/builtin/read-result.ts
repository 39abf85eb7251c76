import { z } from 'zod';
import { defineTool } from '../define-tool';

/** Default page: with its header it stays under the 4 KiB offload threshold. */
export const READ_RESULT_DEFAULT_LIMIT = 3500;
export const READ_RESULT_MAX_LIMIT = 32_000;

export const readResultTool = defineTool({
  name: 'read_result',
  description:
    'Read a tool result that was stored instead of shown (its stub gives the ref_id). Without grep, returns `limit` bytes ' +
    'starting at byte `offset`. With grep (a regular expression, case-insensitive), returns matching lines with line numbers; ' +
    'offset then counts matches. Each answer says where the next page starts.',
  input: z.object({
    ref_id: z.string().min(1).describe('The ref_id from the stored-result stub'),
    offset: z.number().int().min(0).default(0).describe('Byte offset (or, with grep, index of the first match) to start at'),
    limit: z.number().int().min(1).max(READ_RESULT_MAX_LIMIT).default(READ_RESULT_DEFAULT_LIMIT).describe('Maximum bytes to return'),
    grep: z.string().min(1).optional().describe('Only return lines matching this regular expression'),
  }),
  timeoutMs: 30_000,
  async execute({ ref_id, offset, limit, grep }, ctx) {
    const page = await ctx.results.page(ref_id, { offset, limit, grep });
    if (!page) {
      return {
        isError: true,
        errorKind: 'not_found',
        content: `No stored result with ref_id="${ref_id}". Check the id in the stub; if the result was deleted, run the tool again.`,
      };
    }
    const from = page.toolName ? ` from "${page.toolName}"` : '';
    const total = page.totalBytes.toLocaleString('en-US');
    if (grep !== undefined) {
      const count = page.totalMatches ?? 0;
      if (count === 0) return `[ref_id="${ref_id}"${from}, ${total} bytes: no line matches /${grep}/]`;
      const shown = page.text === '' ? 0 : page.text.split('\n').length;
      const next = page.nextOffset !== undefined ? `[more matches: offset=${page.nextOffset}]` : '[no more matches]';
      const range = shown ? `matches ${page.offset + 1}-${page.offset + shown}` : `no matches from offset ${page.offset}`;
      return `[ref_id="${ref_id}"${from}: ${range} of ${count} for /${grep}/]\n${page.text}\n${next}`;
    }
    const end = page.offset + Buffer.byteLength(page.text, 'utf8');
    const next = page.nextOffset !== undefined ? `[more: offset=${page.nextOffset}]` : '[end of result]';
    return `[ref_id="${ref_id}"${from}: bytes ${page.offset}-${end} of ${total}]\n${page.text}\n${next}`;
  },
});
