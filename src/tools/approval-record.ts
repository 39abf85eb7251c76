/**
 * What an approval looked like to the user, in one shape for the live card and the one a reopened
 * session shows: the request as the card words it (an edit by its line counts) and the answer. The
 * agent keeps it with the call's result (`recordingApprovals`), the panel builds both cards from it.
 * Pure; never throws.
 */
import { lineChanges } from '../common/line-changes';
import type { ToolApproval } from '../providers/types';
import type { ApprovalDecision, ApprovalPort, ApprovalRequest } from './ports';

/** The request as its card shows it. */
export function approvalView(r: ApprovalRequest): ToolApproval['request'] {
  if (r.kind === 'edit')
    return { kind: 'edit', path: r.path, isNew: r.oldContent === undefined, ...lineChanges(r.oldContent, r.newContent) };
  if (r.kind === 'command') return { kind: 'command', command: r.command, cwd: r.cwd };
  if (r.kind === 'secret') return { kind: 'secret', path: r.path, target: r.target, reason: r.reason };
  return { kind: 'tool', origin: r.origin, input: r.input };
}

/** The decision as it is kept (nothing but what the card says). */
function keptDecision(d: ApprovalDecision): ToolApproval['decision'] {
  if (!d.approved) return d.reason !== undefined ? { approved: false, reason: d.reason } : { approved: false };
  return d.forSession ? { approved: true, forSession: true } : { approved: true };
}

/**
 * `port`, noting every request the user was asked about (not those allowed without asking) with its
 * answer; `asked()` returns the last one (a call asks at most once; the last answer is the one that counted).
 */
export function recordingApprovals(port: ApprovalPort): ApprovalPort & { asked(): ToolApproval | undefined } {
  let last: ToolApproval | undefined;
  return {
    async request(request, signal) {
      const decision = await port.request(request, signal);
      if (!(decision.approved && decision.automatic)) last = { request: approvalView(request), decision: keptDecision(decision) };
      return decision;
    },
    asked: () => last,
  };
}
