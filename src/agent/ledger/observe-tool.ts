/**
 * How a finished tool call updates the work ledger: which tool touched which file, what a command
 * returned, what failed, what the plan is. Reads the call's arguments and the full result (before any
 * offloading, so a stored command output still gives its exit code). Pure; never throws.
 */
import type { ToolCallPart, ToolResultMessage } from '../../providers/types';
import { rejectionDecision, userDecision } from '../../tools/builtin/approval';
import { commandExitCode } from '../../tools/builtin/run-command';
import { UpdatePlanInput } from '../../tools/builtin/update-plan';
import { resultText } from '../../tools/tool-result';
import type { WorkLedger } from './work-ledger';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** Records one finished call. `result` is the tool's own result (not the offload stub). */
export function observeToolCall(ledger: WorkLedger, call: ToolCallPart, result: ToolResultMessage): void {
  try {
    observe(ledger, call, result);
  } catch {
    // The ledger is a record; a surprising call must not break the turn that made it.
  }
}

function observe(ledger: WorkLedger, call: ToolCallPart, result: ToolResultMessage): void {
  const args = call.arguments ?? {};
  const text = resultText(result);
  const path = str(args.path);
  // The user said no, or stopped it: a decision of theirs for the ledger to carry, not an error the tool ran into.
  const decided = userDecision(result);
  if (decided === 'rejected') return ledger.markDecision(rejectionDecision(text) ?? `Rejected ${call.name}`, 'user');
  if (decided === 'stopped') {
    const what = str(args.command) ? `\`${str(args.command)}\`` : path;
    return ledger.markDecision(`Stopped ${call.name}${what ? ` ${what}` : ''}`, 'user');
  }
  switch (call.name) {
    case 'read_file':
      if (path && !result.isError) ledger.recordFile(path, 'read');
      break;
    case 'write_file':
      if (path && !result.isError && /^Created /.test(text)) ledger.recordFile(path, 'created');
      else if (path && !result.isError && /^Overwrote /.test(text)) ledger.recordFile(path, 'modified');
      break;
    case 'edit_file':
      if (path && !result.isError && /^Edited /.test(text)) ledger.recordFile(path, 'modified');
      break;
    case 'run_command': {
      const command = str(args.command);
      const exit = commandExitCode(text);
      if (command && exit !== undefined) ledger.recordCommand(command, exit, str(args.cwd) ?? '.');
      if (result.isError) {
        // The first line of a command's output is its own echo: the error is the first line after it.
        const body = exit !== undefined && text.startsWith('$ ') ? text.slice(text.indexOf('\n') + 1) : text;
        ledger.recordError(call.name, command && exit !== undefined ? `\`${command}\` → ${body}` : body);
      }
      return;
    }
    case 'update_plan': {
      const parsed = UpdatePlanInput.safeParse(args);
      if (parsed.success && !result.isError) {
        ledger.setPlan(parsed.data.items);
        for (const d of parsed.data.decisions ?? []) ledger.markDecision(d, 'model');
      }
      break;
    }
  }
  if (result.isError) ledger.recordError(call.name, text);
}
