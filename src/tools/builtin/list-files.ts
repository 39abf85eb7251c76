import { z } from 'zod';
import { defineTool } from '../define-tool';

export const listFilesTool = defineTool({
  name: 'list_files',
  description:
    'List files in the workspace matching a glob (e.g. "src/**/*.ts"; a glob without "/" such as "*.md" matches at any depth). ' +
    'Files ignored by .gitignore are skipped unless include_ignored is true.',
  brief: 'List workspace files matching a glob.',
  deferWhenSmall: true,
  input: z.object({
    glob: z.string().default('**').describe('Glob relative to the workspace root; default all files'),
    limit: z.number().int().min(1).max(5000).default(500).describe('Maximum number of files to return'),
    include_ignored: z.boolean().default(false).describe('Also list files ignored by .gitignore'),
  }),
  timeoutMs: 60_000,
  async execute({ glob, limit, include_ignored }, ctx) {
    const { files, truncated } = await ctx.workspace.listFiles(glob, { respectGitignore: !include_ignored, limit, signal: ctx.signal });
    if (files.length === 0) return `No files match "${glob}".`;
    const head = truncated
      ? `First ${files.length} files matching "${glob}" (more exist; narrow the glob or raise limit):`
      : `${files.length} file${files.length === 1 ? '' : 's'} matching "${glob}":`;
    return `${head}\n${files.join('\n')}`;
  },
});
