/**
 * Per-model calibration of token estimates against what the provider reports (DESIGN §3).
 * The factor is `reported / estimated`, bounded to [MIN_FACTOR, MAX_FACTOR] and smoothed (the first
 * sample is taken as is, later ones by an exponential moving average). Never NaN, zero or negative;
 * never throws. Serializable so the store can persist it.
 */
import type { Usage } from '../providers/types';
import { accuracyLabel } from './budget';

export const MIN_FACTOR = 0.5;
export const MAX_FACTOR = 2;
/** Weight of a new sample in the moving average. */
export const SMOOTHING = 0.5;
/** Estimates smaller than this say too little about the ratio and are ignored. */
export const MIN_SAMPLE_TOKENS = 64;
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
    return next;
  }

  /** The model's correction factor (1 before any sample). */
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
