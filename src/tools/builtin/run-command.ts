import { z } from 'zod';
import { defineTool } from '../define-tool';
import { askApproval, rejectedOutput } from './approval';
import { modelNumber } from '../../common/model-numbers';

const EXIT_LINE = /\n\[exit code (-?\d+|none \(killed\))\]\s*$/;

/**
 * The exit code a `run_command` output reports on its last line: a number, null when the process was
 * killed or timed out, undefined when the output is not a finished command's (not run, stopped, cut off).
 */
export function commandExitCode(output: string): number | null | undefined {
  const m = EXIT_LINE.exec(output);
  if (m) return m[1].startsWith('none') ? null : Number(m[1]);
  return /\n\[timed out after \d+ s; the command was killed\]\s*$/.test(output) ? null : undefined;
}

export const runCommandTool = defineTool({
  name: 'run_command',
  description:
    'Run a shell command in the workspace (the user must approve it). Output (stdout and stderr) is returned when it exits; ' +
    'long output is stored and can be read with read_result. Avoid interactive commands and servers that never exit.',
  brief: 'Run a shell command in the workspace; the user approves.',
  input: z.object({
    command: z.string().min(1).describe('The shell command line'),
    cwd: z.string().optional().describe('Working folder relative to the workspace root; default the root'),
    timeout_seconds: z.number().int().min(1).max(1800).default(120).describe('Kill the command after this many seconds'),
    rerun: z
      .string()
      .max(300)
      .optional()
      .describe('Only when Headroom said the command already ran and nothing changed since: why it must run again anyway'),
  }),
  mutates: true,
  requiresApproval: 'command',
  // Approval time plus the command's own timeout; the command is killed by its own timer first.
  timeoutMs: ({ timeout_seconds }) => 60 * 60_000 + timeout_seconds * 1000,
  async execute({ command, cwd, timeout_seconds }, ctx) {
    await ctx.workspace.resolvePath(cwd ?? '.'); // refuse a cwd outside the workspace before asking anyone
    const decision = await askApproval(ctx, {
      kind: 'command',
      toolName: 'run_command',
      toolCallId: ctx.toolCallId,
      command,
      cwd: cwd ?? '.',
    });
    if (!decision.approved) return rejectedOutput(`the command \`${command}\``, decision, 'it was not run');
    const r = await ctx.workspace.runCommand(command, {
      cwd,
      timeoutMs: timeout_seconds * 1000,
      signal: ctx.signal,
      onOutput: ctx.onOutput,
    });
    const parts = [`$ ${command}`, r.output === '' ? '(no output)' : r.output.replace(/\n$/, '')];
    if (r.droppedBytes > 0) parts.push(`[${modelNumber(r.droppedBytes)} more bytes of output were not kept]`);
    if (r.timedOut) parts.push(`[timed out after ${timeout_seconds} s; the command was killed]`);
    else if (r.aborted) parts.push('[stopped by the user]');
    else parts.push(`[exit code ${r.exitCode ?? 'none (killed)'}]`);
    const isError = r.timedOut || r.aborted || r.exitCode !== 0;
    return { content: parts.join('\n'), isError, ...(r.aborted && !r.timedOut ? { decision: 'stopped' as const } : {}) };
  },
});
