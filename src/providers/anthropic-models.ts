/**
 * Anthropic's Models API (https://platform.claude.com/docs/en/api/models/list): the models a key may
 * use, each with `max_input_tokens`, `max_tokens`, `capabilities` (thinking types, effort levels,
 * image input, context-management strategies) and `lifecycle`. Without `lifecycle` in the query the
 * list holds the active and deprecated models; retired ones are left out. Every field is checked:
 * the answer is hostile input. Pure apart from the SDK call; the lister throws (the catalogue keeps
 * what it had).
 */
import Anthropic from '@anthropic-ai/sdk';
import { EFFORT_LEVELS, tokenLimit, type EffortLevel, type ModelCapabilities, type ProviderModelInfo } from './model-info';

/** At most this many models are read (pages of 100). */
const MAX_MODELS = 1_000;
const ID = /^[A-Za-z0-9][\w.:@/-]{0,199}$/;

/**
 * The model's capabilities in Headroom's words; undefined when the API gave none (the model table
 * then stands). Adaptive wins over a budget where both are taken (budgets are deprecated there);
 * sampling parameters are refused exactly where only adaptive thinking is taken
 * (https://platform.claude.com/docs/en/about-claude/models/migration-guide).
 */
export function capabilitiesFrom(c: Anthropic.ModelCapabilities | null | undefined): ModelCapabilities | undefined {
  if (!c || typeof c !== 'object') return undefined;
  const yes = (s: { supported?: unknown } | null | undefined) => s?.supported === true;
  const types = c.thinking?.types;
  const adaptive = yes(c.thinking) && yes(types?.adaptive);
  const budget = yes(c.thinking) && yes(types?.enabled);
  const efforts: EffortLevel[] = yes(c.effort) ? EFFORT_LEVELS.filter((e) => yes(c.effort?.[e])) : [];
  const cm = c.context_management;
  const strategies =
    cm && yes(cm)
      ? Object.keys(cm).filter((k) => k !== 'supported' && yes((cm as unknown as Record<string, { supported?: unknown }>)[k]))
      : [];
  return {
    thinking: adaptive ? 'adaptive' : budget ? 'budget' : 'none',
    efforts,
    // True on a model without thinking too, per the API: `disabled` is then accepted.
    thinkingOff: types?.disabled ? yes(types.disabled) : true,
    images: yes(c.image_input),
    sampling: !(adaptive && !budget),
    contextManagement: strategies.filter((k) => /^[a-z0-9_]{1,64}$/.test(k)).slice(0, 32),
  };
}

/** One listed model, checked; undefined for an entry without a usable id. */
export function fromAnthropicModel(m: Anthropic.ModelInfo): ProviderModelInfo | undefined {
  if (!m || typeof m.id !== 'string' || !ID.test(m.id)) return undefined;
  const lifecycle = m.lifecycle === 'deprecated' || m.lifecycle === 'retired' ? m.lifecycle : 'active';
  const display = typeof m.display_name === 'string' ? m.display_name.slice(0, 100) : undefined;
  const retiresAt = typeof m.retires_at === 'string' && /^\d{4}-\d{2}-\d{2}/.test(m.retires_at) ? m.retires_at.slice(0, 40) : undefined;
  const capabilities = capabilitiesFrom(m.capabilities);
  return {
    id: m.id,
    ...(display ? { displayName: display } : {}),
    ...(tokenLimit(m.max_input_tokens) ? { contextWindow: tokenLimit(m.max_input_tokens) } : {}),
    ...(tokenLimit(m.max_tokens) ? { maxOutput: tokenLimit(m.max_tokens) } : {}),
    ...(capabilities ? { capabilities } : {}),
    lifecycle,
    ...(retiresAt ? { retiresAt } : {}),
  };
}

/** Lists the key's models (newest first, as the API orders them). Throws what the SDK throws. */
export async function listAnthropicModels(
  options: { apiKey: string; baseUrl?: string; timeoutMs?: number },
  signal?: AbortSignal,
): Promise<ProviderModelInfo[]> {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseUrl || undefined,
    maxRetries: 1,
    timeout: options.timeoutMs ?? 10_000,
    logLevel: 'off',
  });
  const out: ProviderModelInfo[] = [];
  for await (const m of client.models.list({ limit: 100 }, { signal })) {
    const info = fromAnthropicModel(m);
    if (info && !out.some((o) => o.id === info.id)) out.push(info);
    if (out.length >= MAX_MODELS) break;
  }
  return out;
}
