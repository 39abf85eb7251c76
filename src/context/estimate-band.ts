/**
 * The error band of the meter's estimate, from observed errors (DESIGN §3 "estimated ±x %"). For each
 * model and content class it keeps the relative errors of recent estimates against what the provider
 * then reported, and states the band as the largest of them with a margin, so the band shown contains
 * the errors seen, not their average. Before a class has been seen, a prior for that class stands
 * (wide where the estimator is known to over-read: runs of one character cost far fewer tokens than
 * the byte floor assumes). Pure state; never throws; never NaN.
 */
import { CONTENT_CLASSES, type ContentClass } from './content-class';

/**
 * What an estimate's error depends on: the content class of tokenizer counts, or `unmeasured` for
 * byte estimates still waiting for the tokenizer (they under-count dense text up to ×2.8).
 */
export type BandClass = ContentClass | 'unmeasured';
const BAND_CLASSES: readonly BandClass[] = [...CONTENT_CLASSES, 'unmeasured'];
/** How far a byte estimate can be below the truth (random base64 with o200k, DESIGN §3): never learned, always stated. */
export const UNMEASURED_BAND = 1.8;

/** Band assumed for a class before any sample. */
export const PRIOR_BAND: Readonly<Record<ContentClass, number>> = {
  prose: 0.45,
  code: 0.2,
  dense: 0.2,
  cjk: 0.2,
  repetitive: 0.95,
  tools: 0.35,
};
/**
 * The narrowest band a class can get from samples. Runs of one character are over-read anywhere from
 * ×2 ('a') to ×16 ('-') depending on the character, so no sample of one run vouches for the next.
 */
export const MIN_BAND: Readonly<Partial<Record<ContentClass, number>>> = { repetitive: PRIOR_BAND.repetitive };
/** Samples kept per model and class. */
export const BAND_SAMPLES = 16;
/** Estimated parts smaller than this say little about the error and are not recorded. */
export const MIN_BAND_SAMPLE_TOKENS = 48;
const MARGIN = 1.1;
const FLOOR = 0.01;

/** Tokens of an estimate by content class. */
export type ClassTokens = Partial<Record<BandClass, number>>;

const finite = (v: number) => (Number.isFinite(v) && v > 0 ? v : 0);

export class EstimateBand {
  private readonly samples = new Map<string, number[]>();

  /**
   * Records one estimate of a request's estimated part (`estimated` tokens, mostly of class `cls`)
   * against the provider's figure for the same part. Ignores tiny or unusable samples.
   */
  observe(model: string, cls: BandClass, estimated: number, actual: number): void {
    if (cls === 'unmeasured' || finite(estimated) < MIN_BAND_SAMPLE_TOKENS || !Number.isFinite(actual) || actual < 0) return;
    const key = `${model}\u0000${cls}`;
    const list = this.samples.get(key) ?? [];
    list.push(Math.min(1, Math.abs(estimated - actual) / estimated));
    if (list.length > BAND_SAMPLES) list.shift();
    this.samples.set(key, list);
  }

  /** Relative band of estimates of class `cls` for this model (0.01…1; `unmeasured`: 1.8). */
  band(model: string, cls: BandClass): number {
    if (cls === 'unmeasured') return UNMEASURED_BAND;
    const list = this.samples.get(`${model}\u0000${cls}`);
    if (!list?.length) return PRIOR_BAND[cls];
    return Math.min(1, Math.max(MIN_BAND[cls] ?? FLOOR, Math.max(...list) * MARGIN + FLOOR));
  }

  /** The band in tokens of an estimate made of these class shares. */
  tokens(model: string, parts: ClassTokens): number {
    let sum = 0;
    for (const cls of BAND_CLASSES) sum += finite(parts[cls] ?? 0) * this.band(model, cls);
    return Math.ceil(sum);
  }
}

/** The class holding most tokens of `parts` (`prose` when empty). */
export function dominantClass(parts: ClassTokens): BandClass {
  let best: BandClass = 'prose';
  for (const cls of BAND_CLASSES) if (finite(parts[cls] ?? 0) > finite(parts[best] ?? 0)) best = cls;
  return best;
}
