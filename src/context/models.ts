/**
 * Built-in model table and the resolution of a model's limits (DESIGN §3 "Window resolution").
 * Pure data and functions; never throws.
 */
import type { ProviderId } from '../providers/types';
import type { ContextSettings, ModelLimitOverride } from './settings';

/**
 * How a model's tokens are counted. `o200k` and `cl100k` are exact BPE encodings; `claude` is an
 * estimate (o200k count × `CLAUDE_TOKEN_FACTOR`), corrected later by calibration.
 */
export type TokenizerFamily = 'o200k' | 'cl100k' | 'claude';

/** Prompt caching a model supports: Anthropic-style explicit breakpoints, OpenAI automatic prefix caching, or none. */
export type CacheSupport = 'explicit' | 'automatic' | 'none';

/** One row of the built-in table. `match` is a model-id prefix; the longest matching prefix wins. */
export interface ModelInfo {
  match: string;
  provider: 'anthropic' | 'openai';
  contextWindow: number;
  maxOutput: number;
  family: TokenizerFamily;
  cache: CacheSupport;
}

/** Claude's tokenizer yields roughly this many tokens per o200k token on English and code. */
export const CLAUDE_TOKEN_FACTOR = 1.15;
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_BUFFER_FRACTION = 0.02;

const A = (match: string, contextWindow: number, maxOutput: number): ModelInfo => ({
  match,
  provider: 'anthropic',
  contextWindow,
  maxOutput,
  family: 'claude',
  cache: 'explicit',
});
const O = (match: string, contextWindow: number, maxOutput: number, family: TokenizerFamily = 'o200k', cache: CacheSupport = 'automatic'): ModelInfo => ({
  match,
  provider: 'openai',
  contextWindow,
  maxOutput,
  family,
  cache,
});

/** Current models (ids as the providers spell them; dated snapshots match by prefix). */
export const MODEL_TABLE: readonly ModelInfo[] = [
  A('claude-opus-4-5', 200_000, 64_000),
  A('claude-opus-4-1', 200_000, 32_000),
  A('claude-opus-4', 200_000, 32_000),
  A('claude-sonnet-4-5', 200_000, 64_000),
  A('claude-sonnet-4', 200_000, 64_000),
  A('claude-haiku-4-5', 200_000, 64_000),
  A('claude-3-7-sonnet', 200_000, 64_000),
  A('claude-3-5-sonnet', 200_000, 8_192),
  A('claude-3-5-haiku', 200_000, 8_192),
  A('claude-3-haiku', 200_000, 4_096),
  A('claude-3-opus', 200_000, 4_096),
  O('gpt-5-chat', 128_000, 16_384),
  O('gpt-5', 400_000, 128_000),
  O('gpt-4.1', 1_047_576, 32_768),
  O('gpt-4o', 128_000, 16_384),
  O('chatgpt-4o', 128_000, 16_384),
  O('gpt-4.5', 128_000, 16_384),
  O('gpt-4-turbo', 128_000, 4_096, 'cl100k'),
  O('gpt-4', 8_192, 8_192, 'cl100k', 'none'),
  O('gpt-3.5-turbo', 16_385, 4_096, 'cl100k', 'none'),
  O('o4-mini', 200_000, 100_000),
  O('o3', 200_000, 100_000),
  O('o1', 200_000, 100_000),
  O('o1-mini', 128_000, 65_536),
  O('codex-mini', 200_000, 100_000),
];

/** Where the context window came from. `default` means the model is unknown and 128k was assumed. */
export type LimitSource = 'model-setting' | 'provider-setting' | 'table' | 'default';

/** A model's resolved limits. `effectiveWindow = contextWindow − maxOutput − buffer` (always ≥ 1). */
export interface ModelLimits {
  model: string;
  provider: ProviderId;
  contextWindow: number;
  maxOutput: number;
  buffer: number;
  effectiveWindow: number;
  family: TokenizerFamily;
  cache: CacheSupport;
  /** Source of `contextWindow`. */
  source: LimitSource;
  /** True when the model is in the built-in table. */
  known: boolean;
  /** Adjustments made to keep the limits usable (e.g. a maxOutput larger than the window). */
  warnings: string[];
}

