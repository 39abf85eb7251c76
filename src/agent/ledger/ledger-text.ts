/**
 * The ledger as the model sees it: a compact block of one line per entry, carried verbatim in the
 * history message after every compaction. Entries that rolled up are named as counts, with the way to
 * find them (search_history). Every entry goes through `ledgerEntry` again here, because a stored
 * ledger is read back from disk: whatever the state holds, an entry is one line. Pure; never throws.
 */
import { ledgerEntry as e, type LedgerState } from './work-ledger';

export const LEDGER_TITLE = "Work so far (kept by Headroom from the tool calls, not by the summary; turn numbers are this session's)";

const MARK = { done: '[x]', in_progress: '[~]', open: '[ ]' } as const;

/** The block's text, or '' for an empty ledger. */
export function ledgerText(state: LedgerState): string {
  const r = state.rolledUp;
  const out: string[] = [];
  if (state.plan.length || r.doneItems) {
    out.push('Plan ([x] done, [~] in progress, [ ] open):');
    if (r.doneItems) out.push(`(${r.doneItems} earlier step(s) done)`);
    for (const i of state.plan) out.push(`${MARK[i.status]} ${e(i.text)}`);
  }
  if (state.decisions.length || r.decisions) {
    out.push('Decisions:');
    if (r.decisions) out.push(`(${r.decisions} earlier decision(s); search_history finds them)`);
    for (const d of state.decisions) out.push(`- ${e(d.text)} (${d.by}, turn ${d.turn})`);
  }
  const rolledFiles = r.files.read + r.files.created + r.files.modified + r.files.deleted;
  if (state.files.length || rolledFiles) {
    out.push('Files (last action, turn):');
    if (rolledFiles)
      out.push(
        `(${rolledFiles} older file(s): ${r.files.created} created, ${r.files.modified} modified, ${r.files.deleted ? `${r.files.deleted} deleted, ` : ''}${r.files.read} read; search_history finds them)`,
      );
    for (const f of state.files) out.push(`- ${e(f.path)} — ${f.action}${f.via ? ` by ${e(f.via)}` : ''}, turn ${f.turn}`);
  }
  if (state.commands.length || r.commands.ok || r.commands.failed) {
    out.push('Commands (exit code, folder, turn):');
    if (r.commands.ok || r.commands.failed)
      out.push(`(${r.commands.ok + r.commands.failed} older command(s): ${r.commands.ok} exited 0, ${r.commands.failed} failed)`);
    for (const c of state.commands)
      out.push(`- \`${e(c.command)}\` → exit ${c.exitCode ?? 'none (killed)'}, in ${e(c.cwd)}, turn ${c.turn}`);
  }
  if (state.errors.length || r.errors) {
    out.push('Errors seen (tool, first line, turn):');
    if (r.errors) out.push(`(${r.errors} older error(s); search_history finds them)`);
    for (const x of state.errors) out.push(`- ${e(x.tool)}: ${e(x.firstLine)} (turn ${x.turn})`);
  }
  return out.length ? [LEDGER_TITLE, ...out].join('\n') : '';
}
