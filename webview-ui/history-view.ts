/**
 * Session history: sessions (title, date, message count, size) with open / rename / delete, the
 * current session's snapshots with restore, save snapshot, and undo last compaction. Deleting asks
 * for a second click (webviews cannot show confirm dialogs).
 */
import type { HistoryEntry, HistoryView } from '../src/protocol/messages';
import { formatCount } from '../src/protocol/format';
import { h } from './dom';
import { send } from './vscode-api';

interface LocalState {
  renaming: string | null;
  confirmDelete: string | null;
}

const local: LocalState = { renaming: null, confirmDelete: null };

export function renderHistory(history: HistoryView | undefined, rerender: () => void): HTMLElement {
  const root = h('section', { class: 'hr-history', 'aria-label': 'Session history', 'data-testid': 'history' });
  const top = h(
    'div',
    { class: 'hr-actions' },
    btn('New session', 'Start a new session', () => send({ type: 'session/new' })),
    btn(
      'Undo last compaction',
      'Undo last compaction of this session',
      () => send({ type: 'compaction/undo' }),
      'hr-secondary',
      !history?.canUndoCompaction,
    ),
  );
  root.append(h('h2', {}, 'Sessions'), top);
  if (!history) {
    root.append(h('p', { class: 'hr-muted', role: 'status' }, 'Loading…'));
    return root;
  }
  root.append(
    history.sessions.length
      ? h('ul', { class: 'hr-list', 'aria-label': 'Sessions' }, ...history.sessions.map((s) => sessionRow(s, rerender)))
      : h('p', { class: 'hr-muted' }, 'No saved sessions yet.'),
  );
  const name = h('input', { class: 'hr-text', type: 'text', placeholder: 'Snapshot name (optional)', 'aria-label': 'Snapshot name' });
  const save = btn('Save snapshot', 'Save a snapshot of the current context', () =>
    send({ type: 'snapshot/save', name: name.value.trim() || undefined }),
  );
  name.addEventListener('keydown', (e) => e.key === 'Enter' && save.click());
  root.append(
    h('h2', {}, 'Snapshots of this session'),
    h('div', { class: 'hr-actions' }, name, save),
    history.snapshots.length
      ? h(
          'ul',
          { class: 'hr-list', 'aria-label': 'Snapshots' },
          ...history.snapshots.map((s) =>
            h(
              'li',
              { class: 'hr-row', 'data-id': s.id },
              h(
                'div',
                { class: 'hr-row-main' },
                h('span', { class: 'hr-row-title' }, s.label),
                h('span', { class: 'hr-muted' }, `${s.date} · ${formatCount(s.messageCount, 'message')}`),
              ),
              btn(
                'Restore',
                `Restore snapshot ${s.label} from ${s.date}`,
                () => send({ type: 'snapshot/restore', id: s.id }),
                'hr-secondary',
              ),
            ),
          ),
        )
      : h('p', { class: 'hr-muted' }, 'No snapshots yet. Compactions save one automatically.'),
  );
  return root;
}

function sessionRow(s: HistoryEntry, rerender: () => void): HTMLElement {
  const meta = h('span', { class: 'hr-muted' }, `${s.date} · ${formatCount(s.messageCount, 'message')} · ${s.size}`);
  // What the session spent, on a line of its own (its breakdown in the tooltip); nothing when none is recorded.
  const cost = s.cost ? h('span', { class: 'hr-muted', title: s.cost.title, 'data-testid': 'session-cost' }, s.cost.label) : null;
  let title: HTMLElement;
  if (local.renaming === s.id) {
    const input = h('input', { class: 'hr-text', type: 'text', value: s.title, 'aria-label': `New title for ${s.title}` });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && input.value.trim()) {
        send({ type: 'session/rename', id: s.id, title: input.value.trim() });
        local.renaming = null;
      } else if (e.key === 'Escape') {
        local.renaming = null;
        rerender();
      }
    });
    queueMicrotask(() => input.focus());
    title = input;
  } else {
    title = h(
      'button',
      { class: 'hr-link hr-row-title', 'aria-label': `Open session ${s.title}${s.current ? ' (current)' : ''}` },
      s.title,
      s.current ? ' (current)' : '',
    );
    title.addEventListener('click', () => send({ type: 'session/open', id: s.id }));
  }
  const confirming = local.confirmDelete === s.id;
  return h(
    'li',
    { class: 'hr-row', 'data-id': s.id },
    h('div', { class: 'hr-row-main' }, title, meta, cost),
    btn(
      'Rename',
      `Rename session ${s.title}`,
      () => {
        local.renaming = s.id;
        rerender();
      },
      'hr-secondary',
    ),
    btn(
      confirming ? 'Really delete?' : 'Delete',
      confirming ? `Confirm deleting session ${s.title}` : `Delete session ${s.title}`,
      () => {
        if (confirming) {
          local.confirmDelete = null;
          send({ type: 'session/delete', id: s.id });
        } else {
          local.confirmDelete = s.id;
          rerender();
        }
      },
      confirming ? 'hr-danger' : 'hr-secondary',
    ),
  );
}

function btn(text: string, label: string, onClick: () => void, cls?: string, disabled = false): HTMLButtonElement {
  const b = h('button', { class: cls, 'aria-label': label, disabled }, text);
  b.addEventListener('click', onClick);
  return b;
}
