/**
 * The chat's "Changes in this turn" cards: the files a turn changed with their
 * line counts, each opening a diff, and Restore checkpoint; after a restore, what it did in words,
 * and the rewound turns taken out of the chat (their prompt goes back to the message box). Pure (no vscode).
 */
import type { RestoreOutcome, TurnChanges } from '../app/checkpoint-actions';
import type { ChatItem, ChatItemOf } from '../protocol/view-models';
import { userItem } from './transcript-items';

export function changesItem(id: string, changes: TurnChanges): ChatItemOf<'changes'> {
  return { kind: 'changes', id, turn: changes.turn, files: changes.files.slice(0, 1000) };
}

/** What a restore did, for the restored card: "2 files restored; kept your changes to a.txt; not restorable: big.log". */
export function restoreNote(outcome: RestoreOutcome): string {
  const n = outcome.restored.length;
  const parts = [`${n} file${n === 1 ? '' : 's'} restored`];
  if (outcome.kept.length) parts.push(`kept your changes to ${outcome.kept.join(', ')}`);
  if (outcome.notRestorable.length) parts.push(`not restorable: ${outcome.notRestorable.map((f) => `${f.path} (${f.reason})`).join(', ')}`);
  return `${parts.join('; ')}.`;
}

/** What the chat does after a restore: the rewound turns' items leave it, a note says what was done, the prompt goes back to the box. */
export interface ChatRewind {
  remove: string[];
  note: ChatItemOf<'notice'>;
  prompt?: { text: string; mentions?: ChatItemOf<'user'>['mentions'] };
}

/**
 * After a restore of turn `outcome.turn` the chat shows each message once, as the model now has them:
 * the rewound turns (from the `rewoundPrompts`-th last prompt shown) leave it, the earlier exchange
 * stays where it is (not repeated under a divider). Undefined when the rewound prompts are not all
 * shown (a page not loaded): the caller shows the session again from the store.
 */
export function rewindChat(items: readonly ChatItem[], outcome: RestoreOutcome, noteId: string): ChatRewind | undefined {
  const prompts = items.flatMap((item, i) => (item.kind === 'user' ? [i] : []));
  const start = outcome.rewoundPrompts > 0 ? prompts.at(-outcome.rewoundPrompts) : undefined;
  if (start === undefined) return undefined;
  const shown = outcome.prompt ? userItem(noteId, outcome.prompt) : undefined;
  const back = shown?.text.trim() ? ' Your prompt is back in the message box.' : '';
  return {
    remove: items.slice(start).map((i) => i.id),
    note: {
      kind: 'notice',
      id: noteId,
      level: 'info',
      title: `Restored to before turn ${outcome.turn} (files and conversation)`,
      text: `${restoreNote(outcome)}${back}`,
    },
    ...(shown?.text.trim() ? { prompt: { text: shown.text, ...(shown.mentions ? { mentions: shown.mentions } : {}) } } : {}),
  };
}
