/**
 * Exact input counts before sending, where the provider can count (`providers/input-count.ts`): the
 * count becomes the confirmed base the meter and the gate rest on, so the figure says "confirmed"
 * before the request goes out. A request is counted when
 * - it is the first of the session with this model (calibration starts exact),
 * - its estimate is within its error band of a threshold (note, summary, compact, block) or of the
 *   effective window, where the estimate alone cannot tell which side it is on, or
 * - Headroom cannot reproduce the model's tokenizer (every Claude model, VS Code's models, a server's)
 *   and the band of its estimate is a noticeable share (1 %) of the window.
 * Counting never holds up the UI: it happens in the gate before a request (bounded by a timeout) or
 * in the background while idle; it is rate-limited; offline, refused or slow, the safe estimate
 * stands. A count is evidence like a reported usage (`UsageEvidence`): one far from what was sent is
 * not used, and a low one is the base but calibrates downwards only when a second count agrees. The
 * counts are judged among themselves (a count is of the whole request, never of a server's uncached
 * part, and cuts nothing). Pure (no vscode); never throws.
 */
import { createContextAccounting, sumOf, type ContextAccounting, type UsageDoubt } from './context-accounting';
import type { Calibration } from '../context/calibration';
import type { EstimateState } from '../context/confirmed-base';
import type { ModelLimits } from '../context/models';
import { UsageEvidence } from '../context/usage-evidence';
import type { Thresholds } from '../context/settings';
import type { TokenLedger } from '../context/token-ledger';
import type { InputCounter } from '../providers/input-count';
import type { Message, ProviderRequest, SystemSection, ToolDefinition } from '../providers/types';

/** Why a request was counted. */
export type CountReason = 'first' | 'threshold' | 'tokenizer';

/** What is about to be sent (or would be, while idle). */
export interface InputToCount {
  messages: readonly Message[];
  system: readonly SystemSection[];
  tools: readonly ToolDefinition[];
}

export interface InputCountOptions {
  /** The provider's counter for the session's model now (undefined: it cannot count). */
  counter: () => InputCounter | undefined;
  /** How long a count before a request may take before the request goes on with the estimate (default 5 s). */
  timeoutMs?: number;
  /** How long a count while idle may take (nothing waits for it; default 20 s). */
  idleTimeoutMs?: number;
  /** Counts per minute at most (default 20; Anthropic's lowest tier allows 100). */
  perMinute?: number;
  now?: () => number;
  /** Told of every count that was not used (far from what was sent); must not throw (guarded). */
  onDoubt?: (doubt: UsageDoubt) => void;
}

/** What one gate's counts rest on: the same shared state the gate measures with. */
export interface GateCountDeps {
  limits: ModelLimits;
  thresholds: Thresholds;
  ledger: TokenLedger;
  calibration: Calibration;
  estimates: EstimateState;
}

/** Tokenizers Headroom reproduces exactly: OpenAI's own, on OpenAI's API. */
const reproducible = (l: ModelLimits) => l.provider === 'openai' && l.family !== 'claude';

/** The session's policy: what was counted, how often, and the counts per gate. */
export class InputCountPolicy {
  private countedModel: string | undefined;
  private readonly recent: number[] = [];
  private inFlight = false;
  /** The counts of the gate built last (the idle count uses it). */
  current: GateInputCount | undefined;
  /** What was asked and why (the bench reports the call rate from these). */
  readonly stats = { asked: 0, confirmed: 0, failed: 0, limited: 0, doubted: 0, first: 0, threshold: 0, tokenizer: 0 };
  /** The counts' own evidence: whether each count may be used, judged against what was counted. */
  readonly evidence = new UsageEvidence();

  constructor(private readonly options: InputCountOptions) {}

  /** @internal Where a count in doubt is told. */
  get onDoubt(): InputCountOptions['onDoubt'] {
    return this.options.onDoubt;
  }

  /** Counts for a gate measuring against `deps` (built with the gate; the idle count then uses it). */
  forGate(deps: GateCountDeps): GateInputCount {
    return (this.current = new GateInputCount(this, deps));
  }

  /** Another session: its first request is counted again. */
  reset(): void {
    this.countedModel = undefined;
    this.evidence.reset();
  }

