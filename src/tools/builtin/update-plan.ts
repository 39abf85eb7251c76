import { z } from 'zod';
import { defineTool } from '../define-tool';

/** One plan item as the model states it. */
export const PlanItemInput = z.object({
  text: z.string().min(1).max(300),
  status: z.enum(['open', 'in_progress', 'done']),
});

/** The input of `update_plan`; the work ledger parses completed calls with the same schema (one home). */
export const UpdatePlanInput = z.object({
  items: z.array(PlanItemInput).max(50).describe('The whole plan in order'),
  decisions: z.array(z.string().min(1).max(300)).max(10).optional().describe('New decisions, one line each with the reason'),
  reopen: z
    .array(z.string().min(1).max(300))
    .max(20)
    .optional()
    .describe(
      'Steps that were done and must be worked on again (listed as open or in_progress in items); without this a done step stays done',
    ),
});
export type UpdatePlanInput = z.output<typeof UpdatePlanInput>;

/**
 * `update_plan`: the model keeps its plan (and marks decisions) in Headroom's work ledger, which is
 * carried verbatim through every compaction. The tool only confirms; the ledger records the call.
 */
export const updatePlanTool = defineTool({
  name: 'update_plan',
  description:
    'Keep your plan: send all steps with their status whenever it changes, and new decisions. They are kept verbatim across compactions.',
  deferWhenSmall: true,
  keepInContext: true,
  input: UpdatePlanInput,
  timeoutMs: 5_000,
  execute({ items, decisions }) {
    const count = (s: string) => items.filter((i) => i.status === s).length;
    const d = decisions?.length ? `, ${decisions.length} decision(s) recorded` : '';
    return Promise.resolve(`Plan saved: ${count('done')} done, ${count('in_progress')} in progress, ${count('open')} open${d}.`);
  },
});
