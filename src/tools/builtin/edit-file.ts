import { z } from 'zod';
import { defineTool } from '../define-tool';
import { askApproval, rejectedOutput } from './approval';

/** Start offsets of the non-overlapping occurrences of `needle` in `text`. */
export function findOccurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Lines whose trimmed text equals the first non-blank line of `needle`, trimmed: a hint after a miss. */
function looseHints(text: string, needle: string): number[] {
  const first = needle
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!first) return [];
  const hits: number[] = [];
  text.split('\n').forEach((l, i) => {
    if (hits.length < 5 && l.trim() === first) hits.push(i + 1);
  });
  return hits;
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace one exact piece of text in an existing file. old_text must match the file exactly (whitespace and indentation ' +
    'included) and occur exactly once; include enough surrounding lines to make it unique. The user reviews a diff and must approve.',
  brief: 'Replace old_text (exact, occurring once) with new_text in a file; the user approves.',
  input: z.object({
    path: z.string().min(1).describe('File path relative to the workspace root'),
    old_text: z.string().min(1).describe('Exact text to replace; must occur exactly once in the file'),
    new_text: z.string().describe('Text to put in its place'),
  }),
  mutates: true,
  requiresApproval: 'edit',
  timeoutMs: 60 * 60_000,
  async execute({ path: requested, old_text, new_text }, ctx) {
    const st = await ctx.workspace.stat(requested);
    if (!st) return { isError: true, content: `File not found: "${requested}". To create a new file use write_file.` };
    if (st.type !== 'file') return { isError: true, content: `"${requested}" is not a file.` };
    // The real target (links resolved, dangling or outside links refused) is what is shown and written.
    const path = await ctx.workspace.resolveWriteTarget(requested);
    // The old content goes to the diff the user sees, never to the model: a secret may be edited.
    const oldContent = await ctx.workspace.readFile(path, { allowSecret: 'any' });
    let search = old_text;
    let replacement = new_text;
    // Models write \n; keep a CRLF file CRLF.
    if (oldContent.includes('\r\n') && !old_text.includes('\r\n')) {
      search = old_text.replace(/\n/g, '\r\n');
      replacement = new_text.replace(/\r?\n/g, '\r\n');
    }
    if (search === replacement)
      return { isError: true, errorKind: 'invalid_tool_input', content: 'old_text and new_text are identical; nothing to change.' };
    const at = findOccurrences(oldContent, search);
    if (at.length === 0) {
      const hints = looseHints(oldContent, old_text);
      const hint = hints.length
        ? ` Its first line appears with different whitespace or different following lines at line ${hints.join(', ')}.`
        : '';
      return {
        isError: true,
        content:
          `old_text was not found in ${path}; the file was not changed.${hint} old_text must match the file exactly, ` +
          'including whitespace and indentation: read_file the lines you want to change and copy them.',
      };
    }
    if (at.length > 1) {
      const lines = at.slice(0, 10).map((o) => lineAt(oldContent, o));
      return {
        isError: true,
        content:
          `old_text matches ${at.length} places in ${path} (lines ${lines.join(', ')}${at.length > 10 ? ', …' : ''}); the file was not changed. ` +
          'Include more surrounding lines in old_text so that it matches exactly one place.',
      };
    }
    const newContent = oldContent.slice(0, at[0]) + replacement + oldContent.slice(at[0] + search.length);
    const decision = await askApproval(ctx, {
      kind: 'edit',
      toolName: 'edit_file',
      toolCallId: ctx.toolCallId,
      path,
      oldContent,
      newContent,
    });
    if (!decision.approved) return rejectedOutput(`the edit to ${path}`, decision, 'the file was not changed');
    await ctx.workspace.applyEdit(path, newContent);
    const first = lineAt(oldContent, at[0]);
    const removed = search.split('\n').length;
    const added = replacement.split('\n').length;
    return `Edited ${path}: replaced ${removed} line${removed === 1 ? '' : 's'} at line ${first} with ${added} line${added === 1 ? '' : 's'}.`;
  },
});
