/**
 * A compaction card's receipt: "Receipt: kept 23/25 paths, 11/11 commands, 4/5 errors", then the
 * items the context no longer carries, each with Pin (pinned text is carried in every request from
 * then on). The first few missing items show at once; the rest open under "N more missing".
 */
import type { ReceiptView } from '../src/protocol/messages';
import { h } from './dom';
import { send } from './vscode-api';

/** Missing items shown without opening anything. */
const SHOWN = 5;

const KIND: Record<ReceiptView['missing'][number]['kind'], string> = {
  instructions: 'instruction',
  errors: 'error',
  commands: 'command',
  paths: 'path',
  decisions: 'decision',
  numbers: 'number',
};

export function receiptView(cardId: string, receipt: ReceiptView, expanded: boolean, onToggle: (open: boolean) => void): HTMLElement {
  const missingCount = receipt.missing.length + receipt.more;
  const items = receipt.missing.map((m, index) => missingItem(cardId, m, index));
  const rest = items.slice(SHOWN);
  const restList = rest.length || receipt.more ? h('ul', { class: 'hr-receipt-missing' }, ...rest) : null;
  if (restList && receipt.more) restList.append(h('li', { class: 'hr-muted' }, `… and ${receipt.more} more, not named`));
  const more = restList
    ? h(
        'details',
        { class: 'hr-card-section', open: expanded },
        h('summary', {}, `${missingCount - Math.min(SHOWN, items.length)} more missing`),
        restList,
      )
    : null;
  more?.addEventListener('toggle', () => onToggle(more.open));
  return h(
    'div',
    { class: 'hr-receipt', 'data-testid': 'compaction-receipt' },
    h(
      'div',
      { class: 'hr-receipt-line' },
      h('span', { class: 'hr-label-inline' }, 'Receipt: '),
      receipt.line,
      missingCount ? ` — ${missingCount} missing` : ' — nothing missing',
    ),
    items.length ? h('ul', { class: 'hr-receipt-missing', 'aria-label': 'Missing from the context' }, ...items.slice(0, SHOWN)) : null,
    more,
  );
}

function missingItem(cardId: string, m: ReceiptView['missing'][number], index: number): HTMLElement {
  const pin = h(
    'button',
    {
      class: 'hr-link hr-receipt-pin',
      disabled: m.pinned === true,
      'data-action': 'pin-receipt',
      'aria-label': m.pinned ? `Pinned: ${m.text}` : `Pin ${KIND[m.kind]} ${m.text} back into the context`,
      title: m.pinned ? 'Pinned: carried verbatim in every request' : 'Pin it: carried verbatim in every request from now on',
    },
    m.pinned ? 'Pinned ✓' : 'Pin',
  );
  if (!m.pinned) pin.addEventListener('click', () => send({ type: 'receipt/pin', id: cardId, index }));
  return h('li', {}, h('span', { class: 'hr-receipt-kind' }, KIND[m.kind]), ' ', h('code', {}, m.text), ' ', pin);
}
