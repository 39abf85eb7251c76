/**
 * The repeat guard: before a tool call runs, the work ledger says whether it is work already done —
 * after a compaction a model that lost track re-runs a finished command, re-applies an edit or
 * re-opens a finished plan step. Four rules, each answering with what happened before instead of
 * doing it again:
 *   - a command that last ran with exit 0, when no file of the workspace changed since (the digest of
 *     `tools/file-versions.ts` after it ran equals the digest now) — unless the call says `rerun` or the
 *     user's prompt of this turn names the command;
 *   - an edit the ledger applied last to a file that has not changed since, or one whose new text is in
 *     the file while its old text no longer is (already applied);
 *   - a write of exactly the content the file has, when the ledger wrote it;
 *   - plan steps sent as open that were done (they stay done; `reopen` opens them on purpose).
 * The answer's first line is the short note the panel shows on the tool card (`repeatNote`); the rest
 * tells the model where the earlier result is and how to do it anyway. Pure; never throws.
 */
import { createHash } from 'node:crypto';
import { stepKey } from './ledger-plan';
import { ledgerEntry, type LedgerPlanItem, type LedgerState } from './work-ledger';

/** Every answer of the guard starts with one of these: a command not run again, or work found done. */
const NOT_RUN = 'Not run again: ';
const DONE = 'Already done: ';

/** The first line of a guard's answer (the tool card's note), or undefined for any other result. */
export function repeatNote(text: string): string | undefined {
  if (!text.startsWith(NOT_RUN) && !text.startsWith(DONE)) return undefined;
  return text.includes('\n') ? text.slice(0, text.indexOf('\n')) : text;
}

/** A short content hash (hex) for the ledger. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}

/** The identity of one edit (`edit_file` with these arguments). */
export function editKey(path: string, oldText: string, newText: string): string {
  return createHash('sha256')
    .update(`${ledgerPath(path)}\0${oldText}\0${newText}`, 'utf8')
    .digest('hex')
    .slice(0, 32);
}

/** A path as the ledger compares it: forward slashes, no leading "./". */
export function ledgerPath(path: string): string {
  return ledgerEntry(path.replace(/\\/g, '/').replace(/^(\.\/)+/, ''));
}

export interface CommandCall {
  command: string;
  cwd?: string;
  /** Why it must run again although nothing changed (the model says so, e.g. because the user asked). */
  rerun?: string;
}

/** The guard's answer for a command that needs no second run, or undefined to run it. */
export function repeatedCommand(state: LedgerState, call: CommandCall, now: { digest?: string; prompt?: string }): string | undefined {
  if (call.rerun?.trim() || !now.digest) return undefined;
  const command = ledgerEntry(call.command);
  const cwd = ledgerEntry(call.cwd?.trim() || '.');
  const last = [...state.commands].reverse().find((c) => c.command === command && c.cwd === cwd);
  if (!last || last.exitCode !== 0 || last.state !== now.digest) return undefined;
  // The user asked for exactly this command in this turn: that is their call to make.
  if (now.prompt?.includes(call.command.trim())) return undefined;
  const where = cwd === '.' ? '' : ` (in ${cwd})`;
  const output = last.refId
    ? `Its output is stored as ${last.refId}: read_result ref_id="${last.refId}" shows it.`
    : 'Its output is in the conversation history: search_history finds it.';
  return [
    `${NOT_RUN}\`${command}\` already ran at turn ${last.turn} with exit 0${where}, and no file in the workspace changed since.`,
    output,
    'If it must run again anyway (the user asked for it, or something changed that Headroom cannot see, such as a server or the network), call run_command again with rerun set to the reason.',
  ].join('\n');
}

export interface EditCall {
  path: string;
  old_text: string;
  new_text: string;
}

/** The guard's answer for an edit already applied, or undefined to apply it. `current`: the file now. */
export function repeatedEdit(state: LedgerState, call: EditCall, current: string): string | undefined {
  const path = ledgerPath(call.path);
  const entry = state.files.find((f) => ledgerPath(f.path) === path);
  if (entry?.editKey === editKey(path, call.old_text, call.new_text) && entry.contentHash === contentHash(current)) {
    return `${DONE}this edit to ${path} was applied at turn ${entry.changedTurn ?? entry.turn}, and the file has not changed since.\nNothing to do; read_file shows the file as it is.`;
  }
  const crlf = current.includes('\r\n');
  const has = (text: string) => current.includes(text) || (crlf && current.includes(text.replace(/\r?\n/g, '\r\n')));
  if (!call.new_text.trim() || has(call.old_text) || occurrences(current, call.new_text, crlf) !== 1) return undefined;
  return `${DONE}${path} already contains this edit's new text and no longer contains its old text: it is applied.\nNothing to do; read_file shows the file as it is.`;
}

function occurrences(text: string, needle: string, crlf: boolean): number {
  const n = crlf && !needle.includes('\r\n') ? needle.replace(/\n/g, '\r\n') : needle;
  let count = 0;
  for (let i = text.indexOf(n); i >= 0 && count < 2; i = text.indexOf(n, i + n.length)) count++;
  return count;
}

/** The guard's answer for writing the content a file already has (written by this session), or undefined. */
export function repeatedWrite(
  state: LedgerState,
  call: { path: string; content: string },
  current: string | undefined,
): string | undefined {
  if (current === undefined || current !== call.content) return undefined;
  const path = ledgerPath(call.path);
  const entry = state.files.find((f) => ledgerPath(f.path) === path && f.changedTurn !== undefined);
  if (!entry) return undefined;
  return `${DONE}${path} already has exactly this content (written at turn ${entry.changedTurn}); nothing was written.`;
}

/**
 * The guard's answer for a plan that re-opens done steps: the plan is saved with them kept done (the
 * ledger applies the same rule, `mergePlan`), and the answer says which and when they were done.
 */
export function repeatedSteps(state: LedgerState, items: readonly LedgerPlanItem[], reopen: readonly string[] = []): string | undefined {
  const done = new Map(state.plan.filter((i) => i.status === 'done').map((i) => [stepKey(i.text), i]));
  const reopened = new Set(reopen.map(stepKey));
  const kept = items.filter((i) => i.status !== 'done' && done.has(stepKey(i.text)) && !reopened.has(stepKey(i.text)));
  if (!kept.length) return undefined;
  const named = kept.map((i) => {
    const turn = done.get(stepKey(i.text))?.doneTurn;
    return `"${ledgerEntry(i.text)}"${turn !== undefined ? ` (done at turn ${turn})` : ''}`;
  });
  const count = items.length;
  return [
    `${DONE}${kept.length === 1 ? 'a plan step' : `${kept.length} plan steps`} sent as open ${kept.length === 1 ? 'was' : 'were'} finished before and stay done: ${named.join(', ')}.`,
    `The plan of ${count} step(s) is saved with ${kept.length === 1 ? 'it' : 'them'} done. To work on a finished step again on purpose, send the plan again and list the step in reopen.`,
  ].join('\n');
}
