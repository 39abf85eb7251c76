/**
 * The model a session talks to — provider, model id and thinking level — as it is stored with the
 * session (so resuming brings it back), and the options the model picker offers with the figures
 * people choose by (window, price per million tokens). Pure; never throws.
 */
import { z } from 'zod';
import { formatTokens, formatUsdRate } from '../protocol/format';
import { PROVIDER_IDS, providerEntry, type ProviderId, type ProviderEndpoint } from '../common/provider-catalogue';
import { findModel, MODEL_TABLE, type ModelPrice } from './models';
import { THINKING_LEVELS, thinkingConfigurable, type ThinkingLevel } from './thinking';

/** The catalogue's provider of an endpoint kind (VS Code's models, a server at a base URL). */
const providerOf = (endpoint: ProviderEndpoint): ProviderId => PROVIDER_IDS.find((id) => providerEntry(id).endpoint === endpoint)!;

/** A session's model. `model` '' with VS Code's models means the first chat model VS Code offers. */
export interface ModelChoice {
  provider: ProviderId;
  model: string;
  thinking: ThinkingLevel;
}

/** The session-state key the choice is stored under. */
export const MODEL_CHOICE_KEY = 'model';

const ModelChoiceSchema = z.object({
  provider: z.enum(PROVIDER_IDS),
  model: z.string().trim().max(300),
  thinking: z.enum(THINKING_LEVELS).catch('off'),
});

/** Reads a stored choice; undefined when absent or damaged (the session then uses the settings). */
export function parseModelChoice(raw: string | undefined): ModelChoice | undefined {
  if (!raw) return undefined;
  try {
    const r = ModelChoiceSchema.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

export const serializeModelChoice = (c: ModelChoice): string => JSON.stringify(c);

/** A VS Code language model as the picker needs it (from `vscode.lm.selectChatModels`). */
export interface LanguageModelInfo {
  id: string;
  name: string;
  vendor: string;
  maxInputTokens: number;
}

/** One entry of the model picker. */
export interface ModelOption {
  provider: ProviderId;
  model: string;
  /** What the entry shows: the model id (or a VS Code model's name). */
  label: string;
  /** Window and price, e.g. "200k window · $3 in / $15 out per M tokens · reasons". */
  description: string;
  /** The option is the session's current model. */
  current: boolean;
}

/** "$3 in / $15 out per M tokens" (cache read in brackets when the model has one). */
export function formatPrice(p: ModelPrice): string {
  return `${formatUsdRate(p.input)} in / ${formatUsdRate(p.output)} out per M tokens${p.cacheRead ? ` (cache read ${formatUsdRate(p.cacheRead)})` : ''}`;
}

/**
 * The picker's options: every table model of Anthropic and OpenAI, the VS Code language models
 * offered now, and the models the configured OpenAI-compatible server lists. The current choice is
 * always listed (a model typed in by hand too) and marked.
 */
export function modelOptions(input: {
  current: ModelChoice;
  languageModels: readonly LanguageModelInfo[];
  /** The configured OpenAI-compatible base URL, if any. */
  serverUrl: string | undefined;
  /** The models that server lists (`/v1/models`); empty when it did not answer. */
  serverModels?: readonly string[];
  /** The window the server reported for the current model, if known. */
  serverWindow?: number;
}): ModelOption[] {
  const { current } = input;
  const isCurrent = (provider: ProviderId, model: string) => current.provider === provider && current.model === model;
  const out: ModelOption[] = MODEL_TABLE.map((row) => ({
    provider: row.provider,
    model: row.match,
    label: row.match,
    description: [`${formatTokens(row.contextWindow)} window`, formatPrice(row.price), row.reasoning ? 'reasons' : '']
      .filter(Boolean)
      .join(' · '),
    current: isCurrent(row.provider, row.match),
  }));
  const vscodeModels = providerOf('vscode');
  const server = providerOf('server');
  for (const m of input.languageModels) {
    out.push({
      provider: vscodeModels,
      model: m.id,
      label: m.name,
      description: `${formatTokens(m.maxInputTokens)} window · ${m.vendor} · no key`,
      current: isCurrent(vscodeModels, m.id) || (current.provider === vscodeModels && !current.model && m === input.languageModels[0]),
    });
  }
  if (input.serverUrl) {
    const ids = [...(input.serverModels ?? [])];
    if (current.provider === server && current.model && !ids.includes(current.model)) ids.unshift(current.model);
    for (const id of ids) {
      const mine = isCurrent(server, id);
      const window = mine && input.serverWindow ? `${formatTokens(input.serverWindow)} window (server)` : 'window read from the server';
      out.push({ provider: server, model: id, label: id, description: `${window} · ${input.serverUrl}`, current: mine });
    }
  }
  if (!out.some((o) => o.current)) {
    const row = findModel(current.model);
    out.unshift({
      provider: current.provider,
      model: current.model,
      label: current.model || '(first available)',
      description: row ? `${formatTokens(row.contextWindow)} window · ${formatPrice(row.price)}` : 'not in the model table',
      current: true,
    });
  }
  return out;
}

/** The thinking levels the picker offers for a model: all of them when it reasons, none otherwise. */
export function thinkingLevelsFor(choice: Pick<ModelChoice, 'provider' | 'model'>): readonly ThinkingLevel[] {
  return thinkingConfigurable(choice.provider, choice.model) ? THINKING_LEVELS : [];
}
