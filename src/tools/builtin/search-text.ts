import { z } from 'zod';
import { defineTool } from '../define-tool';

export const searchTextTool = defineTool({
  name: 'search_text',
  description:
    'Search file contents in the workspace with a regular expression (ripgrep syntax; an invalid regex is searched literally). ' +
    'Respects .gitignore. Returns path:line: text for each matching line.',
  brief: 'Search workspace files with a regular expression; returns path:line: text.',
  input: z.object({
    pattern: z.string().min(1).describe('Regular expression to search for'),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**"'),
    max_results: z.number().int().min(1).max(1000).default(100).describe('Maximum number of matching lines'),
    case_sensitive: z.boolean().default(false),
  }),
  timeoutMs: 60_000,
  async execute({ pattern, glob, max_results, case_sensitive }, ctx) {
    const { matches, truncated } = await ctx.workspace.searchText(pattern, {
      glob,
      maxResults: max_results,
      caseSensitive: case_sensitive,
      signal: ctx.signal,
    });
    const where = glob ? ` in "${glob}"` : '';
    if (matches.length === 0) return `No matches for /${pattern}/${where}.`;
    const head = truncated
      ? `First ${matches.length} matches for /${pattern}/${where} (more exist; refine the pattern or glob):`
      : `${matches.length} match${matches.length === 1 ? '' : 'es'} for /${pattern}/${where}:`;
    return `${head}\n${matches.map((m) => `${m.path}:${m.line}: ${m.text}`).join('\n')}`;
  },
});
