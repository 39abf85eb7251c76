/**
 * How a finished tool call updates the work ledger: which tool touched which file, what a command
 * returned and which files it changed, what failed, what the plan is. Reads the call's arguments and
 * the full result (before any offloading, so a stored command output still gives its exit code), and
 * what the turn's watch saw around the call (`CallFacts`). Pure; never throws.
 */
import type { ToolCallPart, ToolResultMessage } from '../../providers/types';
import type { FileChange } from '../../tools/file-versions';
import { rejectionDecision, userDecision } from '../../tools/builtin/approval';
import { commandExitCode } from '../../tools/builtin/run-command';
import { UpdatePlanInput } from '../../tools/builtin/update-plan';
import { resultText } from '../../tools/tool-result';
import type { LedgerCommand, WorkLedger } from './work-ledger';

/** What the watch saw around one call (`work-watch.ts`). */
export interface CallFacts {
  /** Files the call changed (a command or an external tool), from the walks before and after it. */
  changed?: FileChange[];
  /** The workspace's digest right after it ran. */
  state?: string;
  /** Hash of the file's content after a write or an edit, and the edit's identity. */
  contentHash?: string;
  editKey?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * Records one finished call. `result` is the tool's own result (not the offload stub). Returns the
 * command entry it recorded, if any (its output can then be attached as a ref).
 */
export function observeToolCall(
  ledger: WorkLedger,
  call: ToolCallPart,
  result: ToolResultMessage,
  facts: CallFacts = {},
): LedgerCommand | undefined {
  try {
    return observe(ledger, call, result, facts);
  } catch {
    // The ledger is a record; a surprising call must not break the turn that made it.
    return undefined;
  }
}

function observe(ledger: WorkLedger, call: ToolCallPart, result: ToolResultMessage, facts: CallFacts): LedgerCommand | undefined {
  const args = call.arguments ?? {};
  const text = resultText(result);
  const path = str(args.path);
  // The user said no, or stopped it: a decision of theirs for the ledger to carry, not an error the tool ran into.
  const decided = userDecision(result);
  if (decided === 'rejected') {
    ledger.markDecision(rejectionDecision(text) ?? `Rejected ${call.name}`, 'user');
    return undefined;
  }
  if (decided === 'stopped') {
    const what = str(args.command) ? `\`${str(args.command)}\`` : path;
    ledger.markDecision(`Stopped ${call.name}${what ? ` ${what}` : ''}`, 'user');
    return undefined;
  }
  const written = { contentHash: facts.contentHash, editKey: facts.editKey };
  switch (call.name) {
    case 'read_file':
      if (path && !result.isError) ledger.recordFile(path, 'read');
      break;
    case 'write_file':
      if (path && !result.isError && /^Created /.test(text)) ledger.recordFile(path, 'created', written);
      else if (path && !result.isError && /^Overwrote /.test(text)) ledger.recordFile(path, 'modified', written);
      break;
    case 'edit_file':
      if (path && !result.isError && /^Edited /.test(text)) ledger.recordFile(path, 'modified', written);
      break;
    case 'run_command':
      return observeCommand(ledger, call, result, text, facts);
    case 'update_plan': {
      const parsed = UpdatePlanInput.safeParse(args);
      if (parsed.success && !result.isError) {
        ledger.setPlan(parsed.data.items, parsed.data.reopen);
        for (const d of parsed.data.decisions ?? []) ledger.markDecision(d, 'model');
      }
      break;
    }
    default:
      // Another tool (an extension's or an MCP server's): the files it changed, as the walks saw them.
      recordChanges(ledger, facts.changed, call.name);
  }
  if (result.isError) ledger.recordError(call.name, text);
  return undefined;
}

function observeCommand(
  ledger: WorkLedger,
  call: ToolCallPart,
  result: ToolResultMessage,
  text: string,
  facts: CallFacts,
): LedgerCommand | undefined {
  const command = str(call.arguments?.command);
  const exit = commandExitCode(text);
  recordChanges(ledger, facts.changed, command ? `\`${command}\`` : 'run_command');
  const entry =
    command && exit !== undefined ? ledger.recordCommand(command, exit, str(call.arguments?.cwd) ?? '.', facts.state) : undefined;
  if (result.isError) {
    // The first line of a command's output is its own echo: the error is the first line after it.
    const body = exit !== undefined && text.startsWith('$ ') ? text.slice(text.indexOf('\n') + 1) : text;
    ledger.recordError(call.name, command && exit !== undefined ? `\`${command}\` → ${body}` : body);
  }
  return entry;
}

/** Files changed by a command or a tool that is not a file tool, with what changed them. */
function recordChanges(ledger: WorkLedger, changed: readonly FileChange[] | undefined, via: string): void {
  for (const c of changed ?? []) ledger.recordFile(c.path, c.change, { via });
}