/** Looks a model id up in the table (case-insensitive, longest prefix, tolerates a `provider/` prefix). */
export function findModel(model: string): ModelInfo | undefined {
  const id = model.trim().toLowerCase();
  const bare = id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id;
  let best: ModelInfo | undefined;
  for (const row of MODEL_TABLE) {
    if ((bare === row.match || bare.startsWith(row.match + '-') || bare.startsWith(row.match + '.')) && (!best || row.match.length > best.match.length)) {
      best = row;
    }
  }
  return best;
}

/** The tokenizer family to use for a model on a provider, also for models not in the table. */
export function familyFor(model: string, provider: ProviderId): TokenizerFamily {
  const row = findModel(model);
  if (row) return row.family;
  if (provider === 'anthropic' || /claude/i.test(model)) return 'claude';
  return 'o200k';
}

const positiveInt = (n: number | undefined): number | undefined =>
  n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;

/**
 * Resolves window, max output and buffer: per-model setting → provider setting → table → defaults
 * (128k window, maxOutput = floor(window / 4), buffer = 2 % of the window). Never throws; unknown
 * models get the defaults with `source: 'default'` and `known: false`.
 */
export function resolveModelLimits(model: string, provider: ProviderId, settings?: Pick<ContextSettings, 'models' | 'providers' | 'bufferFraction'>): ModelLimits {
  const row = findModel(model);
  const perModel: ModelLimitOverride = settings?.models?.[model] ?? {};
  const perProvider: ModelLimitOverride = settings?.providers?.[provider] ?? {};
  const warnings: string[] = [];

  let source: LimitSource = 'default';
  let contextWindow = DEFAULT_CONTEXT_WINDOW;
  if (positiveInt(perModel.contextWindow)) {
    contextWindow = positiveInt(perModel.contextWindow)!;
    source = 'model-setting';
  } else if (positiveInt(perProvider.contextWindow)) {
    contextWindow = positiveInt(perProvider.contextWindow)!;
    source = 'provider-setting';
  } else if (row) {
    contextWindow = row.contextWindow;
    source = 'table';
  }

  let maxOutput = positiveInt(perModel.maxOutput) ?? positiveInt(perProvider.maxOutput) ?? row?.maxOutput ?? Math.floor(contextWindow / 4);
  // A reservation of half the window or more would leave no room for the conversation.
  const maxOutputCap = Math.max(1, Math.floor(contextWindow / 2));
  if (maxOutput > maxOutputCap) {
    warnings.push(`maxOutput ${maxOutput} is too large for a ${contextWindow}-token window; using ${maxOutputCap}`);
    maxOutput = maxOutputCap;
  }

  const fraction = settings?.bufferFraction ?? DEFAULT_BUFFER_FRACTION;
  let buffer = positiveInt(perModel.bufferTokens) ?? positiveInt(perProvider.bufferTokens) ?? Math.ceil(contextWindow * fraction);
  const bufferCap = Math.max(0, contextWindow - maxOutput - 1);
  if (buffer > bufferCap) {
    warnings.push(`buffer ${buffer} leaves no room in a ${contextWindow}-token window; using ${bufferCap}`);
    buffer = bufferCap;
  }

  return {
    model,
    provider,
    contextWindow,
    maxOutput,
    buffer,
    effectiveWindow: Math.max(1, contextWindow - maxOutput - buffer),
    family: row?.family ?? familyFor(model, provider),
    cache: row?.cache ?? (provider === 'anthropic' ? 'explicit' : provider === 'openai' ? 'automatic' : 'none'),
    source,
    known: row !== undefined,
    warnings,
  };
}

/** The table's models of one provider, for `Headroom: Select Model`. OpenAI-compatible servers have no table. */
export function modelsFor(provider: ProviderId): ModelInfo[] {
  return MODEL_TABLE.filter((m) => m.provider === provider);
}

/** The model used when `headroom.model` is empty; undefined for OpenAI-compatible servers (any id goes). */
export function defaultModelFor(provider: ProviderId): string | undefined {
  if (provider === 'anthropic') return 'claude-sonnet-4-5';
  if (provider === 'openai') return 'gpt-4.1';
  return undefined;
}
