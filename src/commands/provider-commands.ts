import * as vscode from 'vscode';
import { PROVIDER_IDS, providerEntry, type ProviderId } from '../common/provider-catalogue';
import { defaultModelFor, modelsFor } from '../context/models';
import { envVarFor, maskApiKey, resolveApiKey, storeApiKey, type SecretStore } from '../providers/credentials';
import { requestOrigin } from '../providers/key-origin';
import { readProviderSettings } from '../config/settings';

/** Providers Set API Key offers: those that take a key (VS Code's models take none). */
const KEYED = PROVIDER_IDS.filter((id) => providerEntry(id).defaultOrigin !== undefined);

const label = (p: ProviderId) => providerEntry(p).label;
/** A server at a base URL the user gives: Set API Key asks for the URL, and the key is optional. */
const atBaseUrl = (p: ProviderId) => providerEntry(p).endpoint === 'server';

/** Checks a pasted key: no spaces or line breaks inside, not absurdly short. Empty means "remove". */
export function validateApiKey(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  if (/\s/.test(v)) return vscode.l10n.t('An API key has no spaces or line breaks inside it.');
  if (v.length < 8) return vscode.l10n.t('That is too short to be an API key.');
  return undefined;
}

/** Checks a base URL: http(s) with a host. Empty means "provider default". */
export function validateBaseUrl(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return vscode.l10n.t('Use an http:// or https:// URL.');
    return undefined;
  } catch {
    return vscode.l10n.t('Not a URL. Example: http://localhost:11434/v1');
  }
}

/**
 * `Headroom: Set API Key`: pick a provider (showing which have a key and from where), paste the key
 * into a password box (empty removes it), stored only in SecretStorage together with the origin it
 * is entered for (the base URL's, else the provider's API). Offers to switch to that provider. For
 * OpenAI-compatible servers it asks for the base URL too.
 */
export async function setApiKey(secrets: SecretStore, log: vscode.LogOutputChannel): Promise<void> {
  const current = readProviderSettings();
  const items = await Promise.all(
    KEYED.map(async (id) => {
      const key = await resolveApiKey(id, secrets);
      const status = key
        ? key.source === 'env'
          ? vscode.l10n.t('from {0}', envVarFor(id) ?? 'env')
          : vscode.l10n.t('key stored')
        : vscode.l10n.t('no key');
      return {
        label: label(id),
        description: `${status}${id === current.provider ? ' · ' + vscode.l10n.t('current') : ''}`,
        detail: providerEntry(id).detail,
        id,
      };
    }),
  );
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Headroom: Set API Key'),
    placeHolder: vscode.l10n.t('Which provider?'),
  });
  if (!picked) return;
  const provider = picked.id;

  let baseUrl = current.baseUrl;
  if (atBaseUrl(provider)) {
    const entered = await vscode.window.showInputBox({
      title: vscode.l10n.t('Base URL of the OpenAI-compatible server'),
      value: current.baseUrl ?? 'http://localhost:11434/v1',
      validateInput: validateBaseUrl,
      ignoreFocusOut: true,
    });
    if (entered === undefined) return;
    await vscode.workspace.getConfiguration('headroom').update('baseUrl', entered.trim(), vscode.ConfigurationTarget.Global);
    baseUrl = entered.trim() || undefined;
  }
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('{0} API key', label(provider)),
    prompt: atBaseUrl(provider)
      ? vscode.l10n.t('Optional for local servers. Leave empty for none. Stored in VS Code SecretStorage, never in settings.')
      : vscode.l10n.t('Stored in VS Code SecretStorage, never in settings or logs. Leave empty to remove the stored key.'),
    password: true,
    ignoreFocusOut: true,
    validateInput: validateApiKey,
  });
  if (value === undefined) return;
  // The key is bound to the server it is entered for; any other origin will ask before it gets the key.
  const target = requestOrigin(provider, baseUrl);
  const origin = 'origin' in target ? target.origin : undefined;
  await storeApiKey(provider, secrets, value, origin);
  log.info(`API key for ${provider} ${value.trim() ? `stored for ${origin ?? 'the provider default'}` : 'removed'}`);
  if (provider !== current.provider) {
    const use = vscode.l10n.t('Use {0}', label(provider));
    const answer = await vscode.window.showInformationMessage(
      value.trim()
        ? vscode.l10n.t('{0} key stored ({1}).', label(provider), maskApiKey(value.trim()))
        : vscode.l10n.t('{0} key removed.', label(provider)),
      use,
    );
    if (answer === use) await switchProvider(provider);
  } else {
    void vscode.window.showInformationMessage(
      value.trim()
        ? vscode.l10n.t('{0} key stored ({1}).', label(provider), maskApiKey(value.trim()))
        : vscode.l10n.t('{0} key removed.', label(provider)),
    );
  }
}

