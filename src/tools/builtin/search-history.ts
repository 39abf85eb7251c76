import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import type { HistorySearchPort } from '../ports';

/** `search_history`: one search over everything said and returned in this session, in the context or not. */
export function createSearchHistoryTool(port: HistorySearchPort): Tool {
  return defineTool({
    name: 'search_history',
    description:
      'Search the whole session history, including what compaction removed from the context: user, assistant and tool messages ' +
      'and stored tool output. Returns excerpts with ref ids; read_result ref_id opens one in full.',
    brief: 'Search the whole session history, also what compaction removed.',
    deferWhenSmall: true,
    keepInContext: true,
    input: z.object({
      query: z.string().min(1).max(500).describe('Text to find (case-insensitive; the phrase, else all its words)'),
      role: z.enum(['user', 'assistant', 'tool', 'any']).default('any'),
      from_turn: z.number().int().min(0).optional(),
      to_turn: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(50).default(10),
    }),
    timeoutMs: 30_000,
    async execute({ query, role, from_turn, to_turn, limit }, ctx) {
      const r = await port.search({ query, role, fromTurn: from_turn, toTurn: to_turn, limit }, ctx.signal);
      if (r.total === 0) return `[search_history: nothing matches "${query}"${role !== 'any' ? ` in ${role} messages` : ''}]`;
      const lines = r.hits.map((h) => `- ref_id="${h.ref}" turn ${h.turn}, ${h.toolName ? `${h.toolName} result` : h.role}: ${h.excerpt}`);
      const more = r.total > r.hits.length ? ` (${r.total - r.hits.length} more: narrow the query or the turn range)` : '';
      return [
        `[search_history "${query}": ${r.hits.length} of ${r.total} match(es), newest first${more}]`,
        ...lines,
        'read_result ref_id="…" opens one in full (grep works too).',
      ].join('\n');
    },
  });
}
