/**
 * The provider part of Headroom's settings (`headroom.provider`, `headroom.model`, `headroom.baseUrl`,
 * `headroom.thinking`)
 * as a zod schema derived from the provider catalogue. Pure (no vscode): `config/settings.ts` reads the raw
 * values and parses them here. Never throws: bad values fall back to the defaults.
 */
import { z } from 'zod';
import { DEFAULT_PROVIDER, PROVIDER_IDS, providerEntry, type ProviderId } from '../common/provider-catalogue';
import { THINKING_LEVELS, type ThinkingLevel } from './thinking';

/** The provider/model part of Headroom's settings, read fresh each time (settings can change). */
export interface ProviderSettings {
  provider: ProviderId;
  /** For 'vscode-lm', '' means the first chat model VS Code offers. */
  model: string;
  baseUrl: string | undefined;
  /** `headroom.thinking`: the reasoning level new sessions start with (a session keeps its own). */
  thinking: ThinkingLevel;
}

/** `headroom.provider`: one of the catalogue's ids; anything else means the default provider. */
export const ProviderSetting = z.enum(PROVIDER_IDS).catch(DEFAULT_PROVIDER);

/** `headroom.model` and `headroom.baseUrl`: trimmed text; anything else counts as unset. */
const TextSetting = z.string().trim().catch('');

/** `headroom.thinking`: a level; anything else means off. */
const ThinkingSetting = z.enum(THINKING_LEVELS).catch('off');

/** The settings as VS Code returns them (any JSON a settings file may hold). */
export interface RawProviderSettings {
  provider: unknown;
  model: unknown;
  baseUrl: unknown;
  thinking?: unknown;
}

/** Validated provider settings: an unset model is the provider's default model (catalogue). */
export function parseProviderSettings(raw: RawProviderSettings): ProviderSettings {
  const provider = ProviderSetting.parse(raw.provider);
  const model = TextSetting.parse(raw.model) || providerEntry(provider).defaultModel;
  const baseUrl = TextSetting.parse(raw.baseUrl) || undefined;
  return { provider, model, baseUrl, thinking: ThinkingSetting.parse(raw.thinking) };
}
