/**
 * Coalesces work to at most one run per 33 ms (≤ 30 renders a second however fast deltas arrive);
 * the first change after a quiet period renders on the next tick. Works while the panel is hidden
 * (animation frames stop there, timers do not).
 */
export const FRAME_MS = 33;

export function throttled(run: () => void, intervalMs = FRAME_MS): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = -Infinity;
  return () => {
    if (timer !== undefined) return;
    const wait = Math.max(0, last + intervalMs - performance.now());
    timer = setTimeout(() => {
      timer = undefined;
      last = performance.now();
      run();
    }, wait);
  };
}
