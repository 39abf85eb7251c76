/**
 * Approval cards: what the panel shows for an edit, a command, a tool call or a secret file's read
 * waiting for the user. The waiting
 * itself belongs to the host's approval broker; the panel only shows the request and sends the
 * answer back (`HostActions.approvals.approve`). Pure (no vscode); never throws.
 */
import { z } from 'zod';
import { ApprovalRequestView } from '../protocol/chat-items';
import type { ChatItemOf } from '../protocol/view-models';
import type { ToolResultMessage } from '../providers/types';
import { lineChanges } from '../common/line-changes';
import { approvalView } from '../tools/approval-record';
import type { ApprovalDecision, ApprovalRequest } from '../tools/ports';

export { lineChanges };

/** The pending card for a request the broker registered under `id`. */
export function approvalItem(id: string, r: ApprovalRequest): ChatItemOf<'approval'> {
  return { kind: 'approval', id, toolCallId: r.toolCallId, toolName: r.toolName, request: approvalView(r), state: 'pending' };
}

/**
 * The settled card of an approval kept with a stored result (`result.approval`, read back as hostile
 * input): the card the user saw when they answered. Undefined when there is none or it is malformed.
 */
export function storedApprovalItem(
  id: string,
  result: Pick<ToolResultMessage, 'toolCallId' | 'toolName' | 'approval'>,
): ChatItemOf<'approval'> | undefined {
  const kept = StoredApproval.safeParse(result.approval);
  if (!kept.success) return undefined;
  const item: ChatItemOf<'approval'> = {
    kind: 'approval',
    id,
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    request: kept.data.request,
    state: 'pending',
  };
  return settledApproval(item, kept.data.decision);
}

const StoredApproval = z.object({
  request: ApprovalRequestView,
  decision: z.union([
    z.object({ approved: z.literal(true), forSession: z.boolean().optional() }),
    z.object({ approved: z.literal(false), reason: z.string().optional() }),
  ]),
});

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
