/**
 * A reported prompt count is evidence, not truth: the one home of whether a provider's figure for a
 * request may become the meter's confirmed base and calibrate the estimates. Called with every
 * completed request before either happens. Pure state; never throws; never NaN.
 *
 * Why: Ollama and LM Studio do not refuse a prompt over their context, they drop parts of it and
 * report what they evaluated; taken as the truth, that count shrank the estimates, no threshold was
 * reached and every request grew (6 turns: 2.2k → 128k tokens sent into an 8,192 context). A server
 * can also report a figure no tokenizer explains (190,000 for a 1.7k prompt, 1e308), which forced a
 * compaction. So a figure is checked against what Headroom sent:
 * - far below Headroom's lowest reading of the request (under `FAR_BELOW` of it, the lowest ratio
 *   calibration accepts), or far above its estimate (over `FAR_ABOVE`, beyond any tokenizer Headroom
 *   knows): not used;
 * - at the context of a server that truncates silently (`AT_WINDOW`): possibly truncated, not used;
 * - not growing while the conversation grew (the request held the last one and more): not used;
 * - below the estimate but plausible: the base (the provider counted that request) but, on the
 *   strength of one report, no calibration downwards; a second report that agrees corroborates it.
 * A server whose count leaves out its cached prefix (Ollama 0.30.0) has the prefix added back: the
 * last request's total when the request continues it; after a compaction, within the bounds the
 * figure and what the two requests share allow (a reading that may be the base but does not
 * calibrate); the very first figure (what was cached before is unknown) is not used.
 */
import type { Message, ProviderRequest } from '../providers/types';
import { MAX_FACTOR, MIN_FACTOR, MIN_SAMPLE_TOKENS } from './calibration';

/** A figure under this share of the raw estimate is not a count of what was sent (calibration's lowest factor). */
export const FAR_BELOW = MIN_FACTOR;
/** A figure over this multiple of the raw estimate (plus `SLACK`) is beyond any tokenizer Headroom knows. */
export const FAR_ABOVE = MAX_FACTOR * 1.25;
/** A truncating server that reports this share of its context or more may have cut the prompt to fit. */
export const AT_WINDOW = 0.95;
/** Tokens of template framing a small request may add to the estimate without being suspicious. */
export const SLACK = 256;
/** When the conversation grew by G estimated tokens, the report must grow by at least this share of G. */
export const GROWTH_SHARE = 0.5;
/** Two reports below the estimate corroborate each other when their ratios are this close (relative). */
export const AGREEMENT = 0.25;

/** Why a figure was not used. `partial`: a count without the cached prefix, whose prefix is unknown. */
export type Doubt = 'far-below' | 'far-above' | 'at-window' | 'not-growing' | 'partial';

/** What is known of the server that answered (local servers; vendors: absent). */
export interface ServerTraits {
  /** It cuts a prompt over its context silently instead of refusing it. */
  truncates: boolean;
  /** Its count leaves out the prefix it had cached. */
  uncachedUsage: boolean;
}

export interface ReportInput {
  model: string;
  request: ProviderRequest;
  /** The figure as reported: uncached input + cache reads + cache writes. */
  reported: number;
  /** Headroom's raw (uncalibrated) count of the whole request: tokenizer counts or safe estimates. */
  estimate: number;
  /**
   * The least `estimate` can over-count the request by its own rules: tokenizer counts as they are,
   * safe estimates divided by their largest over-count, a family's class factors undone. Default `estimate`.
   */
  lowest?: number;
  /** Raw tokens of the request's trailing note (a server's cache ends where the note starts). */
  noteTokens: number;
  /** Output tokens of the reply (a server's cache holds them after the request). */
  output: number;
  /** The window the request was budgeted against. */
  contextWindow: number;
  server?: ServerTraits;
  /** Headroom's calibrated count of the whole request (what the meter showed for it). */
  counted: number;
  /** Calibrated tokens of what `request` shares at its start with `previous` (system text, tools, leading messages). */
  shared?: (previous: ProviderRequest) => number;
}

export interface ReportVerdict {
  /** The request's whole prompt as Headroom reads the figure (the cached prefix added back when left out). */
  total: number;
  /** The figure may become the confirmed base. */
  confirm: boolean;
  /** The figure may calibrate the estimates. */
  calibrate: boolean;
  /** Why it was not used, when it was not. */
  doubt?: Doubt;
  /** The server may have cut the conversation: compact and ask it for its window again. */
  truncation?: boolean;
}

interface Accepted {
  request: ProviderRequest;
  total: number;
  estimate: number;
  noteTokens: number;
  output: number;
  /** total / estimate when it was below 1 (waiting for a second report to agree). */
  low?: number;
}

/** True when `later` starts with every message of `earlier` (the same objects). */
function continues(earlier: readonly Message[], later: readonly Message[]): boolean {
  if (later.length < earlier.length) return false;
  for (let i = 0; i < earlier.length; i++) if (earlier[i] !== later[i]) return false;
  return true;
}

const finite = (v: number) => (Number.isFinite(v) && v > 0 ? v : 0);

/** The reports of one session, per model: the last one used, and what a second report must agree with. */
export class UsageEvidence {
  private readonly last = new Map<string, Accepted>();
  /**
   * Per model, how far Headroom's raw count fell short of a server that counts without its cache on the
   * first request (which it evaluated whole, if it had nothing cached). What a later request shares
   * with the last one is mostly the system prompt and tools that first request held. Kept against the
   * raw count: calibration learns the same shortfall, and a calibrated count must not get it twice.
   */
  private readonly shortfall = new Map<string, number>();

