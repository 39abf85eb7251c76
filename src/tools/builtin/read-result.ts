import { z } from 'zod';
import { defineTool } from '../define-tool';
import type { ResultPage, ResultPageOptions, ToolExecContext } from '../ports';
import { modelNumber } from '../../common/model-numbers';

/** Default page: with its header it stays under the 4 KiB offload threshold. */
export const READ_RESULT_DEFAULT_LIMIT = 3500;
export const READ_RESULT_MAX_LIMIT = 32_000;
/** A page shorter than this is not worth returning: compaction is asked for instead. */
export const READ_RESULT_MIN_FIT_BYTES = 256;

interface PageRequest {
  ref_id: string;
  offset: number;
  limit: number;
  grep?: string;
}

export const readResultTool = defineTool({
  name: 'read_result',
  description:
    'Read a tool result that was stored instead of shown (its stub gives the ref_id). Without grep, returns `limit` bytes ' +
    'starting at byte `offset`. With grep (a regular expression, case-insensitive), returns matching lines with line numbers; ' +
    'offset then counts matches. Each answer says where the next page starts; a page may be shorter than asked when the ' +
    'context has less room, and then says so.',
  brief: 'Read a stored tool result by ref_id: limit bytes from offset, or the lines matching grep.',
  input: z.object({
    ref_id: z.string().min(1).describe('The ref_id from the stored-result stub'),
    offset: z.number().int().min(0).default(0).describe('Byte offset (or, with grep, index of the first match) to start at'),
    limit: z.number().int().min(1).max(READ_RESULT_MAX_LIMIT).default(READ_RESULT_DEFAULT_LIMIT).describe('Maximum bytes to return'),
    grep: z.string().min(1).optional().describe('Only return lines matching this regular expression'),
  }),
  timeoutMs: 30_000,
  neverOffload: true,
  keepInContext: true,
  async execute(input, ctx) {
    let page = await ctx.results.page(input.ref_id, pageOptions(input), ctx.signal);
    if (!page) {
      return {
        isError: true,
        errorKind: 'not_found',
        content: `No stored result with ref_id="${input.ref_id}". Check the id in the stub; if the result was deleted, run the tool again.`,
      };
    }
    let out = render(input, page);
    const budget = ctx.headroom;
    if (!budget) return out;
    // Size the page to the live headroom: return what fits rather than a page the guard must refuse.
    const remaining = budget.remainingTokens();
    let tokens = budget.resultTokens(out, 'read_result');
    let limit = input.limit;
    for (let attempt = 0; tokens > remaining && attempt < 4; attempt++) {
      const shown = Math.max(1, Buffer.byteLength(page.text, 'utf8'));
      limit = Math.floor(Math.min(limit, shown) * (remaining / tokens) * 0.9);
      if (limit < READ_RESULT_MIN_FIT_BYTES) break;
      page = (await ctx.results.page(input.ref_id, pageOptions({ ...input, limit }), ctx.signal)) ?? page;
      out = render(input, page, { asked: input.limit });
      tokens = budget.resultTokens(out, 'read_result');
    }
    if (tokens > remaining) return noRoom(input, remaining, ctx);
    // A page shorter than the default means the context is nearly full: make room for the next one.
    if (limit < input.limit && limit < READ_RESULT_DEFAULT_LIMIT) budget.requestCompaction();
    return out;
  },
});

/** Only the paging fields: they are posted to the pattern worker. */
function pageOptions({ offset, limit, grep }: PageRequest): ResultPageOptions {
  return grep === undefined ? { offset, limit } : { offset, limit, grep };
}

/** Not even a short page fits: compaction runs before the next request, and the model is told to read on after it. */
function noRoom(input: PageRequest, remaining: number, ctx: ToolExecContext): string {
  ctx.headroom?.requestCompaction();
  const where = input.grep !== undefined ? `offset=${input.offset} grep=${JSON.stringify(input.grep)}` : `offset=${input.offset}`;
  return (
    `[ref_id="${input.ref_id}": the context has room for only about ${modelNumber(remaining)} more tokens, too little for a page. ` +
    `A compaction is scheduled before your next request; then call read_result again with ${where}.]`
  );
}

function render(input: PageRequest, page: ResultPage, shortened?: { asked: number }): string {
  const { ref_id, grep } = input;
  const from = page.toolName ? ` from "${page.toolName}"` : '';
  const total = modelNumber(page.totalBytes);
  const fit = shortened ? `; shortened to fit the remaining context (asked for ${modelNumber(shortened.asked)} bytes)` : '';
  if (grep !== undefined) {
    const count = page.totalMatches ?? 0;
    if (count === 0) return `[ref_id="${ref_id}"${from}, ${total} bytes: no line matches /${grep}/]`;
    const shown = page.text === '' ? 0 : page.text.split('\n').length;
    const next = page.nextOffset !== undefined ? `[more matches: offset=${page.nextOffset}]` : '[no more matches]';
    const range = shown ? `matches ${page.offset + 1}-${page.offset + shown}` : `no matches from offset ${page.offset}`;
    return `[ref_id="${ref_id}"${from}: ${range} of ${count} for /${grep}/${fit}]\n${page.text}\n${next}`;
  }
  const end = page.offset + Buffer.byteLength(page.text, 'utf8');
  const left = shortened && page.nextOffset !== undefined ? `, ${modelNumber(page.totalBytes - end)} bytes left` : '';
  const next = page.nextOffset !== undefined ? `[more: offset=${page.nextOffset}${left ? `${left}` : ''}]` : '[end of result]';
  return `[ref_id="${ref_id}"${from}: bytes ${page.offset}-${end} of ${total}${fit}]\n${page.text}\n${next}`;
}
