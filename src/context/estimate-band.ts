/**
 * The error band of the meter's estimate, from observed errors. For each
 * model and content class it keeps the relative errors of recent estimates against what the provider
 * then reported, and states the band as the largest of them with a margin, so the band shown contains
 * the errors seen, not their average. Before a class has been seen, a prior for that class stands
 * (wider for text another provider's tokenizer splits differently: CJK, other scripts, emoji). Pure state; never throws; never NaN.
 */
import type { Message } from '../providers/types';
import { CLAUDE_CLASS_FACTORS } from './models';
import { CONTENT_CLASSES, type ContentClass } from './text-composition';

/**
 * What an estimate's error depends on: the content class of tokenizer counts (`text-composition.ts`),
 * `tools` for tool definitions (their framing on the wire differs from one provider to the next), or
 * `unmeasured` for safe estimates still waiting for the tokenizer.
 */
export type BandClass = ContentClass | 'tools' | 'repetitive' | 'unmeasured';
const BAND_CLASSES: readonly BandClass[] = [...CONTENT_CLASSES, 'tools', 'repetitive', 'unmeasured'];
/**
 * How far a safe estimate can be from the truth: it never under-counts the corpus (bench
 * `count_worst_undercount`) but over-counts code by up to ~60 %. Never learned, always stated.
 */
export const UNMEASURED_BAND = 0.6;

/**
 * Band assumed for a class before any sample. Until a class is calibrated its count may be far from
 * another provider's: the uncalibrated Claude figure is the exact o200k count times the class's worst
 * Claude/o200k ratio (`CLAUDE_CLASS_FACTORS`, up to 5 for Khmer) where the real ratio can be nearer 1,
 * an over-read of up to 1 − 1/factor of the figure; local models' tokenizers differ as much. So each
 * class's prior is that over-read (at least 45 %), plus two points.
 */
const claudePrior = (cls: ContentClass) => Math.min(0.95, Math.max(0.45, 1 - 1 / CLAUDE_CLASS_FACTORS[cls] + 0.02));
export const PRIOR_BAND: Readonly<Record<Exclude<BandClass, 'unmeasured'>, number>> = {
  prose: claudePrior('prose'),
  code: claudePrior('code'),
  structured: claudePrior('structured'),
  dense: claudePrior('dense'),
  cjk: claudePrior('cjk'),
  script: claudePrior('script'),
  emoji: Math.max(0.5, claudePrior('emoji')),
  tools: 0.45,
  repetitive: 0.95,
};
/**
 * The narrowest band a class can get from samples. Runs of one character cost anywhere from ×2 ('a')
 * to ×16 ('-') fewer tokens than their length suggests depending on the character and the tokenizer, so
 * no sample of one run vouches for the next.
 */
export const MIN_BAND: Readonly<Partial<Record<BandClass, number>>> = { repetitive: PRIOR_BAND.repetitive };
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

  /** Relative band of estimates of class `cls` for this model (0.01…1; `unmeasured`: 0.6). */
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

const SAMPLE = 4096;

/** True when a text is mostly runs of one character or a handful of characters (rulers, padding). */
export function isRepetitive(text: string): boolean {
  const s = text.length > SAMPLE ? text.slice(0, SAMPLE / 2) + text.slice(-SAMPLE / 2) : text;
  if (s.length < 64) return false;
  // Code units and a 5-slot list, not a Set of strings: the first meter after a resume runs this on
  // every message of the context (thousands), and it must cost microseconds each.
  let repeats = 0;
  const distinct: number[] = [];
  let prev = -1;
  const half = s.length / 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === prev) repeats++;
    else if (distinct.length <= 4 && !distinct.includes(c)) distinct.push(c);
    // Five characters seen and more than half of the text not a repeat: the answer is already no.
    else if (distinct.length > 4 && i + 1 - repeats > half) return false;
    prev = c;
  }
  return repeats / s.length > 0.5 || distinct.length <= 4;
}

/** The text of a message's parts (sampled: at most a few × `SAMPLE` characters), for `isRepetitive`. */
export function messageSampleText(message: Message): string {
  let text = '';
  for (const p of message.content) {
    if (p.type === 'text' || p.type === 'reasoning') text += p.text;
    else if (p.type === 'toolCall') text += p.rawArguments ?? JSON.stringify(p.arguments ?? {});
    if (text.length > SAMPLE * 4) break;
  }
  return text;
}
