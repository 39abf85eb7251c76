/**
 * The model a session talks to — provider, model id and thinking level — as it is stored with the
 * session (so resuming brings it back), and the options the model picker offers with the figures
 * people choose by (window, price per million tokens). Pure; never throws.
 */
import { z } from 'zod';
import { formatTokens, formatUsdRate } from '../protocol/format';
import { PROVIDER_IDS, providerEntry, type ProviderId, type ProviderEndpoint } from '../common/provider-catalogue';
import type { ModelCapabilities, ProviderModelInfo } from '../providers/model-info';
import { listsModel } from '../providers/server-models';
import type { ServerWindow } from '../providers/server-window';
import { capabilitiesOf } from './model-capabilities';
import { findModel, MODEL_TABLE, type ModelPrice } from './models';
import { THINKING_LEVELS, thinkingLevels, type ThinkingLevel } from './thinking';

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

/** What the picker says of a model's lifecycle: nothing for an active one. */
function lifecycleNote(m: Pick<ProviderModelInfo, 'lifecycle' | 'retiresAt'>): string {
  if (m.lifecycle !== 'deprecated') return '';
  const day = m.retiresAt && /^\d{4}-\d{2}-\d{2}/.test(m.retiresAt) ? m.retiresAt.slice(0, 10) : undefined;
  return day ? `deprecated, retires ${day}` : 'deprecated';
}

/** "1M window · $4 in / $20 out per M tokens · adaptive thinking · deprecated" for a vendor model. */
function vendorDescription(provider: ProviderId, m: ProviderModelInfo): string {
  const row = findModel(m.id);
  const window = m.contextWindow ?? (row?.provider === provider ? row.contextWindow : undefined);
  const caps = capabilitiesOf(m.id, provider, row, m);
  const thinking = caps.thinking === 'adaptive' ? 'adaptive thinking' : caps.thinking === 'none' ? '' : 'reasons';
  return [
    window ? `${formatTokens(window)} window` : 'window unknown',
    row?.price ? formatPrice(row.price) : 'price unknown',
    thinking,
    lifecycleNote(m),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The table's models of a vendor, as the picker lists them when the provider's own list is not known. */
function tableModels(provider: ProviderId): ProviderModelInfo[] {
  return MODEL_TABLE.filter((r) => r.provider === provider).map((r) => ({
    id: r.match,
    contextWindow: r.contextWindow,
    maxOutput: r.maxOutput,
    lifecycle: r.lifecycle,
    ...(r.retiresAt ? { retiresAt: r.retiresAt } : {}),
  }));
}

/**
 * The picker's options: for each vendor API, the models its own list gives the key (Anthropic's Models
 * API), else the model table's; retired models are never offered, deprecated ones say so. Then the
 * VS Code language models offered now, and the models the configured OpenAI-compatible server lists.
 * The current choice is always listed (a model typed in by hand too) and marked.
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
  /** What the server said of each listed model's window (those it was asked about). */
  serverWindows?: ReadonlyMap<string, ServerModelWindow>;
  /** What each vendor API listed for the key; a vendor absent here is listed from the model table. */
  vendorModels?: Partial<Record<ProviderId, readonly ProviderModelInfo[]>>;
}): ModelOption[] {
  const { current } = input;
  const isCurrent = (provider: ProviderId, model: string) => current.provider === provider && current.model === model;
  // A local server's own models come first: they are the ones it can answer with.
  const out: ModelOption[] = serverOptions(input);
  for (const provider of PROVIDER_IDS.filter((id) => providerEntry(id).endpoint === 'vendor')) {
    const listed = input.vendorModels?.[provider] ?? tableModels(provider);
    for (const m of listed) {
      if (m.lifecycle === 'retired') continue;
      out.push({ provider, model: m.id, label: m.id, description: vendorDescription(provider, m), current: isCurrent(provider, m.id) });
    }
  }
  const vscodeModels = providerOf('vscode');
  for (const m of input.languageModels) {
    out.push({
      provider: vscodeModels,
      model: m.id,
      label: m.name,
      description: `${formatTokens(m.maxInputTokens)} window · ${m.vendor} · no key`,
      current: isCurrent(vscodeModels, m.id) || (current.provider === vscodeModels && !current.model && m === input.languageModels[0]),
    });
  }
  if (!out.some((o) => o.current)) {
    const row = findModel(current.model);
    const retired = row?.lifecycle === 'retired' ? ' · retired: requests to it fail' : '';
    out.unshift({
      provider: current.provider,
      model: current.model,
      label: current.model || '(first available)',
      description: (row ? `${formatTokens(row.contextWindow)} window · ${formatPrice(row.price)}` : 'not in the model table') + retired,
      current: true,
    });
  }
  return out;
}

/** What a local server said of one model's window (`providers/server-window.ts` `ServerWindow`). */
export type ServerModelWindow = Pick<ServerWindow, 'contextWindow' | 'loaded' | 'modelMax'>;

/** "32.8k window (server)", or for a model not loaded yet "4.1k until loaded (up to 131k)". */
function serverWindowWords(w: ServerModelWindow | undefined): string {
  if (!w) return 'window read when chosen';
  if (w.loaded) return `${formatTokens(w.contextWindow)} window (server)`;
  return `not loaded: ${formatTokens(w.contextWindow)} until loaded${w.modelMax ? ` (up to ${formatTokens(w.modelMax)})` : ''}`;
}

/**
 * The configured server's models, in its order, each with the window it reported; the current model
 * (matched by the server's naming, `listsModel`) marked. A current model the server does not list is
 * shown too, said to be missing, so the picker never hides what the session uses.
 */
function serverOptions(input: Parameters<typeof modelOptions>[0]): ModelOption[] {
  const { current, serverUrl } = input;
  const server = providerOf('server');
  if (!serverUrl) return [];
  const ids = input.serverModels ?? [];
  const mine = current.provider === server && current.model ? current.model : undefined;
  const currentId = mine ? ids.find((id) => listsModel([id], mine)) : undefined;
  const out = ids.map((id) => {
    const isMine = id === currentId;
    const window = isMine && input.serverWindow ? { contextWindow: input.serverWindow, loaded: true } : input.serverWindows?.get(id);
    return { provider: server, model: id, label: id, description: `${serverWindowWords(window)} · ${serverUrl}`, current: isMine };
  });
  if (mine && !currentId) {
    const window = ids.length
      ? 'not on this server'
      : input.serverWindow
        ? serverWindowWords({ contextWindow: input.serverWindow, loaded: true })
        : 'window read when chosen';
    out.unshift({ provider: server, model: mine, label: mine, description: `${window} · ${serverUrl}`, current: true });
  }
  return out;
}

/** The thinking levels the picker offers for a model with these capabilities (none where it cannot think). */
export function thinkingLevelsFor(caps: ModelCapabilities): readonly ThinkingLevel[] {
  return thinkingLevels(caps);
}
