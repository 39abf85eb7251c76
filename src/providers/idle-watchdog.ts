import { providerEntry } from '../common/provider-catalogue';
import type { ProviderError, ProviderId } from './types';

/**
 * How long a provider stream may stay silent. A server that accepts the request and then sends
 * nothing, only response headers, or only keep-alive comments (`: ping`) would otherwise hang the
 * turn until the user pressed Stop; the SDKs' own timeout covers only the wait for headers.
 */
export interface IdleTimeouts {
  /** Longest wait from sending the request to its first event (connecting and headers included). */
  firstEventMs: number;
  /** Longest silence between two events once the first has arrived. */
  betweenEventsMs: number;
}

/** One minute for each: long enough for a slow first token from a hosted API, short enough to notice. */
export const DEFAULT_IDLE_TIMEOUTS: IdleTimeouts = { firstEventMs: 60_000, betweenEventsMs: 60_000 };

/**
 * Most silence one request may meet in total, over all its attempts and the waits between them. Each
 * attempt had its own minute before, so a silent server held a turn for 5.5 min (5 attempts) and a
 * local server that sent only headers for 15.5 min; now the request ends within two minutes of the
 * silence starting, whatever the retry policy.
 */
export const IDLE_BUDGET_MS = 120_000;

/** Below this (or a tenth of the budget, if less), another attempt could not even connect: the idle error is final. */
const MIN_ATTEMPT_MS = 5_000;

/**
 * The defaults for a provider: local OpenAI-compatible servers (Ollama, LM Studio, llama.cpp) load the
 * model on the first request and send nothing meanwhile, so they get the whole idle budget to start;
 * between events the rule is the same.
 */
export function defaultIdleTimeouts(provider: ProviderId): IdleTimeouts {
  return providerEntry(provider).endpoint === 'server' ? { ...DEFAULT_IDLE_TIMEOUTS, firstEventMs: IDLE_BUDGET_MS } : DEFAULT_IDLE_TIMEOUTS;
}

/**
 * The idle budget of one request (`IDLE_BUDGET_MS`), shared by its attempts (`withRetries` makes one
 * per request). The clock starts with the first silence that ends an attempt and counts everything
 * after it (retry waits, connecting, the next silence); a watchdog never waits past what is left.
 */
export class IdleBudget {
  private silenceStartedAt: number | undefined;

  constructor(
    readonly totalMs = IDLE_BUDGET_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A watchdog for one attempt, bounded by what is left of this budget. */
  watch(parent: AbortSignal, timeouts: IdleTimeouts, timers?: WatchdogTimers): IdleWatchdog {
    return new IdleWatchdog(parent, timeouts, timers, this);
  }

  /** `ms`, or less when less is left. */
  cap(ms: number): number {
    return Math.max(0, Math.min(ms, this.left()));
  }

  /** A silence of `ms` ended an attempt just now. */
  spent(ms: number): void {
    this.silenceStartedAt ??= this.now() - ms;
  }

  /** True when too little is left for another attempt to be worth making. */
  get exhausted(): boolean {
    return this.left() < Math.min(MIN_ATTEMPT_MS, this.totalMs / 10);
  }

  private left(): number {
    return this.silenceStartedAt === undefined ? this.totalMs : this.silenceStartedAt + this.totalMs - this.now();
  }
}

/** Timer functions, injectable so the watchdog's rule can be tested without waiting. */
export interface WatchdogTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: WatchdogTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/**
 * Watches one request attempt. `signal` aborts when the caller's signal aborts or when the stream
 * stays silent too long; the adapter passes it to the SDK, calls `touch()` for every event that
 * carries data (never for keep-alives), and reports `error()` (a `network` error, retryable while the
 * request's idle budget lasts) when it fired. `dispose()` must be called when the attempt ends; it
 * never throws.
 */
export class IdleWatchdog {
  private readonly controller = new AbortController();
  private handle: unknown;
  private started = false;
  private firedError: ProviderError | undefined;
  private readonly onParentAbort = () => this.controller.abort();

  constructor(
    private readonly parent: AbortSignal,
    private readonly timeouts: IdleTimeouts = DEFAULT_IDLE_TIMEOUTS,
    private readonly timers: WatchdogTimers = realTimers,
    private readonly budget: IdleBudget = new IdleBudget(),
  ) {
    if (parent.aborted) this.controller.abort();
    else parent.addEventListener('abort', this.onParentAbort, { once: true });
    this.arm(timeouts.firstEventMs);
  }

  /** Aborted by the caller or by the watchdog. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Records that an event with data arrived: the silence clock restarts. */
  touch(): void {
    if (this.firedError || this.controller.signal.aborted) return;
    this.started = true;
    this.arm(this.timeouts.betweenEventsMs);
  }

  /** The error to report when the watchdog ended the attempt; undefined otherwise. */
  error(): ProviderError | undefined {
    return this.firedError;
  }

  dispose(): void {
    this.timers.clear(this.handle);
    this.parent.removeEventListener('abort', this.onParentAbort);
  }

  private arm(ms: number): void {
    this.timers.clear(this.handle);
    const capped = this.budget.cap(ms);
    this.handle = this.timers.set(() => this.fire(capped), capped);
  }

  private fire(ms: number): void {
    if (this.parent.aborted || this.controller.signal.aborted) return;
    this.budget.spent(ms);
    const what = this.started ? 'sent no data' : 'did not start answering';
    const message = `The provider ${what} for ${seconds(ms)}; the request was stopped (idle timeout).`;
    this.firedError = this.budget.exhausted ? { kind: 'network', message, retryable: false } : { kind: 'network', message };
    this.controller.abort();
  }
}
