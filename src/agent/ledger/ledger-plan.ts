/**
 * How the plan changes (the work ledger's rule, one home): a step that was done stays done when the
 * model lists it again as open — after a compaction a model that lost track re-opens finished work —
 * unless it names the step in `reopen`; and the statuses a model states in a markdown checklist of its
 * own words update the plan's steps of the same text. Pure; never throws.
 */
export type PlanStatus = 'open' | 'in_progress' | 'done';

export interface LedgerPlanItem {
  text: string;
  status: PlanStatus;
  /** The turn it was first marked done (kept while it stays done). */
  doneTurn?: number;
}

/** Steps are the same when their text is, ignoring case, spacing and trailing punctuation. */
export function stepKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!;:,]+$/, '')
    .trim();
}

export interface PlanMerge {
  plan: LedgerPlanItem[];
  /** Steps sent as open or in progress that were done, and are kept done. */
  keptDone: LedgerPlanItem[];
}

/** The plan after the model sends `incoming` (its whole list) at `turn`. */
export function mergePlan(
  current: readonly LedgerPlanItem[],
  incoming: readonly LedgerPlanItem[],
  at: { turn: number; reopen: readonly string[] },
): PlanMerge {
  const done = new Map(current.filter((i) => i.status === 'done').map((i) => [stepKey(i.text), i]));
  const reopen = new Set(at.reopen.map(stepKey));
  const keptDone: LedgerPlanItem[] = [];
  const plan = incoming.map((item): LedgerPlanItem => {
    const before = done.get(stepKey(item.text));
    if (item.status === 'done') return { text: item.text, status: 'done', doneTurn: before?.doneTurn ?? at.turn };
    if (!before || reopen.has(stepKey(item.text))) return { text: item.text, status: item.status };
    const kept: LedgerPlanItem = {
      text: item.text,
      status: 'done',
      ...(before.doneTurn !== undefined ? { doneTurn: before.doneTurn } : {}),
    };
    keptDone.push(kept);
    return kept;
  });
  return { plan, keptDone };
}

/**
 * The plan with the statuses of a checklist the model wrote (undefined: nothing to change). Without a
 * plan, a checklist of two steps or more becomes the plan.
 */
export function checklistPlan(
  current: readonly LedgerPlanItem[],
  stated: readonly LedgerPlanItem[],
  turn: number,
): LedgerPlanItem[] | undefined {
  if (!current.length)
    return stated.length >= 2 ? stated.map((i) => ({ ...i, ...(i.status === 'done' ? { doneTurn: turn } : {}) })) : undefined;
  const said = new Map(stated.map((i) => [stepKey(i.text), i.status]));
  let changed = false;
  const next = current.map((item) => {
    const status = said.get(stepKey(item.text));
    if (!status || status === item.status || item.status === 'done') return { ...item };
    changed = true;
    return { text: item.text, status };
  });
  return changed ? next : undefined;
}
