/**
 * One element per chat item: user and assistant messages (sanitized markdown), collapsible tool
 * cards, approval cards, notices with a retry countdown, and the compaction items (compaction-views.ts). Text is never parsed
 * as HTML except through the markdown sanitizer.
 */
import { formatBytes, formatCount, formatDuration } from '../src/protocol/format';
import type { ChatItem, ChatItemOf, NoticeAction } from '../src/protocol/messages';
import { changesCard } from './changes-view';
import { compactingRow, compactionCard, divider, summaryCard } from './compaction-views';
import { h } from './dom';
import { renderMarkdown } from './markdown';
import { userBubble } from './user-bubble';
import { send } from './vscode-api';

export interface ItemContext {
  expanded: ReadonlySet<string>;
  onToggle(id: string, open: boolean): void;
  /** The configured model server address, for an error block that could not reach it. */
  baseUrl(): string | undefined;
  /** Shown under the empty state's words (the example prompts). */
  examples?: HTMLElement;
}

const builders: { [K in ChatItem['kind']]: (item: ChatItemOf<K>, ctx: ItemContext) => HTMLElement } = {
  user: (item) => userBubble(item),
  assistant: (item) => {
    const body = h('div', { class: 'hr-md' }, renderMarkdown(item.text));
    return h(
      'article',
      { class: 'hr-msg hr-assistant', 'aria-label': 'Headroom', 'aria-busy': item.streaming ? 'true' : undefined },
      item.reasoning
        ? h('details', { class: 'hr-reasoning' }, h('summary', {}, 'Reasoning'), h('div', { class: 'hr-pre' }, item.reasoning))
        : null,
      body,
      item.streaming && !item.text ? h('span', { class: 'hr-muted hr-typing' }, 'Thinking…') : null,
      item.stopNote ? h('p', { class: 'hr-stop-note' }, item.stopNote) : null,
    );
  },
  tool: (item, ctx) => {
    const details = h(
      'details',
      { class: `hr-tool hr-tool-${item.status}`, open: ctx.expanded.has(item.id), 'data-testid': 'tool-card' },
      h(
        'summary',
        {},
        // The visible words are the accessible name (WCAG 2.5.3); "Tool" is said, not shown.
        h('span', { class: 'hr-sr-only' }, 'Tool '),
        h('span', { class: 'hr-tool-status', 'aria-hidden': 'true' }, STATUS_ICON[item.status]),
        h('span', { class: 'hr-tool-name' }, item.name),
        item.summary ? h('span', { class: 'hr-tool-summary' }, item.summary) : null,
        item.refId ? h('span', { class: 'hr-badge', title: 'The full result is stored and kept out of the context' }, 'stored') : null,
        h(
          'span',
          { class: 'hr-tool-meta' },
          STATUS_TEXT[item.status],
          item.durationMs !== undefined ? ` · ${formatDuration(item.durationMs)}` : '',
        ),
      ),
      item.args
        ? h('div', { class: 'hr-tool-section' }, h('div', { class: 'hr-label' }, 'Arguments'), h('pre', { class: 'hr-pre' }, item.args))
        : null,
      item.output
        ? h(
            'div',
            { class: 'hr-tool-section' },
            h('div', { class: 'hr-label' }, item.status === 'running' ? 'Output' : 'Result'),
            h('pre', { class: 'hr-pre' }, item.output),
          )
        : null,
      item.refId ? storedLine(item) : null,
    );
    details.addEventListener('toggle', () => ctx.onToggle(item.id, details.open));
    // Work found done already: said under the card, so it reads without opening it.
    return item.note ? h('div', {}, details, h('p', { class: 'hr-tool-note', 'data-testid': 'tool-note' }, item.note)) : details;
  },
  approval: (item) => {
    const r = item.request;
    const what =
      r.kind === 'edit'
        ? h(
            'div',
            {},
            h('strong', {}, r.isNew ? 'Create ' : 'Edit '),
            h('code', {}, r.path),
            h('span', { class: 'hr-muted' }, ` +${r.added} −${r.removed} lines`),
          )
        : r.kind === 'command'
          ? h(
              'div',
              {},
              h('strong', {}, 'Run '),
              h('code', {}, r.command),
              h('span', { class: 'hr-muted' }, r.cwd && r.cwd !== '.' ? ` in ${r.cwd}` : ' in the workspace folder'),
            )
          : r.kind === 'secret'
            ? h(
                'div',
                {},
                h('strong', {}, 'Read '),
                h('code', {}, r.path),
                h('span', { class: 'hr-muted' }, ` — ${r.reason}. Its content would be sent to the model.`),
              )
            : h(
                'div',
                {},
                h('strong', {}, 'Call '),
                h('code', {}, item.toolName),
                h('span', { class: 'hr-muted' }, ` from ${r.origin}`),
                h('pre', {}, h('code', {}, r.input)),
              );
    const noun = r.kind === 'edit' ? 'the edit' : r.kind === 'command' ? 'the command' : r.kind === 'secret' ? 'the read' : 'the tool call';
    const pending = item.state === 'pending';
    const reason = h('input', {
      class: 'hr-text hr-reject-reason',
      type: 'text',
      'aria-label': 'Reason for rejecting (sent to the model)',
      placeholder: 'Reason (optional, sent to the model)',
    });
    const reject = () => {
      const why = reason.value.trim();
      send(
        why
          ? { type: 'approval/respond', id: item.id, approved: false, reason: why }
          : { type: 'approval/respond', id: item.id, approved: false },
      );
    };
    reason.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      reject();
    });
    return h(
      'section',
      {
        class: `hr-approval hr-approval-${item.state}`,
        role: 'group',
        'aria-label': `Approval for ${item.toolName}`,
        'data-testid': 'approval',
      },
      what,
      pending
        ? h(
            'div',
            { class: 'hr-actions' },
            action('Approve', `Approve ${noun}`, () => send({ type: 'approval/respond', id: item.id, approved: true })),
            action(
              'Allow for this session',
              r.kind === 'edit'
                ? `Allow for this session: every ${item.toolName} edit`
                : r.kind === 'command'
                  ? `Allow for this session: this exact command`
                  : r.kind === 'secret'
                    ? `Allow for this session: reading ${r.target}`
                    : `Allow for this session: every ${item.toolName} call`,
              () => send({ type: 'approval/respond', id: item.id, approved: true, forSession: true }),
              'hr-secondary',
            ),
            r.kind === 'edit'
              ? action(
                  'View diff',
                  'View diff: the proposed change in a diff editor',
                  () => send({ type: 'approval/diff', id: item.id }),
                  'hr-secondary',
                )
              : null,
            h('span', { class: 'hr-reject' }, reason, action('Reject', `Reject ${noun}`, reject, 'hr-secondary')),
          )
        : h('p', { class: 'hr-muted', role: 'status' }, APPROVAL_TEXT[item.state], item.note ? ` ${item.note}` : ''),
    );
  },
  notice: (item, ctx) =>
    h(
      'div',
      { class: `hr-notice hr-notice-${item.level}`, role: item.level === 'error' ? 'alert' : 'status', 'data-testid': 'notice' },
      item.title ? h('strong', { class: 'hr-notice-title' }, item.title) : null,
      h('span', { class: 'hr-notice-text' }, item.text),
      item.unreachable
        ? h('div', { class: 'hr-notice-url' }, 'Server: ', h('code', {}, ctx.baseUrl() ?? 'the provider’s default address'))
        : null,
      item.retryAt !== undefined
        ? h(
            'span',
            { class: 'hr-retry', 'data-retry-at': String(item.retryAt), 'data-attempt': String(item.attempt ?? 1) },
            retryText(item.retryAt, item.attempt),
          )
        : null,
      item.actions?.length ? h('div', { class: 'hr-actions' }, ...item.actions.map((a, i) => noticeButton(a, i > 0))) : null,
    ),
  compaction: (item, ctx) => compactionCard(item, ctx),
  compacting: (item) => compactingRow(item),
  divider: (item) => divider(item),
  summary: (item, ctx) => summaryCard(item, ctx),
  changes: (item) => changesCard(item),
};