  /** @internal Whether `model` was counted in this session. */
  counted(model: string): boolean {
    return this.countedModel === model;
  }

  /** @internal Counts `request` within the rate limit and the timeout; undefined when it was not counted. */
  async count(request: ProviderRequest, reason: CountReason, signal?: AbortSignal, idle = false): Promise<number | undefined> {
    const counter = this.options.counter();
    if (!counter || this.inFlight || signal?.aborted) return undefined;
    const now = (this.options.now ?? Date.now)();
    while (this.recent.length && now - this.recent[0] >= 60_000) this.recent.shift();
    if (this.recent.length >= (this.options.perMinute ?? 20)) {
      this.stats.limited++;
      return undefined;
    }
    this.recent.push(now);
    this.inFlight = true;
    this.stats.asked++;
    this.stats[reason]++;
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal?.addEventListener('abort', abort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ms = idle ? (this.options.idleTimeoutMs ?? 20_000) : (this.options.timeoutMs ?? 5_000);
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => (abort(), resolve(undefined)), ms)));
    try {
      const n = await Promise.race([counter.countInput(request, controller.signal), timeout]);
      if (n === undefined || signal?.aborted) this.stats.failed++;
      else {
        this.stats.confirmed++;
        this.countedModel = request.model;
      }
      return signal?.aborted ? undefined : n;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      this.inFlight = false;
    }
  }
}

/** One gate's exact counts: called by the gate before each request, and by the session while idle. */
export class GateInputCount {
  private readonly accounting: ContextAccounting;

  constructor(
    private readonly policy: InputCountPolicy,
    private readonly deps: GateCountDeps,
  ) {
    this.accounting = createContextAccounting({ ...deps, reports: { evidence: policy.evidence, onDoubt: policy.onDoubt } });
  }

  /** Why `input` should be counted before it is sent; undefined when the estimate will do. */
  reason(input: InputToCount): CountReason | undefined {
    const { limits, thresholds, estimates } = this.deps;
    const a = this.accounting.account(input.messages, input.system, input.tools);
    if (a.estimated <= 0) return undefined; // everything already rests on the provider's figure
    if (!this.policy.counted(limits.model)) return 'first';
    const band = estimates.band.tokens(limits.model, a.classes);
    const used = sumOf(a.components);
    const marks = [thresholds.note, thresholds.background, thresholds.compact, thresholds.block, 1].map((t) => t * limits.effectiveWindow);
    if (marks.some((m) => Math.abs(used - m) <= band)) return 'threshold';
    if (!reproducible(limits) && band >= 0.01 * limits.effectiveWindow) return 'tokenizer';
    return undefined;
  }

  /** Before a request: counts it when `reason` says so; the count becomes the confirmed base. Never rejects. */
  async beforeSending(input: InputToCount, signal?: AbortSignal): Promise<boolean> {
    try {
      const why = this.reason(input);
      return why ? await this.confirm(input, why, signal) : false;
    } catch {
      return false;
    }
  }

  /** While idle (a session opened, a model switched): counts what the next request will carry, once per model. */
  async confirmIdle(input: InputToCount): Promise<boolean> {
    try {
      return this.reason(input) === 'first' ? await this.confirm(input, 'first', undefined, true) : false;
    } catch {
      return false;
    }
  }

  private async confirm(input: InputToCount, why: CountReason, signal?: AbortSignal, idle = false): Promise<boolean> {
    const { limits } = this.deps;
    const request: ProviderRequest = {
      model: limits.model,
      system: [...input.system],
      messages: [...input.messages],
      tools: [...input.tools],
      maxOutputTokens: limits.maxOutput,
    };
    const n = await this.policy.count(request, why, signal, idle);
    if (n === undefined) return false;
    // The provider's count of exactly this request, unless in doubt: the confirmed base, a band sample
    // and (when not below the estimate, or corroborated) a calibration sample.
    const verdict = this.accounting.learn(request, { input: n, output: 0, cacheRead: 0, cacheWrite: 0 });
    if (verdict?.doubt) this.policy.stats.doubted++;
    return verdict?.confirm === true;
  }
}
