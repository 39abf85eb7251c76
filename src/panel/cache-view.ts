/**
 * The prompt cache in the meter's details: the last request's read / written / uncached tokens, and
 * the caches this session missed, each with its reason and what it cost. Words only; the figures come
 * from `context/cache-truth.ts` through the spend recorder.
 */
import type { SpendState } from '../agent/spend-recorder';
import { lifetimeText } from '../context/cache-lifetime';
import type { CacheMissReason } from '../context/cache-truth';
import { formatCount, formatRelativeDate, formatTokens, formatUsd } from '../protocol/format';

const MISS_REASONS: Readonly<Record<CacheMissReason, string>> = {
  expired: 'the cache expired (idle longer than its lifetime)',
  model: 'the model changed',
  tools: 'the tool definitions changed',
  system: 'the system prompt changed',
  thinking: 'the thinking setting changed',
  tool_choice: 'the tool choice changed',
  cleared: "the provider's context editing cleared old tool results (the prompt changed from the first one cleared)",
  prefix: 'earlier messages changed (a compaction or an edit)',
  lookback: 'more than 20 blocks were added at once (the provider looks back 20 blocks for a cached prefix)',
  unexplained: 'nothing Headroom sent changed (the provider dropped it)',
};

/** How many misses the details list one by one (the newest); the total counts them all. */
const LISTED = 10;

export function cacheDetails(cost: SpendState | undefined): Array<{ label: string; value: string }> {
  if (!cost?.lastCache) return [];
  const c = cost.lastCache;
  const rows = [
    {
      label: 'Cache (last request)',
      value: `${formatTokens(c.read)} read · ${formatTokens(c.write)} written · ${formatTokens(c.uncached)} uncached input tokens${c.read + c.write > 0 ? ` · ${lifetimeText(c.lifetime)}` : ''}`,
    },
  ];
  const misses = cost.misses ?? [];
  const priced = misses.filter((m) => m.dollars !== undefined);
  const dollars = priced.reduce((s, m) => s + (m.dollars ?? 0), 0);
  rows.push({
    label: 'Cache misses',
    value: misses.length
      ? `${formatCount(misses.length, 'miss', 'misses')} this session, ${formatTokens(misses.reduce((s, m) => s + m.missedTokens, 0))} tokens not read${priced.length ? `, ${formatUsd(dollars)} more` : ''}`
      : 'none this session',
  });
  for (const m of misses.slice(-LISTED).reverse())
    rows.push({
      label: `Miss ${formatRelativeDate(m.at)}`,
      value: `${MISS_REASONS[m.reason]}: ${formatTokens(m.missedTokens)} tokens not read from the cache${m.dollars !== undefined ? ` (${formatUsd(m.dollars)} more)` : ''}`,
    });
  return rows;
}
