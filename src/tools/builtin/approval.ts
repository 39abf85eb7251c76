/** Asking for approval from inside a tool, and telling the model when the user said no. */
import type { ToolResultMessage, UserDecision } from '../../providers/types';
import { resultText } from '../../providers/tool-result-text';
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

/** The words a stopped call's result says, in every place that stops one ("[stopped by the user]" is run_command's). */
const STOPPED = /(?:was stopped by the user before it (?:ran|finished)\.|\n\[stopped by the user\])$/;

/**
 * Whether a result records a user's decision rather than a failure: its `decision`, or, for results
 * stored before that was kept, the words of a rejection or a stop. Never throws.
 */
export function userDecision(result: ToolResultMessage): UserDecision | undefined {
  if (!result.isError) return undefined;
  if (result.decision === 'rejected' || result.decision === 'stopped') return result.decision;
  const text = resultText(result);
  if (rejectionDecision(text)) return 'rejected';
  return STOPPED.test(text.trimEnd()) ? 'stopped' : undefined;
}

/** The result the model gets when the user rejected `what`. */
export function rejectedOutput(what: string, decision: ApprovalDecision, unchanged: string): ToolOutput {
  return { isError: true, content: rejectedText(what, decision, unchanged), decision: 'rejected' };
}