/** An error block's next step: Retry runs the failed turn again (its prompt is not sent twice); the others run the Headroom command of that name. */
function noticeButton(a: NoticeAction, secondary: boolean): HTMLButtonElement {
  const run = a === 'retry' ? () => send({ type: 'prompt/retry' }) : () => send({ type: 'command/run', command: a });
  const b = h('button', { class: secondary ? 'hr-secondary' : undefined, 'data-action': a }, NOTICE_ACTION_LABEL[a]);
  b.addEventListener('click', run);
  return b;
}

/** The visible text is the accessible name (WCAG 2.5.3), so no aria-label. */
const NOTICE_ACTION_LABEL: Record<NoticeAction, string> = {
  retry: 'Retry',
  setApiKey: 'Set API Key…',
  openSettings: 'Settings',
  selectModel: 'Select Model…',
  showLog: 'Show Log',
};

/** "stored · 35.9 KB · 400 lines · kept out of context [Open]": what an offloaded result is and where it went. */
function storedLine(item: ChatItemOf<'tool'>): HTMLElement {
  const size = item.stored ? ` · ${formatBytes(item.stored.bytes)} · ${formatCount(item.stored.lines, 'line')}` : '';
  return h(
    'div',
    { class: 'hr-stored', 'data-testid': 'stored-result' },
    h('span', { class: 'hr-muted' }, `stored${size} · kept out of context `),
    action('Open', `Open the full result of ${item.name} in an editor`, () => send({ type: 'result/open', refId: item.refId! }), 'hr-link'),
  );
}

export function renderItem(item: ChatItem, ctx: ItemContext): HTMLElement {
  const el = (builders[item.kind] as (i: ChatItem, c: ItemContext) => HTMLElement)(item, ctx);
  el.dataset.id = item.id;
  el.classList.add('hr-item');
  return el;
}

/** " Retrying in 4 s (attempt 2)…" — refreshed every second by the chat view. */
export function retryText(retryAt: number, attempt = 1, now = Date.now()): string {
  const s = Math.ceil((retryAt - now) / 1000);
  return s > 0 ? ` Retrying in ${s} s (attempt ${attempt})…` : ` Retrying now (attempt ${attempt})…`;
}

const STATUS_TEXT: Record<ChatItemOf<'tool'>['status'], string> = {
  preparing: 'preparing',
  running: 'running',
  waiting: 'waiting for you',
  done: 'done',
  error: 'failed',
  rejected: 'rejected by you',
  stopped: 'stopped by you',
  cancelled: 'cancelled',
};
const STATUS_ICON: Record<ChatItemOf<'tool'>['status'], string> = {
  preparing: '…',
  running: '⟳',
  waiting: '‖',
  done: '✓',
  error: '✕',
  rejected: '⊘',
  stopped: '■',
  cancelled: '–',
};
const APPROVAL_TEXT: Record<ChatItemOf<'approval'>['state'], string> = {
  pending: '',
  approved: 'Approved.',
  rejected: 'Rejected.',
  cancelled: 'Cancelled.',
};

function action(text: string, label: string, onClick: () => void, cls?: string): HTMLButtonElement {
  const b = h('button', { class: cls, 'aria-label': label }, text);
  b.addEventListener('click', onClick);
  return b;
}
