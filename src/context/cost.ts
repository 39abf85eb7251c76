/**
 * Money: what a request cost and what prompt caching saved, from the model table's prices (the
 * usage `{input, output, cacheRead, cacheWrite}`), and what a whole session spent. Pure; never
 * throws; never NaN.
 */
import type { Usage } from '../providers/types';
import { writePriceFor } from './cache-lifetime';
import type { ModelPrice } from './models';

/** US dollars per million tokens (the model table's `price`; `cacheWrite` 0: writing costs nothing extra). */
export type Prices = ModelPrice;

type Billed = Pick<Usage, 'input' | 'output' | 'cacheRead' | 'cacheWrite'> & Pick<Usage, 'cacheWrite1h'>;

const n = (v: number | undefined) => (v !== undefined && Number.isFinite(v) && v > 0 ? v : 0);
/** Tokens written to the cache are billed at least as input. */
const writePrice = (p: Prices) => Math.max(n(p.cacheWrite), n(p.input));

/** Tokens written to live 1 hour: only Anthropic reports them, billed at its 1-hour multiple of input. */
const longWrites = (usage: Pick<Billed, 'cacheWrite' | 'cacheWrite1h'>) => Math.min(n(usage.cacheWrite1h), n(usage.cacheWrite));

/** Dollars of all cache writes of `usage`: the 1-hour ones at 2× input (`cache-lifetime.ts`), the rest at the write price. */
function writeDollars(usage: Pick<Billed, 'cacheWrite' | 'cacheWrite1h'>, prices: Prices): number {
  const long = longWrites(usage);
  return ((n(usage.cacheWrite) - long) * writePrice(prices) + long * writePriceFor('1h', 'anthropic', prices)) / 1e6;
}

/** Dollars of one request, by kind of token. */
function dollarsOf(usage: Billed, prices: Prices): Omit<Billed, 'cacheWrite1h'> {
  return {
    input: (n(usage.input) * n(prices.input)) / 1e6,
    output: (n(usage.output) * n(prices.output)) / 1e6,
    cacheRead: (n(usage.cacheRead) * n(prices.cacheRead)) / 1e6,
    cacheWrite: writeDollars(usage, prices),
  };
}

/** Dollars one request cost. */
export function costOf(usage: Billed, prices: Prices): number {
  const d = dollarsOf(usage, prices);
  return d.input + d.output + d.cacheRead + d.cacheWrite;
}

/**
 * Dollars caching saved on one request: cache reads at the input price minus what they cost, less
 * the premium paid for cache writes. Negative when a request only wrote the cache.
 */
export function cacheSavings(usage: Pick<Usage, 'cacheRead' | 'cacheWrite' | 'cacheWrite1h'>, prices: Prices): number {
  return (
    (n(usage.cacheRead) * (n(prices.input) - n(prices.cacheRead))) / 1e6 -
    (writeDollars(usage, prices) - (n(usage.cacheWrite) * n(prices.input)) / 1e6)
  );
}

/**
 * What a session spent, kept with the session in the sessions index (so a list of sessions needs no
 * session database) and continued when the session is resumed.
 */
export interface SessionSpend {
  /** Tokens billed by kind, over every request (priced or not). */
  tokens: Billed;
  /** Dollars by kind, over the priced requests. */
  dollars: Billed;
  /** Dollars prompt caching saved (negative while it only paid for writes). */
  saved: number;
  /** Model requests counted (answers and summaries). */
  requests: number;
  /** Requests whose model had no prices: their tokens count, their dollars are unknown (not zero). */
  unpriced: number;
}

export function emptySpend(): SessionSpend {
  const zero = () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  return { tokens: zero(), dollars: zero(), saved: 0, requests: 0, unpriced: 0 };
}

/** The spend with one more request added (`prices` undefined: a model without known prices). */
export function addSpend(spend: SessionSpend, usage: Billed, prices: Prices | undefined): SessionSpend {
  const sum = (a: Billed, b: Billed): Billed => ({
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  });
  const tokens = { input: n(usage.input), output: n(usage.output), cacheRead: n(usage.cacheRead), cacheWrite: n(usage.cacheWrite) };
  return {
    tokens: sum(spend.tokens, tokens),
    dollars: prices ? sum(spend.dollars, dollarsOf(usage, prices)) : spend.dollars,
    saved: spend.saved + (prices ? cacheSavings(usage, prices) : 0),
    requests: spend.requests + 1,
    unpriced: spend.unpriced + (prices ? 0 : 1),
  };
}

/** The session's dollars; undefined when no request was priced (the cost is unknown, not $0). */
export function spendTotal(spend: SessionSpend): number | undefined {
  if (spend.requests <= spend.unpriced) return undefined;
  const d = spend.dollars;
  return d.input + d.output + d.cacheRead + d.cacheWrite;
}

/** Running totals of a session: this turn and the whole session (which may start from its stored spend). */
export class CostTally {
  private current: SessionSpend;
  /** The session's dollars when the turn began (the turn's figure is the difference: the same sum). */
  private atTurnStart: number;

  constructor(seed?: SessionSpend) {
    this.current = seed ?? emptySpend();
    this.atTurnStart = spendTotal(this.current) ?? 0;
  }

  get spend(): SessionSpend {
    return this.current;
  }

  /** Dollars of the running (or last) turn. */
  get turn(): number {
    return Math.max(0, (spendTotal(this.current) ?? 0) - this.atTurnStart);
  }

  add(usage: Billed, prices: Prices | undefined): void {
    this.current = addSpend(this.current, usage, prices);
  }

  beginTurn(): void {
    this.atTurnStart = spendTotal(this.current) ?? 0;
  }
}
