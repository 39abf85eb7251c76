/**
 * Calibration of token estimates against what the provider reports, per model AND per
 * content class. A factor is `reported / estimated`, bounded to [MIN_FACTOR, MAX_FACTOR] and smoothed
 * (the first sample is taken as is, later ones by an exponential moving average). Never NaN, zero or
 * negative; never throws. Serializable so the store can persist it.
 *
 * Per class because one per-model factor learned on English lowered the estimate of a CJK page to
 * 14.9k tokens when it was 20.5k, and a request reached 114 % of the window. The rule: a factor learned
 * on one class never lowers the estimate of another. A class without samples uses the largest factor
 * learned for the model, but never less than 1; a request lowers a class's factor only when that
 * class holds most of it, and a mixed request can only raise factors.
 */
import type { Usage } from '../providers/types';
import { accuracyLabel } from './budget';
import { CONTENT_CLASSES, type ContentClass } from './text-composition';

export const MIN_FACTOR = 0.5;
export const MAX_FACTOR = 2;
/** Weight of a new sample in the moving average. */
export const SMOOTHING = 0.5;
/** Estimates smaller than this say too little about the ratio and are ignored. */
export const MIN_SAMPLE_TOKENS = 64;
/** A class holding at least this share of a request's estimate is calibrated by it (even downwards). */
export const DOMINANT_SHARE = 0.5;
/** Classes under this share of a mixed request are not touched by it. */
const PRESENT_SHARE = 0.1;

/** Raw (uncalibrated) estimated tokens of one request by content class. */
export type TokensByClass = Partial<Record<ContentClass, number>>;

const classKey = (model: string, cls: ContentClass) => `${model}#${cls}`;
/** Error band assumed before any sample. */
export const DEFAULT_ERROR_BAND = 0.1;

/** Persisted state of one model. `error` is the smoothed relative deviation of samples from the factor. */
export interface CalibrationState {
  model: string;
  factor: number;
  samples: number;
  error: number;
}

const finitePositive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
const clamp = (v: number) => Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, v));

/** The request's whole prompt as reported: uncached input plus cache reads and writes. */
export function reportedInputTokens(usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>): number {
  const part = (v: number) => (Number.isFinite(v) && v > 0 ? v : 0);
  return part(usage.input) + part(usage.cacheRead) + part(usage.cacheWrite);
}

export class Calibration {
  private readonly states = new Map<string, CalibrationState>();
  /** `factorFor` answers, per model and class; cleared whenever a state changes. The meter asks once per message. */
  private readonly factors = new Map<string, Map<ContentClass | undefined, number>>();

  /** Restores persisted states; invalid entries are ignored. */
  constructor(states: readonly unknown[] = []) {
    for (const s of states) {
      if (typeof s !== 'object' || s === null) continue;
      const { model, factor, samples, error } = s as Record<string, unknown>;
      if (typeof model !== 'string' || !finitePositive(factor)) continue;
      this.states.set(model, {
        model,
        factor: clamp(factor),
        samples: typeof samples === 'number' && Number.isFinite(samples) && samples > 0 ? Math.floor(samples) : 0,
        error: typeof error === 'number' && Number.isFinite(error) && error >= 0 ? Math.min(1, error) : DEFAULT_ERROR_BAND,
      });
    }
  }

  /**
   * Records one request: our estimate of its whole input and the provider-reported input usage.
   * Returns the updated state; ignores unusable samples (estimate too small, reported missing or absurd).
   */
  observe(model: string, estimated: number, usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'> & Partial<Usage>): CalibrationState {
    const prev = this.state(model);
    const reported = reportedInputTokens(usage);
    if (usage.estimated || !finitePositive(estimated) || estimated < MIN_SAMPLE_TOKENS || !finitePositive(reported)) return prev;
    const ratio = clamp(reported / estimated);
    let next: CalibrationState;
    if (prev.samples === 0) {
      next = { model, factor: ratio, samples: 1, error: Math.min(DEFAULT_ERROR_BAND, Math.abs(ratio - 1)) };
    } else {
      const deviation = Math.min(1, Math.abs(ratio - prev.factor) / prev.factor);
      next = {
        model,
        factor: clamp(prev.factor + SMOOTHING * (ratio - prev.factor)),
        samples: prev.samples + 1,
        error: prev.error + SMOOTHING * (deviation - prev.error),
      };
    }
    this.states.set(model, next);
    this.factors.clear();
    return next;
  }

