import { z } from 'zod';
import { defineTool } from '../define-tool';
import { askApproval, rejectedOutput } from './approval';

function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create a file, or replace the whole content of an existing one. The user reviews a diff and must approve. ' +
    'For changes to part of an existing file prefer edit_file.',
  brief: 'Create a file or replace its whole content; the user approves.',
  deferWhenSmall: true,
  input: z.object({
    path: z.string().min(1).describe('File path relative to the workspace root'),
    content: z.string().describe('The complete new content of the file'),
  }),
  mutates: true,
  requiresApproval: 'edit',
  // Approval waits for a person; the limit only guards against a port that never answers.
  timeoutMs: 60 * 60_000,
  async execute({ path: requested, content }, ctx) {
    // The real target (links resolved, dangling or outside links refused) is what is shown and written.
    const path = await ctx.workspace.resolveWriteTarget(requested);
    const st = await ctx.workspace.stat(path);
    if (st && st.type !== 'file') return { isError: true, content: `"${path}" exists and is not a file; choose another path.` };
    // The old content goes to the diff the user sees, never to the model: a secret may be overwritten.
    const oldContent = st ? await ctx.workspace.readFile(path, { allowSecret: 'any' }) : undefined;
    if (oldContent === content) return `${path} already has exactly this content; nothing was written.`;
    const decision = await askApproval(ctx, {
      kind: 'edit',
      toolName: 'write_file',
      toolCallId: ctx.toolCallId,
      path,
      oldContent,
      newContent: content,
    });
    if (!decision.approved) return rejectedOutput(`writing ${path}`, decision, 'the file was not changed');
    await ctx.workspace.writeFile(path, content);
    const via = path === requested ? '' : ` through the link ${requested}`;
    return `${oldContent === undefined ? 'Created' : 'Overwrote'} ${path}${via} (${countLines(content)} line${countLines(content) === 1 ? '' : 's'}).`;
  },
});
