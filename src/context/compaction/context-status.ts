/**
 * The one threshold → status rule: where a context stands against the note, compact and
 * block thresholds. The guard, the gate's measurement and the meter all classify with it. Pure.
 */
import type { Thresholds } from '../settings';

/** `ok` → nothing to do; `note` → the awareness note; `compact` → compact before sending; `block` → must compact. */
export type ThresholdStatus = 'ok' | 'note' | 'compact' | 'block';

/**
 * The status at `ratio` (tokens / the limit the thresholds are shares of). A threshold left out never
 * triggers (the meter knows no note threshold, for instance).
 */
export function statusAt(ratio: number, thresholds: Partial<Pick<Thresholds, 'note' | 'compact' | 'block'>>): ThresholdStatus {
  if (reached(ratio, thresholds.block)) return 'block';
  if (reached(ratio, thresholds.compact)) return 'compact';
  if (reached(ratio, thresholds.note)) return 'note';
  return 'ok';
}

function reached(ratio: number, threshold: number | undefined): boolean {
  return threshold !== undefined && ratio >= threshold;
}

/**
 * Tokens that can still be added before `statusAt` reports `threshold` (0 once it does): the distance
 * the meter shows as "31k to compact". `limit` is what the thresholds are shares of (the
 * effective window). Never negative, never NaN; undefined when the threshold is not set.
 */
export function tokensUntil(
  used: number,
  limit: number,
  threshold: keyof Pick<Thresholds, 'note' | 'compact' | 'block'>,
  thresholds: Partial<Pick<Thresholds, 'note' | 'compact' | 'block'>>,
): number | undefined {
  const share = thresholds[threshold];
  if (share === undefined || !Number.isFinite(share) || !Number.isFinite(limit) || limit <= 0) return undefined;
  const u = Number.isFinite(used) && used > 0 ? used : 0;
  if (reached(u / limit, share)) return 0;
  // The smallest whole count the rule classifies as reached, less what is used.
  // The smallest whole count the rule classifies as reached (a float product may be off by one), less what is used.
  let at = Math.ceil(share * limit);
  if (at - 1 > u && reached((at - 1) / limit, share)) at--;
  else if (!reached(at / limit, share)) at++;
  return Math.max(0, at - u);
}
