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
 * The defaults for a provider: local OpenAI-compatible servers (Ollama, LM Studio, llama.cpp) load the
 * model on the first request and send nothing meanwhile, which can take minutes on a slow disk, so
 * they get three minutes to start; between events the rule is the same.
 */
export function defaultIdleTimeouts(provider: ProviderId): IdleTimeouts {
  return providerEntry(provider).endpoint === 'server' ? { ...DEFAULT_IDLE_TIMEOUTS, firstEventMs: 180_000 } : DEFAULT_IDLE_TIMEOUTS;
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
 * carries data (never for keep-alives), and reports `error()` (a retryable `network` error) when it
 * fired. `dispose()` must be called when the attempt ends; it never throws.
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
    this.handle = this.timers.set(() => this.fire(ms), ms);
  }

  private fire(ms: number): void {
    if (this.parent.aborted || this.controller.signal.aborted) return;
    const what = this.started ? 'sent no data' : 'did not start answering';
    this.firedError = { kind: 'network', message: `The provider ${what} for ${seconds(ms)}; the request was stopped (idle timeout).` };
    this.controller.abort();
  }
}
