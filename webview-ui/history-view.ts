/**
 * Session history: the sessions (title, date, message count, size) with open / rename / delete, and
 * inside the current session one timeline of its rewind points (checkpoints, compactions, the last
 * clear, saved snapshots), newest first, each saying what restoring it does. A Restore that rewinds
 * the conversation, and Delete, ask for a second click (webviews cannot show confirm dialogs).
 */
import type { HistoryEntry, HistoryView, TimelineEntry } from '../src/protocol/messages';
import { formatCount } from '../src/protocol/format';
import { h } from './dom';
import { send } from './vscode-api';

interface LocalState {
  renaming: string | null;
  confirmDelete: string | null;
  /** The timeline entry whose Restore waits for its confirmation. */
  confirmRestore: string | null;
  /** What the person has typed so far (a refresh re-renders the view and must not wipe it). */
  snapshotName: string;
  renameDraft: string | null;
}

const local: LocalState = { renaming: null, confirmDelete: null, confirmRestore: null, snapshotName: '', renameDraft: null };

export function renderHistory(history: HistoryView | undefined, rerender: () => void): HTMLElement {
  const root = h('section', { class: 'hr-history', 'aria-label': 'Session history', 'data-testid': 'history' });
  root.append(
    h('h2', {}, 'Sessions'),
    h(
      'div',
      { class: 'hr-actions' },
      btn('New session', 'Start a new session', () => send({ type: 'session/new' })),
    ),
  );
  if (!history) {
    root.append(h('p', { class: 'hr-muted', role: 'status' }, 'Loading…'));
    return root;
  }
  root.append(
    history.sessions.length
      ? h(
          'ul',
          { class: 'hr-list', 'aria-label': 'Sessions' },
          ...history.sessions.map((s) => sessionRow(s, rerender, s.current ? timeline(s, history.timeline, rerender) : null)),
        )
      : h('p', { class: 'hr-muted' }, 'No saved sessions yet.'),
  );
  return root;
}

/** The current session's rewind points, newest first, under its row. */
function timeline(s: HistoryEntry, entries: readonly TimelineEntry[], rerender: () => void): HTMLElement {
  const box = h('div', { class: 'hr-timeline', 'data-testid': 'timeline' }, h('h3', {}, 'Rewind points'), saveRow());
  if (!entries.length) {
    box.append(
      h('p', { class: 'hr-muted' }, 'Nothing to go back to yet: each turn that changes files, each compaction and each clear adds one.'),
    );
    return box;
  }
  box.append(h('ol', { class: 'hr-list', 'aria-label': `Rewind points of ${s.title}` }, ...entries.map((e) => timelineRow(e, rerender))));
  return box;
}

/** A rewind point of the person's own: the context now, under a name (a snapshot). */
function saveRow(): HTMLElement {
  const name = h('input', { class: 'hr-text', type: 'text', placeholder: 'Name (optional)', 'aria-label': 'Snapshot name' });
  name.value = local.snapshotName;
  name.addEventListener('input', () => (local.snapshotName = name.value));
  const save = btn('Save this point', 'Save a snapshot of the current context', () => {
    send({ type: 'snapshot/save', name: name.value.trim() || undefined });
    local.snapshotName = '';
    name.value = '';
  });
  name.addEventListener('keydown', (e) => e.key === 'Enter' && save.click());
  return h('div', { class: 'hr-actions' }, name, save);
}

const ACTION_LABEL: Record<NonNullable<TimelineEntry['action']>['type'], string> = {
  'checkpoint/restore': 'Restore',
  'snapshot/restore': 'Restore',
  'compaction/undo': 'Undo',
  'clear/undo': 'Undo',
};

function timelineRow(e: TimelineEntry, rerender: () => void): HTMLElement {
  const confirming = local.confirmRestore === e.id;
  const row = h(
    'li',
    { class: `hr-row hr-point hr-point-${e.kind}`, 'data-id': e.id, 'data-testid': 'rewind-point' },
    h(
      'div',
      { class: 'hr-row-main' },
      h('span', { class: 'hr-point-title' }, e.title),
      h('span', { class: 'hr-muted' }, `${e.date} · ${e.detail}`),
      h('span', { class: e.action ? 'hr-point-restores' : 'hr-muted hr-point-restores' }, e.restores),
    ),
  );
  const action = e.action;
  if (!action) return row;
  // Undo takes back one step and can itself be rewound; a Restore rewinds past later work: it asks first.
  const asks = action.type === 'checkpoint/restore' || action.type === 'snapshot/restore';
  const label = ACTION_LABEL[action.type];
  row.append(
    btn(
      confirming ? `Really ${label.toLowerCase()}?` : label,
      confirming ? `Confirm: ${e.restores}` : `${label}: ${e.title}, ${e.date}`,
      () => {
        if (asks && !confirming) {
          local.confirmRestore = e.id;
          rerender();
          return;
        }
        local.confirmRestore = null;
        send(action);
      },
      confirming ? 'hr-danger' : 'hr-secondary',
      `point:${e.id}`,
    ),
  );
  return row;
}

function sessionRow(s: HistoryEntry, rerender: () => void, inside: HTMLElement | null): HTMLElement {
  const meta = h('span', { class: 'hr-muted' }, `${s.date} · ${formatCount(s.messageCount, 'message')} · ${s.size}`);
  // What the session spent, on a line of its own (its breakdown in the tooltip); nothing when none is recorded.
  const cost = s.cost ? h('span', { class: 'hr-muted', title: s.cost.title, 'data-testid': 'session-cost' }, s.cost.label) : null;
  let title: HTMLElement;
  if (local.renaming === s.id) {
    const input = h('input', { class: 'hr-text', type: 'text', 'aria-label': `New title for ${s.title}` });
    const fresh = local.renameDraft === null;
    input.value = local.renameDraft ?? s.title;
    input.addEventListener('input', () => (local.renameDraft = input.value));
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && input.value.trim()) {
        send({ type: 'session/rename', id: s.id, title: input.value.trim() });
        local.renaming = local.renameDraft = null;
      } else if (e.key === 'Escape') {
        local.renaming = local.renameDraft = null;
        rerender();
      }
    });
    if (fresh) queueMicrotask(() => input.focus());
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
  const row = h(
    'div',
    { class: 'hr-row' },
    h('div', { class: 'hr-row-main' }, title, meta, cost),
    btn(
      'Rename',
      `Rename session ${s.title}`,
      () => {
        local.renaming = s.id;
        local.renameDraft = null;
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
      `delete:${s.id}`,
    ),
  );
  return h('li', { class: 'hr-session', 'data-id': s.id }, row, inside);
}

/** `focus`: a key that stays the same when the label changes (Delete → Really delete?), so focus follows. */
function btn(text: string, label: string, onClick: () => void, cls?: string, focus?: string): HTMLButtonElement {
  const b = h('button', { class: cls, 'aria-label': label, 'data-focus': focus }, text);
  b.addEventListener('click', onClick);
  return b;
}
