/**
 * "Changes in this turn": the files a turn changed (+added −removed lines each), each opening VS Code's
 * diff editor between before the turn and now, and Restore checkpoint, which asks here first (Restore /
 * Cancel, keyboard reachable, Escape cancels) and then puts the files and the conversation back to
 * before the turn. A restored card says what was done.
 */
import type { ChatItemOf } from '../src/protocol/messages';
import { h } from './dom';
import { send } from './vscode-api';

type Changes = ChatItemOf<'changes'>;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function counts(f: Changes['files'][number]): string {
  return f.added === undefined || f.removed === undefined ? '' : `+${f.added} −${f.removed}`;
}

function fileRow(item: Changes, f: Changes['files'][number]): HTMLElement {
  const tags = [f.change === 'created' ? 'new' : '', f.restorable ? '' : 'not restorable'].filter(Boolean).join(', ');
  const spoken = [`Open the diff of ${f.path}`, counts(f) && `${f.added} added, ${f.removed} removed lines`, tags].filter(Boolean);
  const open = h(
    'button',
    {
      class: 'hr-link hr-changes-file',
      'aria-label': spoken.join(', '),
      'data-testid': 'changed-file',
      title: `${f.path}: before this turn ↔ now`,
    },
    h('code', {}, f.path),
  );
  open.addEventListener('click', () => send({ type: 'checkpoint/diff', turn: item.turn, path: f.path }));
  return h(
    'li',
    {},
    open,
    counts(f) ? h('span', { class: 'hr-changes-counts' }, ` ${counts(f)}`) : null,
    tags ? h('span', { class: 'hr-muted' }, ` (${tags})`) : null,
  );
}

export function changesCard(item: Changes): HTMLElement {
  const n = item.files.length;
  const restorable = item.files.filter((f) => f.restorable).length;
  const card = h(
    'section',
    { class: `hr-changes${item.restored ? ' hr-changes-restored' : ''}`, 'aria-label': 'Changes in this turn', 'data-testid': 'changes' },
    h(
      'div',
      { class: 'hr-changes-head' },
      h('strong', {}, 'Changes in this turn'),
      h('span', { class: 'hr-muted' }, ` · ${plural(n, 'file')}`),
    ),
    h('ul', { class: 'hr-changes-files' }, ...item.files.map((f) => fileRow(item, f))),
  );
  if (item.restored) {
    card.append(
      h(
        'p',
        { class: 'hr-muted', role: 'status', 'data-testid': 'changes-restored' },
        item.note ? `Restored: ${item.note}` : 'Rewound: an earlier turn was restored.',
      ),
    );
    return card;
  }
  const restore = h(
    'button',
    {
      class: 'hr-secondary',
      'data-action': 'restore-checkpoint',
      'aria-label': 'Restore checkpoint: files and conversation to before this turn',
    },
    'Restore checkpoint',
  );
  const actions = h('div', { class: 'hr-actions' }, restore);
  const confirmRow = confirm(item, restorable, () => {
    confirmRow.remove();
    card.append(actions);
    restore.focus();
  });
  restore.addEventListener('click', () => {
    actions.remove();
    card.append(confirmRow);
    confirmRow.querySelector<HTMLButtonElement>('[data-action="confirm-restore"]')?.focus();
  });
  card.append(actions);
  return card;
}

function confirm(item: Changes, restorable: number, cancel: () => void): HTMLElement {
  const yes = h('button', { 'data-action': 'confirm-restore' }, 'Restore');
  const no = h('button', { class: 'hr-secondary', 'data-action': 'cancel-restore' }, 'Cancel');
  const skipped = item.files.length - restorable;
  const row = h(
    'div',
    { class: 'hr-changes-confirm', role: 'group', 'aria-label': 'Confirm restore', 'data-testid': 'restore-confirm' },
    h(
      'p',
      {},
      `Put ${plural(restorable, 'file')} back as ${restorable === 1 ? 'it was' : 'they were'} before this turn and rewind the conversation to before it? `,
      skipped ? `${plural(skipped, 'file')} cannot be restored and stay as they are. ` : '',
      'The chat stays visible above a divider.',
    ),
    h('div', { class: 'hr-actions' }, yes, no),
  );
  yes.addEventListener('click', () => {
    yes.disabled = true;
    send({ type: 'checkpoint/restore', turn: item.turn });
  });
  no.addEventListener('click', cancel);
  row.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    e.stopPropagation();
    cancel();
  });
  return row;
}
