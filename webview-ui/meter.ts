/**
 * The context meter, always at the top and kept to one line so the chat keeps the panel (two in a
 * narrow sidebar): the figure ("2.4k / 23.4k (10 %)") and how far compaction is ("20k to compact"), a
 * thin stacked bar (components and free space across what the model can take, the compact and block
 * markers), Compact, History and a Details disclosure. Hovering or focusing the bar shows each component's
 * tokens; screen readers get the same list. Everything else (how sure the figure is, the cache, where
 * the window comes from, the cost, Clear and the breakdown) opens from Details as a card over the chat,
 * so opening it never takes the chat's room either.
 */
import { formatPercent } from '../src/protocol/format';
import type { MeterView } from '../src/protocol/messages';
import { h } from './dom';

/** How long "freed 117k" stays after a compaction. */
export const FREED_VISIBLE_MS = 60_000;

/** The meter's buttons call these unbound (plain functions, not methods). */
export interface MeterActions {
  compact: () => void;
  clear: () => void;
  toggleHistory: () => void;
}

export function renderMeter(
  m: MeterView | null,
  running: boolean,
  historyOpen: boolean,
  actions: MeterActions,
  now = Date.now(),
): HTMLElement {
  const clear = button('Clear', 'Clear the context (the transcript stays in history)', 'hr-clear', actions.clear, running, 'secondary');
  const buttons = h(
    'div',
    { class: 'hr-meter-actions' },
    button('Compact', 'Compact the context now', 'hr-compact', actions.compact, running),
    button(
      historyOpen ? 'Chat' : 'History',
      historyOpen ? 'Back to the chat' : 'Session history and snapshots',
      'hr-history',
      actions.toggleHistory,
      false,
      'secondary',
    ),
    detailsView(m, clear),
  );
  if (!m) {
    return h(
      'section',
      { class: 'hr-meter', 'aria-label': 'Context usage', 'data-testid': 'meter' },
      h(
        'div',
        { class: 'hr-meter-row' },
        h('span', { class: 'hr-muted', 'data-testid': 'meter-label' }, 'Context: no request yet'),
        buttons,
      ),
    );
  }
  const freed = m.freed && now - m.freed.at < FREED_VISIBLE_MS ? m.freed.label : null;
  const figure = h(
    'div',
    { class: 'hr-meter-facts' },
    h('span', { class: `hr-used hr-status-${m.status}`, 'data-testid': 'meter-label', title: m.shareLabel }, m.usedLabel),
    m.untilCompactLabel ? h('span', { class: 'hr-fact hr-until', 'data-testid': 'meter-until-compact' }, m.untilCompactLabel) : null,
    freed ? h('span', { class: 'hr-fact hr-freed', role: 'status', 'data-testid': 'meter-freed' }, freed) : null,
  );
  return h(
    'section',
    { class: 'hr-meter', 'aria-label': 'Context usage', 'data-testid': 'meter', 'data-status': m.status },
    // One line where the panel is wide enough; in a narrow one the bar and the buttons share the second.
    h('div', { class: 'hr-meter-row' }, figure, h('div', { class: 'hr-meter-wrap' }, bar(m), breakdown(m)), buttons),
    m.pausedReason
      ? h('p', { class: 'hr-paused', role: 'status', 'data-testid': 'meter-paused' }, `Auto-compaction paused: ${m.pausedReason}`)
      : null,
  );
}

function bar(m: MeterView): HTMLElement {
  const el = h('div', {
    class: 'hr-meter-bar',
    role: 'meter',
    tabindex: '0',
    'aria-label': 'Context window',
    'aria-valuemin': '0',
    'aria-valuemax': '100',
    'aria-valuenow': String(m.percent),
    'aria-valuetext': `${m.usedLabel}, ${m.accuracy}`,
    'aria-describedby': 'hr-breakdown',
    'data-testid': 'meter-bar',
  });
  for (const s of m.segments) {
    if (s.fraction <= 0) continue;
    el.append(segment(`hr-seg hr-seg-${s.key}`, s.fraction, s.title, s.key));
  }
  for (const [key, at, label] of [
    ['compact', m.markers.compact, 'Compacts at'],
    ['block', m.markers.block, 'Blocks at'],
  ] as const) {
    if (at <= 0) continue;
    // The threshold as Details names it: both are shares of what the model can take.
    const marker = h('span', {
      class: `hr-marker hr-marker-${key}`,
      title: `${label} ${formatPercent(at)}`,
      'aria-hidden': 'true',
      'data-marker': key,
    });
    marker.style.left = `${Math.min(100, at * 100)}%`;
    el.append(marker);
  }
  return el;
}

