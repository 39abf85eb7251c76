/**
 * The compaction part of the chat: the "Compacting…" row with Cancel, the card in plain words with
 * its receipt (what the context still carries of what left it), View summary, What left the context and Undo, the divider above which nothing is in the model's
 * context, and the summary card a compacted context starts with (never a user bubble).
 */
import type { ChatItemOf, CompactionDetails, ContextLine } from '../src/protocol/messages';
import { h } from './dom';
import { renderMarkdown } from './markdown';
import { receiptView } from './receipt-view';
import { send } from './vscode-api';

/** Expanded state of the cards' sections, shared with the tool cards (survives re-renders). */
export interface Expansion {
  expanded: ReadonlySet<string>;
  onToggle(id: string, open: boolean): void;
}

export function compactingRow(item: ChatItemOf<'compacting'>): HTMLElement {
  const cancel = h('button', { class: 'hr-secondary', 'data-action': 'cancel-compaction' }, 'Cancel');
  cancel.addEventListener('click', () => send({ type: 'compaction/cancel' }));
  return h(
    'div',
    { class: 'hr-compacting', role: 'status', 'data-testid': 'compacting' },
    h('span', { class: 'hr-spinner', 'aria-hidden': 'true' }),
    h('span', { class: 'hr-compacting-text' }, item.text),
    cancel,
  );
}

export function compactionCard(item: ChatItemOf<'compaction'>, ctx: Expansion): HTMLElement {
  const undo = h(
    'button',
    {
      class: 'hr-secondary',
      'data-action': 'undo-compaction',
      disabled: !item.canUndo,
      title: item.undone
        ? 'This compaction was undone'
        : item.canUndo
          ? 'Put the context back as it was before this compaction'
          : 'Only the newest compaction can be undone, when no turn runs and the session is stored',
    },
    item.undone ? 'Undone' : 'Undo',
  );
  undo.addEventListener('click', () => send({ type: 'compaction/undo' }));
  return h(
    'section',
    { class: `hr-compaction${item.undone ? ' hr-compaction-undone' : ''}`, 'aria-label': 'Compaction', 'data-testid': 'compaction' },
    h('div', { class: 'hr-compaction-head' }, h('span', { class: 'hr-compaction-text' }, item.text), undo),
    item.kept ? h('div', { class: 'hr-compaction-kept', 'data-testid': 'compaction-kept' }, item.kept) : null,
    item.receipt
      ? receiptView(item.id, item.receipt, ctx.expanded.has(`${item.id}:receipt`), (open) => ctx.onToggle(`${item.id}:receipt`, open))
      : null,
    item.summary
      ? section(`${item.id}:summary`, 'View summary', () => h('div', { class: 'hr-md' }, renderMarkdown(item.summary!)), ctx)
      : null,
    item.details
      ? section(`${item.id}:details`, 'What left the context', () => detailsView(item.details!), ctx, 'compaction-details')
      : null,
  );
}

export function divider(item: ChatItemOf<'divider'>): HTMLElement {
  return h('div', { class: 'hr-divider', role: 'separator', 'aria-label': item.text, 'data-testid': 'divider' }, h('span', {}, item.text));
}

export function summaryCard(item: ChatItemOf<'summary'>, ctx: Expansion): HTMLElement {
  return h(
    'section',
    { class: 'hr-summary', 'aria-label': 'Summary of the earlier conversation', 'data-testid': 'summary' },
    h('div', { class: 'hr-label' }, 'Summary of the earlier conversation'),
    item.text
      ? h('div', { class: 'hr-md' }, renderMarkdown(item.text))
      : h('p', { class: 'hr-muted' }, 'Older turns were dropped without a summary.'),
    item.carried.length
      ? section(
          `${item.id}:carried`,
          `Carried verbatim (${item.carried.length})`,
          () => h('ul', { class: 'hr-lines' }, ...item.carried.map((c) => h('li', {}, c))),
          ctx,
        )
      : null,
  );
}

/** A collapsible part of a card; its content is built when it is first opened. */
function section(key: string, title: string, body: () => HTMLElement, ctx: Expansion, testId?: string): HTMLElement {
  const open = ctx.expanded.has(key);
  const details = h('details', { class: 'hr-card-section', open, 'data-testid': testId }, h('summary', {}, title));
  if (open) details.append(body());
  details.addEventListener('toggle', () => {
    if (details.open && details.children.length === 1) details.append(body());
    ctx.onToggle(key, details.open);
  });
  return details;
}

function detailsView(d: CompactionDetails): HTMLElement {
  return h(
    'div',
    { class: 'hr-compaction-view' },
    part(`Kept verbatim (${d.keptCount})`, lines(d.kept, d.keptCount, 'newest')),
    d.summarizedCount
      ? part(
          `Summarized (${d.summarizedCount})`,
          lines(d.summarized, d.summarizedCount, 'oldest'),
          d.summary
            ? h(
                'details',
                { class: 'hr-card-section' },
                h('summary', {}, 'The summary'),
                h('div', { class: 'hr-md' }, renderMarkdown(d.summary)),
              )
            : null,
        )
      : null,
    d.stored.length
      ? part(
          `Stored out of context (${d.stored.length})`,
          h(
            'ul',
            { class: 'hr-lines' },
            ...d.stored.map((s) => {
              // What the result was (its tool and what the call acted on); the ref id only when nothing else is known.
              const what = [s.toolName, s.target].filter(Boolean).join(' ');
              const label = what ? `Open the stored result of ${what}` : `Open stored result ${s.refId}`;
              const open = h('button', { class: 'hr-link', 'aria-label': label }, 'Open');
              open.addEventListener('click', () => send({ type: 'result/open', refId: s.refId }));
              const name = what ? h('span', { class: 'hr-stored-what' }, what) : h('code', {}, s.refId);
              return h('li', { title: `Stored as ${s.refId}` }, name, ' ', open);
            }),
          ),
        )
      : null,
    d.droppedCount ? part(`Dropped (${d.droppedCount})`, lines(d.dropped, d.droppedCount, 'oldest')) : null,
    h('p', { class: 'hr-muted' }, 'Nothing is deleted: the transcript keeps every message, and search_history finds it.'),
  );
}

function part(title: string, ...body: Array<HTMLElement | null>): HTMLElement {
  return h('div', { class: 'hr-view-part' }, h('div', { class: 'hr-label' }, title), ...body);
}

const ROLE: Record<ContextLine['role'], string> = { user: 'You', assistant: 'Headroom', tool: 'Tool', summary: 'Summary' };

function lines(xs: readonly ContextLine[], total: number, listed: 'newest' | 'oldest'): HTMLElement {
  const more = total - xs.length;
  return h(
    'ul',
    { class: 'hr-lines' },
    ...xs.map((l) => h('li', {}, h('span', { class: 'hr-line-role' }, `${ROLE[l.role]}: `), l.text)),
    more > 0 ? h('li', { class: 'hr-muted' }, `… and ${more} more (the ${listed} are listed)`) : null,
  );
}
