/** Shared helpers for benchmarks: every bench prints one JSON object per line through `report`. */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
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

/**
 * The main thread's scheduler clock: how long it ran on a CPU and how long it was ready to run but
 * waited for one (ms since it started), from Linux's per-thread schedstat
 * (https://docs.kernel.org/scheduler/sched-stats.html, "/proc/<pid>/schedstat"). Undefined where the
 * kernel does not publish it. On a machine shared by other processes the wait is the time the OS gave
 * to them: wall time less that wait is what the same work takes when this thread never queues for a CPU.
 */
export function mainThreadClock(): { runMs: number; waitMs: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return Number.isFinite(run) && Number.isFinite(wait) ? { runMs: run / 1e6, waitMs: wait / 1e6 } : undefined;
  } catch {
    return undefined;
  }
}

/** The machine's 1-minute load average, printed beside figures that a shared machine's load can move. */
export function load1(): number {
  return r3(loadavg()[0]);
}

/**
 * Times `fn` (synchronous): its wall time, and its wall time less the time the main thread waited for a
 * CPU meanwhile (`ownMs`: what it takes on a machine where nothing else runs; equal to the wall time
 * where the scheduler clock is unavailable).
 */
export function timeOwn(fn: () => void): { wallMs: number; ownMs: number; cpuMs: number | undefined } {
  const c0 = mainThreadClock();
  const t0 = performance.now();
  fn();
  const wallMs = performance.now() - t0;
  const c1 = mainThreadClock();
  if (!c0 || !c1) return { wallMs, ownMs: wallMs, cpuMs: undefined };
  return { wallMs, ownMs: Math.max(0, wallMs - (c1.waitMs - c0.waitMs)), cpuMs: c1.runMs - c0.runMs };
}

/**
 * Watches the event loop with a timer every `intervalMs` and keeps its worst lateness two ways: `wallMs`,
 * the raw lateness (whatever caused it, the OS running other processes included), and `ownMs`, the
 * lateness less the time the main thread waited for a CPU in that interval — how long this process's
 * own synchronous work (its code, GC, an export) kept the loop from coming back. `stop()` returns both.
 */
export function watchBlocks(intervalMs = 1): { stop(): { wallMs: number; ownMs: number } } {
  let wallMs = 0;
  let ownMs = 0;
  let last = performance.now();
  let lastClock = mainThreadClock();
  const tick = () => {
    const now = performance.now();
    const clock = mainThreadClock();
    const late = Math.max(0, now - last - intervalMs);
    const waited = clock && lastClock ? clock.waitMs - lastClock.waitMs : 0;
    wallMs = Math.max(wallMs, late);
    ownMs = Math.max(ownMs, Math.max(0, late - waited));
    last = performance.now();
    lastClock = mainThreadClock();
  };
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { wallMs, ownMs };
    },
  };
}
