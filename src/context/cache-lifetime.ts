/**
 * How long the prompt cache should keep what a request writes, and what that costs. Anthropic writes
 * for 5 minutes by default or for 1 hour on request, and a 1-hour write costs 2× the base input price
 * against 1.25× for 5 minutes; a read costs 0.1× either way and refreshes the entry
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#1-hour-cache-duration,
 * https://platform.claude.com/docs/en/build-with-claude/prompt-caching#pricing). OpenAI keeps a prefix
 * in memory (cleared after 5–10 minutes idle) or, with `prompt_cache_retention: "24h"`, for up to 24
 * hours at the same price, on the models that offer it; gpt-5.5 and later take only `24h`
 * (https://developers.openai.com/api/docs/guides/prompt-caching#prompt-cache-retention). Pure.
 */
import type { ProviderId } from '../common/provider-catalogue';

/** The prices a lifetime's cost needs (dollars per million tokens; the model table's `price` is one). */
export interface CachePrices {
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

import type { CacheLifetime } from '../providers/types';

export type { CacheLifetime } from '../providers/types';
/** `headroom.cacheLifetime`: a lifetime, or `auto` (chosen per turn from the session's idle gaps). */
export type CacheLifetimeSetting = 'auto' | CacheLifetime;
export const CACHE_LIFETIME_SETTINGS: readonly CacheLifetimeSetting[] = ['auto', '5m', '1h', '24h'];

export const LIFETIME_MS: Readonly<Record<CacheLifetime, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000, '24h': 24 * 60 * 60_000 };

/** Anthropic's price of a cache write, as a multiple of the base input price, by lifetime. */
export const ANTHROPIC_WRITE_MULTIPLIER: Readonly<Record<'5m' | '1h', number>> = { '5m': 1.25, '1h': 2 };

/** OpenAI models whose prompt cache can be kept 24 hours, and those that take nothing else. */
const OPENAI_EXTENDED = /^(?:.*\/)?(?:gpt-5|gpt-4\.1)/i;
const OPENAI_ONLY_EXTENDED = /^(?:.*\/)?gpt-5\.(?:[5-9]|\d\d)/i;

/**
 * The lifetimes a request to this model may ask for, shortest first; empty when the provider takes no
 * lifetime (local servers, the editor's models: nothing is sent).
 */
export function lifetimesOffered(provider: ProviderId, model: string): CacheLifetime[] {
  if (provider === 'anthropic') return ['5m', '1h'];
  if (provider !== 'openai') return [];
  if (OPENAI_ONLY_EXTENDED.test(model)) return ['24h'];
  return OPENAI_EXTENDED.test(model) ? ['5m', '24h'] : ['5m'];
}

/** Dollars per million tokens written to the cache for `lifetime` (the input price when writing costs nothing extra). */
export function writePriceFor(lifetime: CacheLifetime, provider: ProviderId, prices: CachePrices): number {
  const input = Math.max(0, prices.input);
  if (provider === 'anthropic' && lifetime === '1h') return input * ANTHROPIC_WRITE_MULTIPLIER['1h'];
  return Math.max(input, prices.cacheWrite ?? 0);
}

/** One earlier request of the session, as the cache saw it. */
export interface CacheRequestRecord {
  /** When it was sent (epoch ms). */
  at: number;
  read: number;
  write: number;
}

/**
 * The lifetime the next requests ask for. A fixed setting is used where the model offers it (else
 * the provider's default: undefined). `auto` compares, per request, what each offered lifetime is
 * expected to cost over the session's history: a gap longer than the lifetime rewrites the whole
 * cached prefix at that lifetime's write price instead of reading it, and every request writes its
 * new tokens at that price. The longer lifetime is chosen only when strictly cheaper, so a session
 * without idle gaps (or without history) keeps the provider's default.
 */
export function chooseCacheLifetime(
  setting: CacheLifetimeSetting,
  offered: readonly CacheLifetime[],
  history: readonly CacheRequestRecord[],
  provider: ProviderId,
  prices: CachePrices | undefined,
): CacheLifetime | undefined {
  if (offered.length === 0) return undefined;
  if (setting !== 'auto') return offered.includes(setting) ? setting : undefined;
  // A model that takes one lifetime only: ask for it (sending nothing else is refused).
  if (offered.length === 1) return offered[0] === '5m' ? undefined : offered[0];
  if (!prices || history.length < 2) return undefined;
  const gaps = history.slice(1).map((r, i) => r.at - history[i].at);
  const last = history[history.length - 1];
  const cached = Math.max(0, last.read) + Math.max(0, last.write);
  const written = history.slice(1).filter((_, i) => gaps[i] <= LIFETIME_MS[offered[0]]);
  const newTokens = written.length ? written.reduce((s, r) => s + Math.max(0, r.write), 0) / written.length : 0;
  const read = Math.max(0, prices.cacheRead ?? 0);
  const costPerRequest = (l: CacheLifetime) => {
    const w = writePriceFor(l, provider, prices);
    const missRate = gaps.filter((g) => g > LIFETIME_MS[l]).length / gaps.length;
    return missRate * cached * (w - read) + newTokens * w;
  };
  let best = offered[0];
  for (const l of offered.slice(1)) if (costPerRequest(l) < costPerRequest(best)) best = l;
  return best === offered[0] ? undefined : best;
}

/**
 * A lifetime and its price in words, for the details' cache line (1 hour is Anthropic's, 24 hours
 * OpenAI's: each lifetime names its provider's price). Undefined: the provider's default.
 */
export function lifetimeText(lifetime: CacheLifetime | undefined): string {
  switch (lifetime) {
    case '1h':
      return `kept 1 hour (writes cost ${ANTHROPIC_WRITE_MULTIPLIER['1h']}× input, ${ANTHROPIC_WRITE_MULTIPLIER['5m']}× for 5 minutes)`;
    case '24h':
      return 'kept up to 24 hours (no extra price)';
    default:
      return 'kept 5 minutes after its last use';
  }
}
