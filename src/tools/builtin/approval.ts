/** Asking for approval from inside a tool, and telling the model when the user said no. */
import type { ApprovalDecision, ApprovalRequest, ToolExecContext } from '../ports';
import type { ToolOutput } from '../define-tool';

/** The user's decision; a port that rejects or an aborted turn counts as "not approved". */
export async function askApproval(ctx: ToolExecContext, request: ApprovalRequest): Promise<ApprovalDecision> {
  try {
    return await ctx.approve.request(request, ctx.signal);
  } catch {
    return { approved: false };
  }
}

/** What the model is told when the user rejected `what` ("the edit to src/a.ts", "the command `ls`"). */
export function rejectedText(what: string, decision: ApprovalDecision, unchanged: string): string {
  const reason = !decision.approved && decision.reason?.trim() ? ` The user's reason: "${decision.reason.trim()}".` : '';
  return (
    `The user rejected ${what}; ${unchanged}.${reason} ` +
    'Do not repeat the same request: adjust your approach, or ask the user how to proceed.'
  );
}

const REJECTED = /^The user rejected (.+?); [^.]*\.(?: The user's reason: "(.*)"\.)? Do not repeat/s;

/**
 * The user's decision a rejection result records ("Rejected the command `ls`: use the tests instead"),
 * or undefined when `text` is not one (the work ledger keeps it as a decision, not as an error).
 */
export function rejectionDecision(text: string): string | undefined {
  const m = REJECTED.exec(text);
  return m ? `Rejected ${m[1]}${m[2] ? `: ${m[2]}` : ''}` : undefined;
}

/** The result the model gets when the user rejected `what`. */
export function rejectedOutput(what: string, decision: ApprovalDecision, unchanged: string): ToolOutput {
  return { isError: true, content: rejectedText(what, decision, unchanged) };
}
