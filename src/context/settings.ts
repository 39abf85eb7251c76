/**
 * The context engine's settings, validated with zod. Bad values never break anything: each invalid
 * field is reported with a clear message and its default is kept.
 */
import { CACHE_LIFETIME_SETTINGS, type CacheLifetimeSetting } from './cache-lifetime';
import { z } from 'zod';

/** Guard thresholds as fractions of the effective window. Must satisfy note ≤ background ≤ compact ≤ block. */
export interface Thresholds {
  /** Awareness note to the model. */
  note: number;
  /** Background summary prepared. */
  background: number;
  /** Compaction before the next request. */
  compact: number;
  /** Forced compaction; if still over, a forced final turn. */
  block: number;
}

/** Per-model or per-provider overrides of the model table. */
export interface ModelLimitOverride {
  contextWindow?: number;
  maxOutput?: number;
  bufferTokens?: number;
}

/** Everything the context engine reads from `headroom.*` settings. */
export interface ContextSettings {
  thresholds: Thresholds;
  /** Tool results larger than this are offloaded to the result store. */
  offloadThresholdBytes: number;
  /** Buffer as a fraction of the window when no explicit buffer is set. */
  bufferFraction: number;
  /** Rolling time window in ms; 0 = off (only the last clear bounds the context). */
  rollingWindowMs: number;
  /** Trace every guard evaluation to the log channel. */
  debug: boolean;
  /** Overrides keyed by model id. */
  models: Record<string, ModelLimitOverride>;
  /** Overrides keyed by provider id. */
  providers: Record<string, ModelLimitOverride>;
  /** How long the prompt cache keeps a request's prefix (`context/cache-lifetime.ts`). */
  cacheLifetime: CacheLifetimeSetting;
}

export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = Object.freeze({ note: 0.8, background: 0.85, compact: 0.95, block: 0.98 });

export function defaultContextSettings(): ContextSettings {
  return {
    thresholds: { ...DEFAULT_THRESHOLDS },
    offloadThresholdBytes: 4096,
    bufferFraction: 0.02,
    rollingWindowMs: 0,
    debug: false,
    models: {},
    providers: {},
    cacheLifetime: 'auto',
  };
}

const fraction = z.number().finite().gt(0).lte(1);
const tokens = z.number().int().positive();
const override = z.strictObject({
  contextWindow: tokens.optional(),
  maxOutput: tokens.optional(),
  bufferTokens: z.number().int().nonnegative().optional(),
});

/** Field validators; each is checked on its own so one bad value does not discard the others. */
const FIELDS = {
  offloadThresholdBytes: z.number().int().min(256).max(1_048_576),
  bufferFraction: z.number().finite().min(0).max(0.25),
  rollingWindowMs: z.number().int().nonnegative(),
  debug: z.boolean(),
  models: z.record(z.string(), override),
  providers: z.record(z.string(), override),
  cacheLifetime: z.enum(CACHE_LIFETIME_SETTINGS as [CacheLifetimeSetting, ...CacheLifetimeSetting[]]),
} as const;

const describe = (v: unknown): string => {
  try {
    return typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    return String(v);
  }
};

const issueText = (err: z.ZodError): string => err.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message).join('; ');

/** Result of parsing: always usable settings, plus one human-readable message per rejected value. */
export interface ParsedContextSettings {
  settings: ContextSettings;
  errors: string[];
}

/**
 * Parses raw settings (e.g. the `headroom` configuration section as plain JSON). Never throws.
 * Unknown keys are ignored; an invalid value is reported as
 * `headroom.<key>: <problem> (got <value>); using <default>` and its default kept. Thresholds must each be
 * in (0, 1] and ordered note ≤ background ≤ compact ≤ block; if the order is broken all four defaults are kept.
 */
export function parseContextSettings(raw: unknown): ParsedContextSettings {
  const settings = defaultContextSettings();
  const errors: string[] = [];
  if (raw === undefined || raw === null) return { settings, errors };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { settings, errors: [`headroom: settings must be an object (got ${describe(raw)}); using defaults`] };
  }
  const input = raw as Record<string, unknown>;

  for (const key of Object.keys(FIELDS) as Array<keyof typeof FIELDS>) {
    if (input[key] === undefined) continue;
    const r = FIELDS[key].safeParse(input[key]);
    if (r.success) (settings as unknown as Record<string, unknown>)[key] = r.data;
    else errors.push(`headroom.${key}: ${issueText(r.error)} (got ${describe(input[key])}); using ${describe(settings[key])}`);
  }

  const rawThresholds = input.thresholds;
  if (rawThresholds !== undefined) {
    if (typeof rawThresholds !== 'object' || rawThresholds === null || Array.isArray(rawThresholds)) {
      errors.push(`headroom.thresholds: must be an object like {"compact": 0.95} (got ${describe(rawThresholds)}); using defaults`);
    } else {
      const t = rawThresholds as Record<string, unknown>;
      const candidate: Thresholds = { ...DEFAULT_THRESHOLDS };
      for (const name of ['note', 'background', 'compact', 'block'] as const) {
        if (t[name] === undefined) continue;
        const r = fraction.safeParse(t[name]);
        if (r.success) candidate[name] = r.data;
        else
          errors.push(
            `headroom.thresholds.${name}: must be a fraction of the effective window in (0, 1] (got ${describe(t[name])}); using ${DEFAULT_THRESHOLDS[name]}`,
          );
      }
      if (candidate.note <= candidate.background && candidate.background <= candidate.compact && candidate.compact <= candidate.block) {
        settings.thresholds = candidate;
      } else {
        errors.push(
          `headroom.thresholds: must be ordered note ≤ background ≤ compact ≤ block (got ${describe(candidate)}); using ${describe(DEFAULT_THRESHOLDS)}`,
        );
      }
    }
  }
  return { settings, errors };
}
