import { z } from 'zod';
import { HeadroomError } from '../../common/errors';
import { defineTool, type ToolOutput } from '../define-tool';
import type { ToolExecContext } from '../ports';
import { SecretFileError } from '../secret-files';
import { askApproval, rejectedOutput } from './approval';
import { modelNumber } from '../../common/model-numbers';

/** Lines returned when no range is given. */
export const READ_FILE_DEFAULT_LINES = 2000;
const MAX_READ_BYTES = 20 * 1024 * 1024;

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file in the workspace, with line numbers. Give start_line/end_line (1-based, inclusive) to read part of ' +
    `a long file; without them the first ${READ_FILE_DEFAULT_LINES} lines are returned. A file that looks like a secret ` +
    '(.env, keys, credentials) is read only when the user approves.',
  brief: 'Read a workspace file with line numbers; start_line/end_line read part of it.',
  input: z.object({
    path: z.string().min(1).describe('File path relative to the workspace root'),
    start_line: z.number().int().min(1).optional().describe('First line to read (1-based)'),
    end_line: z.number().int().min(1).optional().describe('Last line to read (inclusive)'),
  }),
  timeoutMs: 30_000,
  async execute({ path, start_line, end_line }, ctx) {
    const st = await ctx.workspace.stat(path);
    if (!st) throw new HeadroomError('not_found', `File not found: "${path}". Use list_files or search_text to find the right path.`);
    if (st.type === 'directory')
      return { isError: true, content: `"${path}" is a folder, not a file. Use list_files to see its contents.` };
    if (st.type !== 'file') {
      return {
        isError: true,
        content: `"${path}" is not a regular file (a named pipe, device or socket); it was not opened. Only regular files can be read.`,
      };
    }
    if (st.size > MAX_READ_BYTES) {
      return {
        isError: true,
        content: `"${path}" is ${modelNumber(st.size)} bytes, too large to read. Use search_text to find what you need in it.`,
      };
    }
    if (start_line !== undefined && end_line !== undefined && end_line < start_line) {
      return { isError: true, errorKind: 'invalid_tool_input', content: `end_line (${end_line}) is before start_line (${start_line}).` };
    }
    const read = await readText(path, ctx);
    if (typeof read !== 'string') return read;
    const text = read;
    if (text.slice(0, 8000).includes('\u0000'))
      return `"${path}" is a binary file (${modelNumber(st.size)} bytes); its content is not shown.`;
    if (text === '') return `${path} is empty.`;
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const total = lines.length;
    const start = start_line ?? 1;
    if (start > total) {
      return {
        isError: true,
        errorKind: 'invalid_tool_input',
        content: `start_line ${start} is past the end of ${path}, which has ${total} lines.`,
      };
    }
    const end = Math.min(total, end_line ?? start + READ_FILE_DEFAULT_LINES - 1);
    const width = String(end).length;
    const body = lines
      .slice(start - 1, end)
      .map((line, i) => `${String(start + i).padStart(width)}\t${line.replace(/\r$/, '')}`)
      .join('\n');
    const more = end < total ? ` (more follows: start_line=${end + 1})` : '';
    return `${path} — lines ${start}-${end} of ${total}${more}\n${body}`;
  },
});

/**
 * The file's text. A secret-looking file (by its name or the real file a link leads to) is read only
 * after the user approves that very file; a link changed to another secret meanwhile is refused again.
 */
async function readText(path: string, ctx: ToolExecContext): Promise<string | Exclude<ToolOutput, string>> {
  try {
    return await ctx.workspace.readFile(path, { maxBytes: MAX_READ_BYTES });
  } catch (err) {
    if (!(err instanceof SecretFileError)) throw err;
    const decision = await askApproval(ctx, {
      kind: 'secret',
      toolName: 'read_file',
      toolCallId: ctx.toolCallId,
      path: err.rel,
      target: err.realRel,
      reason: err.reason,
    });
    if (!decision.approved) return rejectedOutput(`reading ${err.rel} (${err.reason})`, decision, 'its content was not read');
    return ctx.workspace.readFile(path, { maxBytes: MAX_READ_BYTES, allowSecret: err.real });
  }
}
