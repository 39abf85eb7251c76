/**
 * The work ledger as the panel's "Work so far" section: newest entries first, a
 * one-line headline for the closed section, and what rolled up in words. Pure (no vscode); never throws.
 */
import type { LedgerState } from '../agent/ledger';
import type { LedgerView } from '../protocol/view-models';

export function toLedgerView(s: LedgerState): LedgerView {
  const newest = <T extends { turn: number }>(xs: readonly T[]) => [...xs].sort((a, b) => b.turn - a.turn);
  const done = s.plan.filter((p) => p.status === 'done').length + s.rolledUp.doneItems;
  const failed = s.commands.filter((c) => c.exitCode !== 0).length;
  const parts = [
    count(s.files.length + filesRolled(s.rolledUp), 'file'),
    count(s.commands.length + s.rolledUp.commands.ok + s.rolledUp.commands.failed, 'command') + (failed ? ` (${failed} failed)` : ''),
    count(s.errors.length + s.rolledUp.errors, 'error'),
    s.plan.length ? `plan ${done}/${s.plan.length + s.rolledUp.doneItems} done` : '',
  ].filter((p) => p && !p.startsWith('0 '));
  return {
    files: newest(s.files).map(({ path, action, turn }) => ({ path, action, turn })),
    commands: newest(s.commands),
    errors: newest(s.errors),
    plan: s.plan.map((p) => ({ ...p })),
    decisions: s.decisions.map(({ text, by }) => ({ text, by })),
    rolledUp: rolledUp(s.rolledUp),
    headline: parts.join(' · ') || 'Nothing yet',
    empty: !s.files.length && !s.commands.length && !s.errors.length && !s.plan.length && !s.decisions.length,
  };
}

function rolledUp(r: LedgerState['rolledUp']): string | null {
  const files = filesRolled(r);
  const parts = [
    files ? count(files, 'older file entry', 'older file entries') : '',
    r.commands.ok + r.commands.failed ? count(r.commands.ok + r.commands.failed, 'older command') : '',
    r.errors ? count(r.errors, 'older error') : '',
    r.decisions ? count(r.decisions, 'older decision') : '',
    r.doneItems ? count(r.doneItems, 'older finished plan item') : '',
  ].filter(Boolean);
  return parts.length ? `Also ${parts.join(', ')} (counted, not listed).` : null;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function filesRolled(r: LedgerState['rolledUp']): number {
  return r.files.read + r.files.created + r.files.modified + r.files.deleted;
}
