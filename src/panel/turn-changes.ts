/**
 * The chat's "Changes in this turn" cards: the files a turn changed with their
 * line counts, each opening a diff, and Restore checkpoint; after a restore, what it did in words
 * and the divider the rewound conversation continues under. Pure (no vscode).
 */
import type { RestoreOutcome, TurnChanges } from '../app/checkpoint-actions';
import type { ChatItem, ChatItemOf } from '../protocol/view-models';
import { DIVIDER_TEXT } from './compaction-card';

export function changesItem(id: string, changes: TurnChanges): ChatItemOf<'changes'> {
  return { kind: 'changes', id, turn: changes.turn, files: changes.files.slice(0, 1000) };
}

/** The divider a conversation rewound to before turn `turn` continues under. */
export function rewindDivider(turn: number): string {
  return `Restored to before turn ${turn} (files and conversation) · ${DIVIDER_TEXT}`;
}

/** What a restore did, for the restored card: "2 files restored; kept your changes to a.txt; not restorable: big.log". */
export function restoreNote(outcome: RestoreOutcome): string {
  const n = outcome.restored.length;
  const parts = [`${n} file${n === 1 ? '' : 's'} restored`];
  if (outcome.kept.length) parts.push(`kept your changes to ${outcome.kept.join(', ')}`);
  if (outcome.notRestorable.length) parts.push(`not restorable: ${outcome.notRestorable.map((f) => `${f.path} (${f.reason})`).join(', ')}`);
  return `${parts.join('; ')}.`;
}

/**
 * The cards a restore of turn `outcome.turn` touches: its own says what was done; later turns' cards
 * can no longer be restored (their turns left the conversation too).
 */
export function restoredCards(items: readonly ChatItem[], outcome: RestoreOutcome): ChatItemOf<'changes'>[] {
  return items.flatMap((item) => {
    if (item.kind !== 'changes' || item.turn < outcome.turn || item.restored) return [];
    return [item.turn === outcome.turn ? { ...item, restored: true, note: restoreNote(outcome) } : { ...item, restored: true }];
  });
}
