import type { ProviderId } from './types';

/** One entry of the built-in model table (`Headroom: Select Model` lists these). */
export interface ModelInfo {
  id: string;
  provider: ProviderId;
  label: string;
  contextWindow: number;
  maxOutput: number;
  supportsImages: boolean;
  supportsReasoning: boolean;
}

/**
 * Built-in model table. Window resolution elsewhere prefers settings; this is the third source
 * (per-model setting → provider setting → this table → 128k default).
 */
export const MODELS: readonly ModelInfo[] = [
  { id: 'claude-sonnet-4-5', provider: 'anthropic', label: 'Claude Sonnet 4.5', contextWindow: 200_000, maxOutput: 64_000, supportsImages: true, supportsReasoning: true },
  { id: 'claude-opus-4-1', provider: 'anthropic', label: 'Claude Opus 4.1', contextWindow: 200_000, maxOutput: 32_000, supportsImages: true, supportsReasoning: true },
  { id: 'claude-haiku-4-5', provider: 'anthropic', label: 'Claude Haiku 4.5', contextWindow: 200_000, maxOutput: 64_000, supportsImages: true, supportsReasoning: true },
  { id: 'gpt-5', provider: 'openai', label: 'GPT-5', contextWindow: 400_000, maxOutput: 128_000, supportsImages: true, supportsReasoning: true },
  { id: 'gpt-5-mini', provider: 'openai', label: 'GPT-5 mini', contextWindow: 400_000, maxOutput: 128_000, supportsImages: true, supportsReasoning: true },
  { id: 'gpt-4.1', provider: 'openai', label: 'GPT-4.1', contextWindow: 1_047_576, maxOutput: 32_768, supportsImages: true, supportsReasoning: false },
  { id: 'gpt-4o', provider: 'openai', label: 'GPT-4o', contextWindow: 128_000, maxOutput: 16_384, supportsImages: true, supportsReasoning: false },
];

/** Looks a model up by id (exact, then by prefix for dated ids like `claude-sonnet-4-5-20250929`). */
export function findModel(id: string): ModelInfo | undefined {
  return MODELS.find((m) => m.id === id) ?? MODELS.find((m) => id.startsWith(m.id));
}

/** The models of one provider, for the picker. OpenAI-compatible servers have no table: any id goes. */
export function modelsFor(provider: ProviderId): ModelInfo[] {
  return MODELS.filter((m) => m.provider === provider);
}

/** The model used when the setting is empty. */
export function defaultModelFor(provider: ProviderId): string | undefined {
  return modelsFor(provider)[0]?.id;
}
