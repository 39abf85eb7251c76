/**
 * The one threshold → status rule (DESIGN §3): where a context stands against the note, compact and
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