  /**
   * A figure looked truncated: the session's next request compacts first, as after an overflow. Kept
   * here (per session), not in a gate: the window is read again after such a figure, and a new gate
   * for the new limits must still know.
   */
  private truncated = false;

  /** Judges one report (see the module comment) and remembers it when it is used. */
  judge(input: ReportInput): ReportVerdict {
    const prev = this.last.get(input.model);
    const estimate = finite(input.estimate);
    let total = finite(input.reported);
    let calibrate = true;
    if (input.server?.uncachedUsage) {
      const read = this.withCachedPrefix(prev, input, total);
      if (read === undefined) {
        // The first figure: what the server had cached (from before) is unknown, so it is not used; the
        // request was at least that, and Headroom's count otherwise, which carries on to the next one.
        this.last.set(input.model, this.entry(input, Math.max(total, finite(input.counted))));
        if (finite(input.estimate) > 0) this.shortfall.set(input.model, total / finite(input.estimate));
        return { total, confirm: false, calibrate: false, doubt: 'partial', truncation: false };
      }
      total = read.total;
      // A prefix Headroom had to count itself may confirm the figure but not calibrate with it.
      if (!read.continued) calibrate = false;
    }
    const doubt = this.doubt(input, total, estimate, finite(input.lowest ?? estimate), prev);
    if (doubt) {
      // A server that counts without its cache holds this request now whatever its figure: the next
      // figure continues from it (at least what it evaluated, else Headroom's count).
      if (input.server?.uncachedUsage)
        this.last.set(input.model, { ...this.entry(input, Math.max(total, finite(input.counted))), low: prev?.low });
      const truncation = input.server?.truncates === true && doubt !== 'far-above';
      if (truncation) this.truncated = true;
      return { total, confirm: false, calibrate: false, doubt, truncation };
    }
    const ratio = estimate > 0 ? total / estimate : 1;
    const accepted = this.entry(input, total);
    let confirm = true;
    if (ratio < 1 && estimate >= MIN_SAMPLE_TOKENS) {
      const agreed = prev?.low !== undefined && Math.abs(ratio - prev.low) <= AGREEMENT * prev.low;
      calibrate &&= agreed;
      // A silently truncating server's low figure may be a cut prompt: it waits for a second one too.
      confirm = agreed || input.server?.truncates !== true;
      if (!agreed) accepted.low = ratio;
    }
    this.last.set(input.model, accepted);
    return { total, confirm, calibrate };
  }

  private entry(input: ReportInput, total: number): Accepted {
    return { request: input.request, total, estimate: finite(input.estimate), noteTokens: input.noteTokens, output: finite(input.output) };
  }

  /** Whether the last judged figure looked truncated, and forgets it (the next request takes it). */
  takeTruncation(): boolean {
    const was = this.truncated;
    this.truncated = false;
    return was;
  }

  /** Forgets everything (another session). */
  reset(): void {
    this.last.clear();
    this.shortfall.clear();
    this.truncated = false;
  }

  /**
   * A count without the cached prefix, read as the whole request. When the request continues the last
   * one: plus that request's total (its note and what followed were evaluated again; without a note its
   * reply stayed in the cache too). Otherwise (after a compaction) the truth lies between the figure
   * (nothing was cached: a summary request may have replaced the cache) and the figure plus Headroom's
   * count of what the request shares with the last one (all of that was cached); which one, the figure
   * says: it is near Headroom's count of either the whole request or its unshared part. Undefined for
   * the very first figure.
   */
  private withCachedPrefix(
    prev: Accepted | undefined,
    input: ReportInput,
    reported: number,
  ): { total: number; continued: boolean } | undefined {
    if (!prev) return undefined;
    if (continues(prev.request.messages, input.request.messages) && prev.request.tools.length === input.request.tools.length)
      return { total: reported + Math.max(0, prev.noteTokens ? prev.total - prev.noteTokens : prev.total + prev.output), continued: true };
    // `shared` is calibrated: only what calibration has not yet learned of the shortfall is added
    // (the calibrated count over the raw one is the factor applied now); at least 1.
    const applied = finite(input.estimate) > 0 && finite(input.counted) > 0 ? finite(input.counted) / finite(input.estimate) : 1;
    const shortfall = Math.max(1, (this.shortfall.get(input.model) ?? 1) / applied);
    const kept = input.shared ? Math.min(prev.total, shortfall * finite(input.shared(prev.request))) : 0;
    // The figure nearer Headroom's count of the whole request than of its unshared part: the server
    // evaluated it all (a summary request replaced the cache); nearer the unshared part: it kept the rest.
    const counted = finite(input.counted);
    const gone = Math.abs(reported - counted) <= Math.abs(reported - (counted - kept));
    return { total: gone ? reported : reported + kept, continued: false };
  }

  private doubt(input: ReportInput, total: number, estimate: number, lowest: number, prev: Accepted | undefined): Doubt | undefined {
    if (estimate >= MIN_SAMPLE_TOKENS) {
      if (total > FAR_ABOVE * estimate + SLACK) return 'far-above';
      if (total < FAR_BELOW * Math.min(lowest, estimate)) return 'far-below';
    }
    if (input.server?.truncates && total >= AT_WINDOW * input.contextWindow) return 'at-window';
    if (prev && continues(prev.request.messages, input.request.messages)) {
      const grown = estimate - prev.estimate;
      if (grown > Math.max(SLACK, 0.1 * prev.estimate) && total < prev.total + GROWTH_SHARE * grown) return 'not-growing';
    }
    return undefined;
  }
}
