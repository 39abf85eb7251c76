/**
 * The panel's header below the meter: the session line (title, what is in context and in the
 * transcript, Restricted Mode, where sessions are kept), the model picker's line, and the error
 * banner. Pure rendering: what each shows comes from the snapshot.
 */
import type { ConfigView, SnapshotView } from '../src/protocol/messages';
import { RESTRICTED_BANNER } from '../src/protocol/restricted-mode';
import { h } from './dom';
import { send } from './vscode-api';

/** The session line and, on its own line, the model picker (its window and price must not be cut off by a long title). */
export function sessionLines(s: SnapshotView | undefined): HTMLElement[] {
  if (!s) return [h('div', { class: 'hr-session-line hr-muted', role: 'status' }, 'Connecting to Headroom…')];
  const facts = h(
    'div',
    { class: 'hr-session-line', 'data-testid': 'session-line' },
    h('span', { class: 'hr-session-title', title: s.session.title }, s.session.title),
    h('span', { class: 'hr-muted', 'data-testid': 'session-counts' }, ` · ${sessionCounts(s.session)}`),
    s.trusted ? null : h('span', { class: 'hr-warn', 'data-testid': 'restricted' }, ` · ${RESTRICTED_BANNER}`),
    s.storageNote || s.storageAvailable ? null : h('span', { class: 'hr-warn' }, ' · Open a folder to keep sessions'),
  );
  // Why nothing is saved (another window holds the sessions, a full disk): a sentence to read whole, on its own line.
  const note = s.storageNote
    ? h('p', { class: 'hr-storage-note hr-warn', role: 'status', 'data-testid': 'storage-note' }, s.storageNote)
    : null;
  return [facts, ...(note ? [note] : []), h('div', { class: 'hr-model-line' }, modelButton(s.config))];
}

/**
 * The model picker's button: provider's model, window ("unknown — assumed" for an unknown model), price per
 * million tokens, thinking level and a deprecated or retired model's lifecycle.
 * A native button (keyboard and screen readers); it opens the quick pick of `Headroom: Select Model`.
 */
function modelButton(config: ConfigView): HTMLButtonElement {
  const model = config.model || config.provider;
  const info = config.modelInfo;
  const window = info?.windowAssumed ? `window unknown — assumed ${info.window}` : `${info?.window} window`;
  const facts = info ? [window, info.price, info.thinking ? `thinking ${info.thinking}` : undefined, info.lifecycle].filter(Boolean) : [];
  const b = h(
    'button',
    {
      class: 'hr-link hr-model',
      'data-testid': 'model-picker',
      'aria-label': `Model: ${model}${facts.length ? `, ${facts.join(', ')}` : ''}. Select another model`,
      title: 'Select Model',
    },
    model,
    facts.length ? h('span', { class: 'hr-model-facts' }, ` · ${facts.join(' · ')}`) : null,
  );
  b.addEventListener('click', () => send({ type: 'command/run', command: 'selectModel' }));
  return b;
}

/** "13 in context · 54 in transcript": the context view and the kept transcript are different things. */
function sessionCounts(s: { messageCount: number; transcriptCount?: number }): string {
  const inContext = `${s.messageCount} in context`;
  return s.transcriptCount !== undefined && s.transcriptCount !== s.messageCount
    ? `${inContext} · ${s.transcriptCount} in transcript`
    : inContext;
}

/** The banner for an error the host reported (or the panel's own), with Dismiss. */
export function errorBanner(e: { message: string; detail?: string }, dismiss: () => void): HTMLElement {
  const button = h('button', { class: 'hr-link', 'aria-label': 'Dismiss error' }, 'Dismiss');
  button.addEventListener('click', dismiss);
  return h(
    'div',
    { class: 'hr-error', role: 'alert', 'data-testid': 'error' },
    h('strong', {}, e.message),
    e.detail ? h('div', { class: 'hr-error-detail' }, e.detail) : null,
    button,
  );
}
