/**
 * The one denominator of every percentage of the context, shown to people or told to the model: the
 * effective window (`contextWindow − maxOutput − buffer`, what this model can take as input once its
 * answer and the safety buffer are reserved). The thresholds are shares of it, so the bar, its
 * markers, Details, the status bar, the notifications and the awareness note all read the same
 * figure against the same rule: a meter of the whole window said 65 % while the model was told 89 %
 * and compaction came at the bar's "69 %". Pure; never throws.
 */

/** `used / effectiveWindow`, 0..1+ (over 1 when the context no longer fits); 0 for a window of nothing or nonsense. */
export function contextShare(used: number, effectiveWindow: number): number {
  if (!Number.isFinite(effectiveWindow) || effectiveWindow <= 0) return 0;
  const u = Number.isFinite(used) && used > 0 ? used : 0;
  return u / effectiveWindow;
}

/** The share as a whole percent (`Math.round`, as `protocol/format.ts` `formatPercent` writes it), never negative. */
export function contextPercent(used: number, effectiveWindow: number): number {
  return Math.round(contextShare(used, effectiveWindow) * 100);
}
