/**
 * The snapshot's provider facts for the panel: the current provider, model and base URL, whether the
 * provider has what it needs to answer, and every provider the first-run view offers. Derived from
 * the provider catalogue. Pure (no vscode); never throws (a failing key lookup counts as no key).
 */
import type { ProviderSettings } from '../context/provider-settings';
import { PROVIDER_IDS, providerEntry, type ProviderId } from '../common/provider-catalogue';
import type { ConfigView, ProviderChoice } from '../protocol/view-models';

/** Every provider of the catalogue as a first-run option, in catalogue order. */
export function providerChoices(): ProviderChoice[] {
  return PROVIDER_IDS.map((id) => ({ id, label: providerEntry(id).choice }));
}

/**
 * Whether the provider can answer as configured: a vendor API needs a key, a server needs its base
 * URL (a key is optional), VS Code's models need neither.
 */
export async function isSetUp(
  settings: Pick<ProviderSettings, 'provider' | 'model' | 'baseUrl'>,
  hasKey: (provider: ProviderId) => Promise<boolean>,
): Promise<boolean> {
  switch (providerEntry(settings.provider).endpoint) {
    case 'vscode':
      return true;
    case 'server':
      return settings.baseUrl !== undefined;
    case 'vendor':
      return hasKey(settings.provider).catch(() => false);
  }
}

/** The snapshot's `config`: `hasKey` says whether a key is stored or in the environment. */
export async function toConfigView(
  settings: Pick<ProviderSettings, 'provider' | 'model' | 'baseUrl'>,
  hasKey: (provider: ProviderId) => Promise<boolean>,
): Promise<ConfigView> {
  return {
    provider: settings.provider,
    providers: providerChoices(),
    model: settings.model,
    hasApiKey: await isSetUp(settings, hasKey),
    baseUrl: settings.baseUrl,
  };
}
