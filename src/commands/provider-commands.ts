import * as vscode from 'vscode';
import { PROVIDER_IDS, providerEntry, type ProviderId } from '../common/provider-catalogue';
import type { ModelChoice } from '../context/model-choice';
import { defaultModelFor } from '../context/models';
import { envVarFor, maskApiKey, resolveApiKey, storeApiKey, type SecretStore } from '../providers/credentials';
import { keyBindings, type KeyBinding } from '../providers/key-binding';
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
  // The key is bound to one server, said before it is typed: a vendor's own API unless the user picks
  // the configured base URL (which a repository's settings may have set).
  const bindings = keyBindings(provider, baseUrl, atBaseUrl(provider) ? false : baseUrlFromWorkspace());
  const binding = bindings.length > 1 ? await pickBinding(provider, bindings) : bindings[0];
  if (bindings.length > 1 && !binding) return;
  const bound = binding
    ? vscode.l10n.t(
        'The key will be sent only to {0}; any other address asks you first. Stored in VS Code SecretStorage, never in settings or logs.',
        binding.origin,
      )
    : '';
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('{0} API key', label(provider)),
    prompt: atBaseUrl(provider)
      ? `${vscode.l10n.t('Optional for local servers. Leave empty for none.')} ${bound}`
      : `${bound} ${vscode.l10n.t('Leave empty to remove the stored key.')}`,
    password: true,
    ignoreFocusOut: true,
    validateInput: validateApiKey,
  });
  if (value === undefined) return;
  const origin = binding?.origin;
  await storeApiKey(provider, secrets, value, origin);
  log.info(`API key for ${provider} ${value.trim() ? `stored for ${origin ?? 'the provider default'}` : 'removed'}`);
  if (provider !== current.provider) {
    const use = vscode.l10n.t('Use {0}', label(provider));
    const answer = await vscode.window.showInformationMessage(
      value.trim()
        ? vscode.l10n.t('{0} key stored ({1}), sent only to {2}.', label(provider), maskApiKey(value.trim()), origin ?? '')
        : vscode.l10n.t('{0} key removed.', label(provider)),
      use,
    );
    if (answer === use) await switchProvider(provider);
  } else {
    void vscode.window.showInformationMessage(
      value.trim()
        ? vscode.l10n.t('{0} key stored ({1}), sent only to {2}.', label(provider), maskApiKey(value.trim()), origin ?? '')
        : vscode.l10n.t('{0} key removed.', label(provider)),
    );
  }
}

/** Which of two origins a vendor key is bound to: its own API (first, recommended) or the configured base URL. */
async function pickBinding(provider: ProviderId, bindings: KeyBinding[]): Promise<KeyBinding | undefined> {
  const detail: Record<KeyBinding['kind'], string> = {
    server: vscode.l10n.t('The server you entered'),
    vendor: vscode.l10n.t("{0}'s own API (recommended)", label(provider)),
    proxy: vscode.l10n.t('headroom.baseUrl: a proxy or gateway you configured'),
    'workspace-proxy': vscode.l10n.t(
      "headroom.baseUrl, set by this workspace's settings: only if you trust this repository and that server",
    ),
  };
  const picked = await vscode.window.showQuickPick(
    bindings.map((b) => ({ label: vscode.l10n.t('Send the key to {0}', b.origin), detail: detail[b.kind], binding: b })),
    { title: vscode.l10n.t('Headroom: Set API Key — which server may receive the {0} key?', label(provider)), ignoreFocusOut: true },
  );
  return picked?.binding;
}

/** True when the workspace's (or a workspace folder's) settings set `headroom.baseUrl`. */
function baseUrlFromWorkspace(): boolean {
  const i = vscode.workspace.getConfiguration('headroom').inspect<string>('baseUrl');
  return Boolean(i?.workspaceValue?.trim() || i?.workspaceFolderValue?.trim());
}

async function switchProvider(provider: ProviderId): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('headroom');
  await cfg.update('provider', provider, vscode.ConfigurationTarget.Global);
  // A model id of another provider would not work; fall back to the new provider's default.
  await cfg.update('model', defaultModelFor(provider) ?? '', vscode.ConfigurationTarget.Global);
}

/**
 * Makes a picked model the default for new sessions (`headroom.provider`, `headroom.model`,
 * `headroom.thinking` in the user's settings); the session that picked it keeps it anyway.
 * Resolves true when a setting changed (the settings listener then re-measures).
 */
export async function saveDefaultModel(choice: ModelChoice): Promise<boolean> {
  const cfg = vscode.workspace.getConfiguration('headroom');
  const current = readProviderSettings();
  const changes = (['provider', 'model', 'thinking'] as const).filter((key) => choice[key] !== current[key]);
  for (const key of changes) await cfg.update(key, choice[key], vscode.ConfigurationTarget.Global);
  return changes.length > 0;
}
