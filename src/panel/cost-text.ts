/**
 * How money is put in words, for the meter and the history view alike (one home). Pure (no vscode);
 * never throws. A session whose requests had no known prices says "cost unknown", never "$0".
 */
import { spendTotal, type SessionSpend } from '../context/cost';
import { formatTokens, formatUsd } from '../protocol/format';

/** "$0.042 this turn · $1.27 session · cache saved $0.31" (null before any request). */
export function meterCostLabel(cost: { turn: number; spend: SessionSpend } | undefined): string | null {
  if (!cost || cost.spend.requests <= 0) return null;
  const total = spendTotal(cost.spend);
  if (total === undefined) return 'cost unknown (no prices for this model)';
  // A resumed session has no turn yet: its total alone.
  const parts = [
    cost.turn > 0 ? `${formatUsd(cost.turn)} this turn` : '',
    `${formatUsd(total)} session${cost.spend.unpriced > 0 ? ' (some requests unpriced)' : ''}`,
  ];
  if (cost.spend.saved > 0) parts.push(`cache saved ${formatUsd(cost.spend.saved)}`);
  return parts.filter(Boolean).join(' · ');
}

/**
 * A session's total for the history list: `label` "$0.42" (or "cost unknown"), `title` the breakdown
 * by kind, the cache savings and the tokens. Null when nothing is recorded (a new or pre-0.2 session).
 */
export function sessionCost(spend: SessionSpend | undefined): { label: string; title: string } | null {
  if (!spend || spend.requests <= 0) return null;
  const t = spend.tokens;
  const tokens = `${formatTokens(t.input + t.cacheRead + t.cacheWrite)} tokens in (${formatTokens(t.cacheRead)} from cache), ${formatTokens(t.output)} out`;
  const requests = `${spend.requests} ${spend.requests === 1 ? 'request' : 'requests'}`;
  const total = spendTotal(spend);
  if (total === undefined) return { label: 'cost unknown', title: `No prices for this model · ${tokens} · ${requests}` };
  const d = spend.dollars;
  const kinds = `input ${formatUsd(d.input)} · output ${formatUsd(d.output)} · cache reads ${formatUsd(d.cacheRead)} · cache writes ${formatUsd(d.cacheWrite)}`;
  const saved = spend.saved > 0 ? ` · cache saved ${formatUsd(spend.saved)}` : '';
  const unpriced = spend.unpriced > 0 ? ` · ${spend.unpriced} unpriced` : '';
  return {
    label: `${formatUsd(total)}${spend.unpriced > 0 ? '+' : ''}`,
    title: `${kinds}${saved} · ${tokens} · ${requests}${unpriced}`,
  };
}
