/**
 * Money: what a request cost and what prompt caching saved, from the model table's prices (DESIGN §5
 * usage `{input, output, cacheRead, cacheWrite}`). Pure; never throws; never NaN.
 */
import type { Usage } from '../providers/types';
import type { ModelPrice } from './models';

/** US dollars per million tokens (the model table's `price`; `cacheWrite` 0: writing costs nothing extra). */
export type Prices = ModelPrice;

const n = (v: number | undefined) => (v !== undefined && Number.isFinite(v) && v > 0 ? v : 0);
/** Tokens written to the cache are billed at least as input. */
const writePrice = (p: Prices) => Math.max(n(p.cacheWrite), n(p.input));

/** Dollars one request cost. */
export function costOf(usage: Pick<Usage, 'input' | 'output' | 'cacheRead' | 'cacheWrite'>, prices: Prices): number {
  return (
    (n(usage.input) * n(prices.input) +
      n(usage.output) * n(prices.output) +
      n(usage.cacheRead) * n(prices.cacheRead) +
      n(usage.cacheWrite) * writePrice(prices)) /
    1e6
  );
}

/**
 * Dollars caching saved on one request: cache reads at the input price minus what they cost, less
 * the premium paid for cache writes. Negative when a request only wrote the cache.
 */
export function cacheSavings(usage: Pick<Usage, 'cacheRead' | 'cacheWrite'>, prices: Prices): number {
  return (
    (n(usage.cacheRead) * (n(prices.input) - n(prices.cacheRead)) - n(usage.cacheWrite) * (writePrice(prices) - n(prices.input))) / 1e6
  );
}

/** Running totals of a session: this turn, the whole session and the cache savings. */
export class CostTally {
  turn = 0;
  session = 0;
  saved = 0;
  /** Requests whose model had no prices (their cost is unknown, not zero). */
  unpriced = 0;

  add(usage: Pick<Usage, 'input' | 'output' | 'cacheRead' | 'cacheWrite'>, prices: Prices | undefined): void {
    if (!prices) {
      this.unpriced++;
      return;
    }
    const c = costOf(usage, prices);
    this.turn += c;
    this.session += c;
    this.saved += cacheSavings(usage, prices);
  }

  beginTurn(): void {
    this.turn = 0;
  }

  reset(): void {
    this.turn = this.session = this.saved = 0;
    this.unpriced = 0;
  }
}
