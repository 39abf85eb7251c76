/**
 * Built-in model table and the resolution of a model's limits: per-model setting → what the provider
 * reports (Models API, the editor, a local server) → the table (the offline fallback, dated) → a
 * default the header names as assumed. Pure data and functions; never throws.
 */
import { providerEntry, type CacheSupport, type ProviderId } from '../common/provider-catalogue';
import type { EffortLevel, ModelCapabilities, ModelLifecycle, ProviderModelInfo, ThinkingStyle } from '../providers/model-info';
import { capabilitiesOf } from './model-capabilities';
import table from './model-table.json';
import type { ContextSettings, ModelLimitOverride } from './settings';
import type { ContentClass } from './text-composition';

/**
 * How a model's tokens are counted. `o200k` and `cl100k` are exact BPE encodings; `claude` is an
 * upper bound of the public Claude tokenizer (`worker-count.ts`), corrected later by calibration.
 */
export type TokenizerFamily = 'o200k' | 'cl100k' | 'claude';

export type { CacheSupport } from '../common/provider-catalogue';

/** Prices in USD per million tokens. `cacheWrite` is 0 where caching is automatic and free to write. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * One row of the built-in table (`model-table.json`, the data's only home). `match` is a model-id
 * prefix; the longest matching prefix wins.
 */
export interface ModelInfo {
  match: string;
  provider: ProviderId;
  contextWindow: number;
  maxOutput: number;
  family: TokenizerFamily;
  cache: CacheSupport;
  /** The model reasons before answering (its `thinking` is not `none`). */
  reasoning: boolean;
  /** How it takes thinking, the efforts it declares, whether thinking can be off. */
  thinking: ThinkingStyle;
  efforts: readonly EffortLevel[];
  thinkingOff: boolean;
  /** It accepts `temperature` / `top_p` / `top_k` (adaptive-only Claude models answer them with a 400). */
  sampling: boolean;
  /** The model accepts image input (pasted or dropped into the composer). */
  images: boolean;
  lifecycle: ModelLifecycle;
  retiresAt?: string;
  price: ModelPrice;
}

/** A row as the JSON holds it: the defaults left out. */
type TableRow = Omit<ModelInfo, 'reasoning' | 'efforts' | 'thinkingOff' | 'sampling' | 'lifecycle' | 'thinking' | 'family'> &
  Partial<Pick<ModelInfo, 'efforts' | 'thinkingOff' | 'sampling' | 'lifecycle'>> & { thinking: string; family: string };

/**
 * The most Claude tokens per o200k token a text of each content class (`safe-estimate.ts`) takes, for
 * the worker's Claude figure (`worker-count.ts`: the exact o200k count times this, until the provider's
 * usage calibrates the class). Each is the worst ratio of the public
 * (legacy) Claude tokenizer, `@anthropic-ai/tokenizer`, to exact o200k over every 4 KiB slice of that
 * class in the real-text corpus (`test/fixtures/corpus`), rounded up to 0.05, and never below the worst
 * ratios measured before on 31.8 MB of public text (Japanese 1.60, shell output 1.69, minified JS 1.49,
 * Go 1.51, Chinese 1.46). The corpus's worst: prose 1.71 (`find` output: paths), code 1.58, structured
 * 1.45, dense 1.42, cjk 1.84 (Korean), script 4.93 (Khmer: the legacy tokenizer spends a token or more a
 * character where o200k has whole words; Hindi and Arabic 2–3.5), emoji 1.32.
 * Test: `context-safe-estimate.test.ts` (the worker's Claude figure on every slice and file).
 */
export const CLAUDE_CLASS_FACTORS: Readonly<Record<ContentClass, number>> = {
  prose: 1.75,
  code: 1.75,
  structured: 1.7,
  dense: 1.7,
  cjk: 1.9,
  script: 5,
  emoji: 1.6,
};

/**
 * The worker's Claude figure for a text of class `cls` that has `o200k` tokens. Calibration learns on
 * this scale, so a Claude estimate is put on it too (`MessageCount.bound`) before a learned factor applies.
 */