function breakdown(m: MeterView): HTMLElement {
  return h(
    'ul',
    { class: 'hr-breakdown', id: 'hr-breakdown', 'aria-label': 'Context breakdown', 'data-testid': 'breakdown' },
    h('li', { 'data-key': 'share' }, m.shareLabel),
    ...m.segments.map((s) =>
      h('li', { 'data-key': s.key }, h('span', { class: `hr-swatch hr-seg-${s.key}`, 'aria-hidden': 'true' }), s.title),
    ),
    h('li', { 'data-key': 'free' }, h('span', { class: 'hr-swatch hr-seg-free', 'aria-hidden': 'true' }), m.free.title),
    h('li', { 'data-key': 'output', class: 'hr-muted' }, m.output.title),
    h('li', { 'data-key': 'accuracy', class: 'hr-muted' }, m.accuracy),
  );
}

/** Whether Details was left open (kept across re-renders of the meter). */
let detailsOpen = false;

/**
 * Details: a native disclosure (Tab to it, Enter or Space; Escape closes it) whose card lies over the
 * chat: how sure the figure is, the cache, the window's source, the cost, Clear, and every row of the
 * breakdown with its share of what the model can take.
 */
function detailsView(m: MeterView | null, clear: HTMLElement): HTMLElement {
  const facts = m
    ? h(
        'p',
        { class: 'hr-meter-card-facts' },
        h('span', { class: 'hr-fact', 'data-testid': 'meter-share' }, m.shareLabel),
        h('span', { class: m.confirmed ? 'hr-fact hr-confirmed' : 'hr-fact', 'data-testid': 'meter-accuracy' }, m.accuracy),
        m.cacheLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-cache' }, m.cacheLabel) : null,
        m.deferredLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-deferred' }, m.deferredLabel) : null,
        m.windowLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-window-source' }, m.windowLabel) : null,
        m.costLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-cost' }, m.costLabel) : null,
      )
    : null;
  const rows = m?.details ?? [];
  const el = h(
    'details',
    { class: 'hr-meter-details', 'data-testid': 'meter-details', open: detailsOpen || undefined },
    h('summary', { 'aria-label': 'Context details: accuracy, cache, window, cost and breakdown' }, 'Details'),
    h(
      'div',
      { class: 'hr-meter-card' },
      facts,
      rows.length ? h('dl', {}, ...rows.flatMap((r) => [h('dt', {}, r.label), h('dd', {}, r.value)])) : null,
      h('div', { class: 'hr-actions' }, clear),
    ),
  );
  el.addEventListener('toggle', () => (detailsOpen = el.open));
  el.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !el.open) return;
    // Closing the card is what this Escape means: not stopping the turn.
    e.preventDefault();
    el.open = false;
    el.querySelector('summary')?.focus();
  });
  return el;
}

function segment(cls: string, fraction: number, title: string, key: string): HTMLElement {
  // Its words are the bar's description (the breakdown list), so the span itself is only seen.
  const el = h('span', { class: cls, title, 'data-key': key });
  el.style.width = `${Math.min(100, fraction * 100)}%`;
  return el;
}

function button(text: string, label: string, id: string, onClick: () => void, disabled: boolean, kind?: 'secondary'): HTMLButtonElement {
  const b = h(
    'button',
    { id, class: kind === 'secondary' ? 'hr-secondary' : undefined, 'aria-label': label, title: label, disabled },
    text,
  );
  b.addEventListener('click', onClick);
  return b;
}