  /**
   * Records one request by class: our raw estimate of each class's tokens and the reported input. The
   * dominant class (≥ half of the estimate) learns the factor that explains the report given the other
   * classes' current factors; a mixed request under-counted by r raises each present class by r; a
   * mixed request over-counted changes nothing. Also feeds the whole-model state (error band).
   */
  observeClasses(model: string, byClass: TokensByClass, usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'> & Partial<Usage>): void {
    let raw = 0;
    let dominant: ContentClass | undefined;
    for (const c of CONTENT_CLASSES) {
      const v = byClass[c];
      if (!finitePositive(v)) continue;
      raw += v;
      if (dominant === undefined || v > byClass[dominant]!) dominant = c;
    }
    this.observe(model, raw, usage);
    const reported = reportedInputTokens(usage);
    if (usage.estimated || dominant === undefined || raw < MIN_SAMPLE_TOKENS || !finitePositive(reported)) return;
    const dominantRaw = byClass[dominant]!;
    if (dominantRaw >= DOMINANT_SHARE * raw) {
      // Calibrated classes are taken at their factors; the uncalibrated ones are assumed to share the
      // dominant class's ratio (charging them at 1 pushed all of their over-count onto the dominant class,
      // whose factor then under-read its own text). Only the dominant class learns from it.
      let others = 0;
      let alike = dominantRaw;
      for (const c of CONTENT_CLASSES) {
        if (c === dominant || !finitePositive(byClass[c])) continue;
        if (this.isCalibrated(model, c)) others += byClass[c] * this.factorFor(model, c);
        else alike += byClass[c];
      }
      this.update(classKey(model, dominant), Math.max(reported - others, 0) / alike);
      return;
    }
    let scaled = 0;
    for (const c of CONTENT_CLASSES) if (finitePositive(byClass[c])) scaled += byClass[c] * this.factorFor(model, c);
    const ratio = reported / scaled;
    if (!(ratio > 1)) return;
    for (const c of CONTENT_CLASSES) {
      if (!finitePositive(byClass[c]) || byClass[c] < PRESENT_SHARE * raw) continue;
      this.update(classKey(model, c), this.factorFor(model, c) * ratio, true);
    }
  }

  /**
   * The factor for text of one class: its own once it has samples, else the largest factor learned
   * for the model (whole-model or any class) but at least 1. Unknown class: the largest, at least 1.
   */
  factorFor(model: string, cls: ContentClass | undefined): number {
    let byClass = this.factors.get(model);
    if (!byClass) this.factors.set(model, (byClass = new Map<ContentClass | undefined, number>()));
    let f = byClass.get(cls);
    if (f === undefined) byClass.set(cls, (f = this.computeFactor(model, cls)));
    return f;
  }

  private computeFactor(model: string, cls: ContentClass | undefined): number {
    if (cls !== undefined) {
      const own = this.states.get(classKey(model, cls));
      if (own && own.samples > 0) return own.factor;
    }
    let f = 1;
    const whole = this.states.get(model);
    if (whole && whole.samples > 0) f = Math.max(f, whole.factor);
    for (const c of CONTENT_CLASSES) {
      const s = this.states.get(classKey(model, c));
      if (s && s.samples > 0) f = Math.max(f, s.factor);
    }
    return f;
  }

  /** True once the class has its own samples for the model. */
  isCalibrated(model: string, cls: ContentClass): boolean {
    return (this.states.get(classKey(model, cls))?.samples ?? 0) > 0;
  }

  private update(key: string, sample: number, raiseOnly = false): void {
    const prev = this.state(key);
    const ratio = clamp(sample);
    if (!Number.isFinite(ratio)) return;
    if (raiseOnly && prev.samples > 0 && ratio <= prev.factor) return;
    const next: CalibrationState =
      prev.samples === 0
        ? { model: key, factor: ratio, samples: 1, error: Math.min(DEFAULT_ERROR_BAND, Math.abs(ratio - 1)) }
        : {
            model: key,
            factor: clamp(prev.factor + SMOOTHING * (ratio - prev.factor)),
            samples: prev.samples + 1,
            error: prev.error + SMOOTHING * (Math.min(1, Math.abs(ratio - prev.factor) / prev.factor) - prev.error),
          };
    this.states.set(key, next);
    this.factors.clear();
  }

  /** The model's whole-request correction factor (1 before any sample); see `factorFor` for per-class use. */
  factor(model: string): number {
    return this.state(model).factor;
  }

  /** Applies the factor to an estimate (rounded up; 0 stays 0). */
  apply(model: string, tokens: number): number {
    return finitePositive(tokens) ? Math.ceil(tokens * this.factor(model)) : 0;
  }

  /** Relative error band of calibrated estimates for this model. */
  errorBand(model: string): number {
    const s = this.state(model);
    return s.samples === 0 ? DEFAULT_ERROR_BAND : Math.max(0.01, s.error);
  }

  /** 'confirmed' when the figure shown is provider-reported, else 'estimated ±x %'. */
  label(model: string, confirmed = false): string {
    return confirmed ? 'confirmed' : accuracyLabel(this.errorBand(model));
  }

  state(model: string): CalibrationState {
    return this.states.get(model) ?? { model, factor: 1, samples: 0, error: DEFAULT_ERROR_BAND };
  }

  /** All states, for persistence. */
  toJSON(): CalibrationState[] {
    return [...this.states.values()].map((s) => ({ ...s }));
  }
}
