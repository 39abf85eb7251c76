/** Shared helpers for benchmarks: every bench prints one JSON object per line through `report`. */

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
 * Measures the longest event-loop block while `fn` runs: a timer ticks every `intervalMs` and the
 * largest lateness is the longest synchronous stretch.
 */
export async function measureMaxBlock<T>(fn: () => Promise<T>, intervalMs = 5): Promise<{ result: T; maxBlockMs: number }> {
  let last = performance.now();
  let maxBlock = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxBlock = Math.max(maxBlock, now - last - intervalMs);
    last = now;
  }, intervalMs);
  try {
    const result = await fn();
    await new Promise((r) => setTimeout(r, intervalMs * 2));
    return { result, maxBlockMs: Math.max(0, maxBlock) };
  } finally {
    clearInterval(timer);
  }
}
