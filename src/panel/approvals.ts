/**
 * Approval cards: what the panel shows for an edit, a command, a tool call or a secret file's read
 * waiting for the user. The waiting
 * itself belongs to the host's approval broker; the panel only shows the request and sends the
 * answer back (`HostActions.approvals.approve`). Pure (no vscode); never throws.
 */
import type { ChatItemOf } from '../protocol/view-models';
import type { ApprovalDecision, ApprovalRequest } from '../tools/ports';

/** Lines added and removed between two texts (a cheap count for the card; the diff editor shows the rest). */
export function lineChanges(oldText: string | undefined, newText: string): { added: number; removed: number } {
  const before = lines(oldText ?? '');
  const after = lines(newText);
  const counts = new Map<string, number>();
  for (const l of before) counts.set(l, (counts.get(l) ?? 0) + 1);
  let kept = 0;
  for (const l of after) {
    const c = counts.get(l) ?? 0;
    if (c > 0) {
      kept++;
      counts.set(l, c - 1);
    }
  }
  return { added: after.length - kept, removed: before.length - kept };
}

/** A trailing newline ends the last line; it does not start another. */
function lines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** The pending card for a request the broker registered under `id`. */
export function approvalItem(id: string, r: ApprovalRequest): ChatItemOf<'approval'> {
  const request: ChatItemOf<'approval'>['request'] =
    r.kind === 'edit'
      ? { kind: 'edit', path: r.path, isNew: r.oldContent === undefined, ...lineChanges(r.oldContent, r.newContent) }
      : r.kind === 'command'
        ? { kind: 'command', command: r.command, cwd: r.cwd }
        : r.kind === 'secret'
          ? { kind: 'secret', path: r.path, target: r.target, reason: r.reason }
          : { kind: 'tool', origin: r.origin, input: r.input };
  return { kind: 'approval', id, toolCallId: r.toolCallId, toolName: r.toolName, request, state: 'pending' };
}

/** The card after the decision: approved (saying when for the whole session), rejected (with the reason), or cancelled (the turn stopped). */
export function settledApproval(item: ChatItemOf<'approval'>, decision: ApprovalDecision, cancelled = false): ChatItemOf<'approval'> {
  if (decision.approved)
    return decision.forSession
      ? {
          ...item,
          state: 'approved',
          note:
            item.request.kind === 'edit'
              ? `Allowed for this session: ${item.toolName} edits.`
              : item.request.kind === 'secret'
                ? 'Allowed for this session: reading this file.'
                : 'Allowed for this session: this exact command.',
        }
      : { ...item, state: 'approved' };
  const next: ChatItemOf<'approval'> = { ...item, state: cancelled ? 'cancelled' : 'rejected' };
  if (decision.reason) next.note = decision.reason;
  return next;
}
