/** Shared helpers for benchmarks: every bench prints one JSON object per line through `report`. */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface BenchFigure {
  bench: string;
  value: number;
  unit: string;
  target?: number;
  better?: 'lower' | 'higher';
  /** Extra detail (samples, sizes) for whoever reads the line. */
  [extra: string]: unknown;
}

export function report(figure: BenchFigure): void {
  process.stdout.write(JSON.stringify(figure) + '\n');
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Round to 3 decimals for readable output. */
export function r3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * Measures the longest event-loop block while `fn` runs, as the worst lateness `monitorEventLoopDelay`
 * saw (its histogram max): every synchronous stretch on the thread — Headroom's code, GC, an export —
 * shows up, and on a loaded machine so does time the OS gave to others. Worst case, never a median.
 */
export async function measureMaxBlock<T>(fn: () => Promise<T>, resolutionMs = 2): Promise<{ result: T; maxBlockMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  try {
    const result = await fn();
    await new Promise((r) => setTimeout(r, resolutionMs * 3));
    return { result, maxBlockMs: lateness(histogram, resolutionMs) };
  } finally {
    histogram.disable();
  }
}

/**
 * The histogram's worst sample in ms, less the sampling interval: its samples are the whole time between
 * ticks (an idle loop at 2 ms resolution reads ≈ 2.1 ms), so the lateness is what exceeds the interval.
 */
export function lateness(histogram: IntervalHistogram, resolutionMs: number): number {
  return Math.max(0, histogram.max / 1e6 - resolutionMs);
}
