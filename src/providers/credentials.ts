import type { ProviderId } from './types';

/**
 * Where API keys live: VS Code SecretStorage behind this port (the vscode edge adapts
 * `context.secrets`), so this module stays pure. Implementations must not log values.
 */
export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  store(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** The SecretStorage key for a provider's API key. */
export function secretKeyFor(provider: ProviderId): string {
  return `headroom.apiKey.${provider}`;
}

/** The environment variable read when SecretStorage holds no key (none for OpenAI-compatible servers). */
export function envVarFor(provider: ProviderId): string | undefined {
  if (provider === 'anthropic') return 'ANTHROPIC_API_KEY';
  if (provider === 'openai') return 'OPENAI_API_KEY';
  return undefined;
}

/** A resolved key and where it came from (the source may be shown; the key never is). */
export interface ResolvedKey {
  apiKey: string;
  source: 'secretStorage' | 'env';
}

/**
 * The API key for `provider`: SecretStorage first, then the environment fallback. Undefined when
 * neither has one (fine for OpenAI-compatible servers). Never throws: a failing store counts as empty.
 */
export async function resolveApiKey(
  provider: ProviderId,
  secrets: SecretStore,
  env: Record<string, string | undefined> = process.env,
): Promise<ResolvedKey | undefined> {
  let stored: string | undefined;
  try {
    stored = (await secrets.get(secretKeyFor(provider)))?.trim();
  } catch {
    stored = undefined;
  }
  if (stored) return { apiKey: stored, source: 'secretStorage' };
  const name = envVarFor(provider);
  const fromEnv = name ? env[name]?.trim() : undefined;
  return fromEnv ? { apiKey: fromEnv, source: 'env' } : undefined;
}

/** Stores (or, with an empty value, deletes) a provider's key. The value is trimmed. */
export async function storeApiKey(provider: ProviderId, secrets: SecretStore, value: string): Promise<void> {
  const key = value.trim();
  if (key) await secrets.store(secretKeyFor(provider), key);
  else await secrets.delete(secretKeyFor(provider));
}

/** Shows a key as `sk-a…wxyz` for confirmations; short keys are fully masked. */
export function maskApiKey(key: string): string {
  return key.length < 12 ? '••••' : `${key.slice(0, 4)}…${key.slice(-4)}`;
}
