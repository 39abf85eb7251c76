import type { Usage } from './types';

/**
 * The one home of "what a provider-reported token count may be". Servers are untrusted input: a
 * compatible server may send strings, `null`, NaN, negative numbers or 1e308. Every usage figure an
 * adapter reads goes through `tokenCount`, so a turn always saves and the meter and calibration
 * never see nonsense.
 */

/** No model's window comes near this; larger reports are clamped to it. */
export const MAX_REPORTED_TOKENS = 100_000_000;

/**
 * A provider-reported token count as a safe integer in [0, MAX_REPORTED_TOKENS]. Numbers and numeric
 * strings ("1234") are accepted; anything else (NaN, Infinity, objects, other strings) is
 * `fallback`. Never throws.
 */
export function tokenCount(value: unknown, fallback = 0): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value)) n = Number(value);
  else return fallback;
  if (Number.isNaN(n)) return fallback;
  if (n <= 0) return 0;
  return Math.min(MAX_REPORTED_TOKENS, Math.floor(n));
}

/** `usage` with every figure passed through `tokenCount`; `reasoning` kept when positive, `estimated` when true. */
export function normalizeUsage(usage: Usage): Usage {
  const out: Usage = {
    input: tokenCount(usage.input),
    output: tokenCount(usage.output),
    cacheRead: tokenCount(usage.cacheRead),
    cacheWrite: tokenCount(usage.cacheWrite),
  };
  const reasoning = tokenCount(usage.reasoning);
  if (reasoning > 0) out.reasoning = Math.min(reasoning, out.output);
  const longWrites = tokenCount(usage.cacheWrite1h);
  if (longWrites > 0) out.cacheWrite1h = Math.min(longWrites, out.cacheWrite);
  if (usage.estimated === true) out.estimated = true;
  return out;
}