export function claudeBound(o200k: number, cls: ContentClass | undefined): number {
  return Math.ceil(o200k * CLAUDE_CLASS_FACTORS[cls ?? 'prose']);
}
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_BUFFER_FRACTION = 0.02;

/** Current models (ids as the providers spell them; dated snapshots match by prefix). Checked by a unit test. */
export const MODEL_TABLE: readonly ModelInfo[] = (table.models as TableRow[]).map((row) => ({
  ...row,
  family: row.family as TokenizerFamily,
  thinking: row.thinking as ThinkingStyle,
  reasoning: row.thinking !== 'none',
  efforts: row.efforts ?? [],
  // An OpenAI reasoning model turns reasoning off only where it declares effort `none`.
  thinkingOff: row.thinkingOff ?? row.thinking !== 'effort',
  sampling: row.sampling ?? true,
  lifecycle: row.lifecycle ?? 'active',
}));

/** The day the table was last checked against the providers' pages (`model-table.json` `checked`). */
export const MODEL_TABLE_CHECKED: string = table.checked;

/**
 * Where the context window came from. `default` means the model is unknown and 128k was assumed;
 * `server` means a local server (or the editor) reported the context length it really uses;
 * `provider` means the provider's own model list (Anthropic's Models API) said it.
 */
export type LimitSource = 'model-setting' | 'provider-setting' | 'provider' | 'table' | 'server' | 'default';

/** A context length a local server reported for the model (see providers/server-discovery). */
export interface ServerReportedWindow {
  contextWindow: number;
  /** Who reported it, for messages (e.g. 'ollama'). */
  kind: string;
  /** The server runs with the window each request asks for (Ollama's `num_ctx`): a setting is not capped by the report. */
  adjustable?: boolean;
}

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
  /** True when the provider described the model or it is in the built-in table. */
  known: boolean;
  /** How it takes thinking, images and sampling parameters, and its context-management strategies. */
  capabilities: ModelCapabilities;
  lifecycle: ModelLifecycle;
  retiresAt?: string;
  /** Adjustments made to keep the limits usable (e.g. a maxOutput larger than the window). */
  warnings: string[];
}

/** Looks a model id up in the table (case-insensitive, longest prefix, tolerates a `provider/` prefix). */
export function findModel(model: string): ModelInfo | undefined {
  const id = model.trim().toLowerCase();
  const bare = id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id;
  let best: ModelInfo | undefined;
  for (const row of MODEL_TABLE) {
    if (
      (bare === row.match || bare.startsWith(row.match + '-') || bare.startsWith(row.match + '.')) &&
      (!best || row.match.length > best.match.length)
    ) {
      best = row;
    }
  }
  return best;
}

/** The tokenizer family to use for a model on a provider, also for models not in the table. */
export function familyFor(model: string, provider: ProviderId): TokenizerFamily {
  const row = findModel(model);
  if (row) return row.family;
  if (/claude/i.test(model)) return 'claude';
  return providerEntry(provider).tokenizer;
}

/**
 * True when the model reasons (so its reasoning must be carried between requests and a thinking
 * budget applies). Models not in the table: OpenAI's o-series and gpt-5 families by their id.
 */
export function supportsReasoning(model: string): boolean {
  return thinkingStyleOf(model) !== 'none';
}

/** OpenAI ids of reasoning models not in the table (o-series, gpt-5 and later but their chat variants). */
const REASONING_ID = /^(o\d|gpt-([5-9]|\d\d)(?![.\d]*-chat))/;

/** How a model takes thinking by the table, else by its id (OpenAI reasoning ids: an effort). */
export function thinkingStyleOf(model: string): ThinkingStyle {
  const row = findModel(model);
  if (row) return row.thinking;
  const id = model.trim().toLowerCase();
  const bare = id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id;
  return REASONING_ID.test(bare) ? 'effort' : 'none';
}

/**
 * Whether the model takes images: the table's word; Claude models not in the table do (every Claude
 * since 3 does); VS Code's chat models take none through the API Headroom uses; any other model is
 * unknown (undefined): an OpenAI-compatible server serves models Headroom cannot know, so the panel
 * lets the image through and the server's answer says whether it could read it.
 */