async function switchProvider(provider: ProviderId): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('headroom');
  await cfg.update('provider', provider, vscode.ConfigurationTarget.Global);
  // A model id of another provider would not work; fall back to the new provider's default.
  await cfg.update('model', defaultModelFor(provider) ?? '', vscode.ConfigurationTarget.Global);
}

const k = (n: number) => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(n % 1_000_000 ? 2 : 0)}M` : `${Math.round(n / 1000)}k`);

/**
 * `Headroom: Select Model`: the model table for the current provider (window, output limit and price
 * per million input / output tokens shown),
 * or any model id typed in (OpenAI-compatible servers, new models). Writes `headroom.model`.
 */
export async function selectModel(): Promise<void> {
  const { provider, model } = readProviderSettings();
  if (providerEntry(provider).endpoint === 'vscode') return selectLanguageModel(provider, model);
  const other = { label: vscode.l10n.t('$(edit) Other model id…'), id: '' };
  const items = [
    ...modelsFor(provider).map((m) => ({
      label: m.match,
      description: `${k(m.contextWindow)} context · ${k(m.maxOutput)} output · $${m.price.input} / $${m.price.output} per M${m.match === model ? ' · ' + vscode.l10n.t('current') : ''}`,
      id: m.match,
    })),
    other,
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Headroom: Select Model ({0})', label(provider)),
    placeHolder: vscode.l10n.t('Context window and output limit come from this table unless settings override them'),
  });
  if (!picked) return;
  let id = picked.id;
  if (!id) {
    const typed = await vscode.window.showInputBox({
      title: vscode.l10n.t('Model id'),
      value: model,
      validateInput: (v) => (v.trim() && !/\s/.test(v.trim()) ? undefined : vscode.l10n.t('A model id has no spaces, e.g. llama3.1:8b')),
    });
    if (!typed) return;
    id = typed.trim();
  }
  await vscode.workspace.getConfiguration('headroom').update('model', id, vscode.ConfigurationTarget.Global);
}

/** Select Model for VS Code's models: the chat models extensions offer through VS Code, with their input limit. */
async function selectLanguageModel(provider: ProviderId, current: string): Promise<void> {
  const models = await vscode.lm.selectChatModels();
  if (!models.length) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Headroom: no VS Code language model is available. Install or sign in to an extension that provides one (e.g. GitHub Copilot).',
      ),
    );
    return;
  }
  const picked = await vscode.window.showQuickPick(
    models.map((m) => ({
      label: m.name,
      description: `${m.vendor} · ${k(m.maxInputTokens)} input${m.id === current ? ' · ' + vscode.l10n.t('current') : ''}`,
      id: m.id,
    })),
    {
      title: vscode.l10n.t('Headroom: Select Model ({0})', label(provider)),
      placeHolder: vscode.l10n.t('The window is the input limit VS Code reports for the model'),
    },
  );
  if (picked) await vscode.workspace.getConfiguration('headroom').update('model', picked.id, vscode.ConfigurationTarget.Global);
}
