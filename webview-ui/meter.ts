/**
 * The context meter, always at the top: a stacked bar (components, output reservation, free) with
 * the compact and block markers, the figures, and Compact / Clear / History beside it. Hovering or
 * focusing the bar shows each component's tokens; screen readers get the same list.
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
  const buttons = h(
    'div',
    { class: 'hr-meter-actions' },
    button('Compact', 'Compact the context now', 'hr-compact', actions.compact, running),
    button('Clear', 'Clear the context (the transcript stays in history)', 'hr-clear', actions.clear, running, 'secondary'),
    button(
      historyOpen ? 'Chat' : 'History',
      historyOpen ? 'Back to the chat' : 'Session history and snapshots',
      'hr-history',
      actions.toggleHistory,
      false,
      'secondary',
    ),
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
  const bar = h('div', {
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
    bar.append(segment(`hr-seg hr-seg-${s.key}`, s.fraction, s.title, s.key));
  }
  for (const [key, at, label] of [
    ['compact', m.markers.compact, 'Compacts at'],
    ['block', m.markers.block, 'Blocks at'],
  ] as const) {
    if (at <= 0) continue;
    const marker = h('span', {
      class: `hr-marker hr-marker-${key}`,
      title: `${label} ${formatPercent(at)}`,
      'aria-hidden': 'true',
      'data-marker': key,
    });
    marker.style.left = `${Math.min(100, at * 100)}%`;
    bar.append(marker);
  }
  const breakdown = h(
    'ul',
    { class: 'hr-breakdown', id: 'hr-breakdown', 'aria-label': 'Context breakdown', 'data-testid': 'breakdown' },
    ...m.segments.map((s) =>
      h('li', { 'data-key': s.key }, h('span', { class: `hr-swatch hr-seg-${s.key}`, 'aria-hidden': 'true' }), s.title),
    ),
    h('li', { 'data-key': 'output' }, h('span', { class: 'hr-swatch hr-seg-output', 'aria-hidden': 'true' }), m.output.title),
    h('li', { 'data-key': 'free' }, h('span', { class: 'hr-swatch hr-seg-free', 'aria-hidden': 'true' }), m.free.title),
    h('li', { 'data-key': 'accuracy', class: 'hr-muted' }, m.accuracy),
  );
  const freed = m.freed && now - m.freed.at < FREED_VISIBLE_MS ? m.freed.label : null;
  const facts = h(
    'div',
    { class: 'hr-meter-facts' },
    h('span', { class: `hr-used hr-status-${m.status}`, 'data-testid': 'meter-label' }, m.usedLabel),
    m.untilCompactLabel ? h('span', { class: 'hr-fact hr-until', 'data-testid': 'meter-until-compact' }, m.untilCompactLabel) : null,
    h('span', { class: m.confirmed ? 'hr-fact hr-confirmed' : 'hr-fact', 'data-testid': 'meter-accuracy' }, m.accuracy),
    m.cacheLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-cache' }, m.cacheLabel) : null,
    m.deferredLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-deferred' }, m.deferredLabel) : null,
    m.windowLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-window-source' }, m.windowLabel) : null,
    m.costLabel ? h('span', { class: 'hr-fact', 'data-testid': 'meter-cost' }, m.costLabel) : null,
    freed ? h('span', { class: 'hr-fact hr-freed', role: 'status', 'data-testid': 'meter-freed' }, freed) : null,
  );
  return h(
    'section',
    { class: 'hr-meter', 'aria-label': 'Context usage', 'data-testid': 'meter', 'data-status': m.status },
    h('div', { class: 'hr-meter-wrap' }, bar, breakdown),
    h('div', { class: 'hr-meter-row' }, facts, buttons),
    m.pausedReason
      ? h('p', { class: 'hr-paused', role: 'status', 'data-testid': 'meter-paused' }, `Auto-compaction paused: ${m.pausedReason}`)
      : null,
    m.details?.length ? detailsView(m.details, detailsOpen) : null,
  );
}

/** Whether the details view was left open (kept across re-renders of the meter). */
let detailsOpen = false;

/** The meter explained, reachable by keyboard (a native disclosure: Tab to "Details", Enter or Space). */
function detailsView(rows: NonNullable<MeterView['details']>, open: boolean): HTMLElement {
  const el = h(
    'details',
    { class: 'hr-meter-details', 'data-testid': 'meter-details', open: open || undefined },
    h('summary', { 'aria-label': 'Context details: components, thresholds, window and estimate' }, 'Details'),
    h('dl', {}, ...rows.flatMap((r) => [h('dt', {}, r.label), h('dd', {}, r.value)])),
  );
  el.addEventListener('toggle', () => (detailsOpen = el.open));
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