export function acceptsImages(model: string, provider: ProviderId): boolean | undefined {
  if (providerEntry(provider).endpoint === 'vscode') return false;
  const row = findModel(model);
  if (row) return row.images;
  if (/claude/i.test(model)) return true;
  return undefined;
}

/**
 * Whether the model loads deferred tools by reference (Anthropic's `defer_loading` with a custom tool
 * search's `tool_reference`, https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool:
 * Claude Sonnet and Opus 4 and later, Haiku 4.5 and later). The Models API does not declare it, so the id
 * decides: every Claude model since the 4 generation (Haiku 4 never shipped), none before.
 */
export function loadsToolsByReference(model: string, provider: ProviderId): boolean {
  if (provider !== 'anthropic') return false;
  const id = model.trim().toLowerCase();
  const bare = id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id;
  return /^claude-/.test(bare) && !/^claude-(instant|[1-3]\b|[1-3]-)/.test(bare);
}

const positiveInt = (n: number | undefined): number | undefined =>
  n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;

/**
 * Resolves window, max output and buffer: per-model setting → provider setting → table → defaults
 * (128k window, maxOutput = floor(window / 4), buffer = 2 % of the window). Never throws; unknown
 * models get the defaults with `source: 'default'` and `known: false`.
 *
 * A window a local server reported (`server`) is the truth about what it will process: it replaces
 * the table and the default, and caps a setting that claims more (with a warning), because a server
 * given more than its context either refuses the request or, like Ollama, silently drops its start.
 */
export function resolveModelLimits(
  model: string,
  provider: ProviderId,
  settings?: Pick<ContextSettings, 'models' | 'providers' | 'bufferFraction'>,
  server?: ServerReportedWindow,
  described?: ProviderModelInfo,
): ModelLimits {
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
  } else if (positiveInt(described?.contextWindow)) {
    contextWindow = positiveInt(described?.contextWindow)!;
    source = 'provider';
  } else if (row) {
    contextWindow = row.contextWindow;
    source = 'table';
  }
  const reported = positiveInt(server?.contextWindow);
  const fromSetting = source === 'model-setting' || source === 'provider-setting';
  // A server that runs with the window each request asks for (Ollama's num_ctx) takes a setting as it is.
  if (server && reported && !(fromSetting && server.adjustable)) {
    if (fromSetting && contextWindow > reported) {
      warnings.push(
        `contextWindow ${contextWindow} is larger than the ${reported} tokens the ${server.kind} server uses; using ${reported}`,
      );
    }
    if (!fromSetting || contextWindow > reported) {
      contextWindow = reported;
      source = 'server';
    }
  }

  let maxOutput =
    positiveInt(perModel.maxOutput) ??
    positiveInt(perProvider.maxOutput) ??
    positiveInt(described?.maxOutput) ??
    row?.maxOutput ??
    Math.floor(contextWindow / 4);
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
    cache: row?.cache ?? providerEntry(provider).cache,
    source,
    known: row !== undefined || described !== undefined,
    capabilities: capabilitiesOf(model, provider, row, described),
    lifecycle: described?.lifecycle ?? row?.lifecycle ?? 'active',
    ...((described?.retiresAt ?? row?.retiresAt) ? { retiresAt: described?.retiresAt ?? row?.retiresAt } : {}),
    warnings,
  };
}

/** The table's models of one provider, for `Headroom: Select Model`. OpenAI-compatible servers have no table. */
export function modelsFor(provider: ProviderId): ModelInfo[] {
  return MODEL_TABLE.filter((m) => m.provider === provider);
}

/** The model used when `headroom.model` is empty; undefined for OpenAI-compatible servers (any id goes). */
export function defaultModelFor(provider: ProviderId): string | undefined {
  return modelsFor(provider).length ? providerEntry(provider).defaultModel : undefined;
}

/** A model's prices, when the table knows it (OpenAI-compatible servers and unknown models: undefined). */
export function pricesFor(model: string): ModelPrice | undefined {
  return findModel(model)?.price;
}
