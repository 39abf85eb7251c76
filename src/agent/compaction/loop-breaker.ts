/**
 * The compaction loop breaker: an automatic pass that frees less than 5 % of the window,
 * or 3 failed automatic passes in a row, pause automatic compaction for the session with a reason the
 * panel shows. Manual compaction always runs, and a manual pass that reaches its target resumes
 * automatic compaction. The pause also lifts when its cause is gone (`liftIf`): the window is another
 * one (a server said its real context, the model changed), or the context fell back below the note
 * threshold. Never throws.
 */

export interface PauseState {
  /** A sentence a person can act on. */
  reason: string;
  /** Epoch ms. */
  at: number;
  /** The effective window the pass that paused ran against. */
  window?: number;
}

export interface PassOutcome {
  manual: boolean;
  /** False when the pass produced no compacted view. */
  produced: boolean;
  reachedTarget: boolean;
  /** Tokens freed / effective window. */
  freedShare: number;
  /** The effective window the pass ran against. */
  effectiveWindow?: number;
}

export interface LoopBreakerOptions {
  /** Default 0.05. */
  minFreedShare?: number;
  /** Default 3. */
  maxFailures?: number;
  now?: () => number;
}

export class LoopBreaker {
  private failures = 0;
  private state: PauseState | undefined;
  private readonly minFreed: number;
  private readonly maxFailures: number;
  private readonly now: () => number;

  constructor(options: LoopBreakerOptions = {}) {
    this.minFreed = options.minFreedShare ?? 0.05;
    this.maxFailures = Math.max(1, options.maxFailures ?? 3);
    this.now = options.now ?? Date.now;
  }

  /** Set while automatic compaction is paused. */
  get paused(): PauseState | undefined {
    return this.state;
  }

  /** Failed automatic passes in a row. */
  get failureCount(): number {
    return this.failures;
  }

  resume(): void {
    this.state = undefined;
    this.failures = 0;
  }

  /**
   * Lifts the pause when its cause is gone: the context is measured against another window than the
   * pass that paused, or it is back below `quietBelow` (a ratio of the window; the note threshold),
   * where automatic compaction has nothing to do. Returns true when it lifted.
   */
  liftIf(now: { effectiveWindow: number; ratio: number; quietBelow: number }): boolean {
    const s = this.state;
    if (!s) return false;
    const otherWindow = s.window !== undefined && now.effectiveWindow !== s.window;
    if (!otherWindow && !(now.ratio < now.quietBelow)) return false;
    this.resume();
    return true;
  }

  /** Records a pass; returns the new pause state when this pass tripped the breaker. */
  record(o: PassOutcome): PauseState | undefined {
    if (o.manual) {
      if (o.produced && o.reachedTarget) this.resume();
      return undefined;
    }
    this.failures = o.produced && o.reachedTarget ? 0 : this.failures + 1;
    if (this.state) return undefined;
    const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
    if (o.produced && o.freedShare < this.minFreed) {
      this.state = {
        reason:
          `Automatic compaction is paused: the last pass freed only ${pct(Math.max(0, o.freedShare))} of what the model can take ` +
          '(what is left is mostly recent work, pins, system prompt and tools). Compact manually, clear the context or start a new session.',
        at: this.now(),
        window: o.effectiveWindow,
      };
    } else if (this.failures >= this.maxFailures) {
      this.state = {
        reason:
          `Automatic compaction is paused after ${this.failures} passes in a row that could not get the context under its target. ` +
          'Compact manually, clear the context or start a new session.',
        at: this.now(),
        window: o.effectiveWindow,
      };
    }
    return this.state;
  }
}
