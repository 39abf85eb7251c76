/**
 * A prompt the person sent: its text, the chips of its @-mentions (a file chip opens the file), and an
 * Edit button that only the last prompt shows while no turn runs (`prompt-edit.ts` marks it).
 */
import type { ChatItemOf } from '../src/protocol/messages';
import { userImages } from './attachments';
import { h } from './dom';
import { chip } from './mentions';
import { send } from './vscode-api';

export function userBubble(item: ChatItemOf<'user'>): HTMLElement {
  const edit = h(
    'button',
    {
      class: 'hr-link hr-edit',
      'aria-label': 'Edit and resend this message',
      title: 'Edit and resend (↑ in an empty box does the same)',
      'data-testid': 'edit-prompt',
      'data-edit': item.id,
    },
    'Edit',
  );
  const open = (path: string, line?: number) => send({ type: 'mention/open', path, ...(line ? { line } : {}) });
  return h(
    'article',
    { class: 'hr-msg hr-user', 'aria-label': 'You' },
    userImages(item.images),
    h('div', { class: 'hr-user-head' }, h('div', { class: 'hr-user-text' }, item.text), edit),
    item.mentions?.length
      ? h('div', { class: 'hr-user-mentions', 'data-testid': 'user-mentions' }, ...item.mentions.map((c) => chip(c, open)))
      : null,
  );
}
