import { createHash } from 'node:crypto';
import { providerEntry } from '../common/provider-catalogue';
import { defaultOriginFor, originOf, type KeyOriginDecisions } from './key-origin';
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
  return providerEntry(provider).envVar;
}

/** A resolved key and where it came from (the source may be shown; the key never is). */
export interface ResolvedKey {
  apiKey: string;
  source: 'secretStorage' | 'env';
  /**
   * The origin the key was entered for (env keys: the provider's default origin). Undefined for an
   * OpenAI-compatible key stored before keys carried an origin: nobody knows where it belongs.
   */
  boundOrigin: string | undefined;
}

/** What SecretStorage holds for a provider: the key and the origin it was entered for. */
interface StoredKey {
  v: 1;
  key: string;
  origin?: string;
}

/** A stored value: our JSON record, or a bare key stored by an older Headroom. */
function parseStored(provider: ProviderId, raw: string | undefined): { key: string; origin: string | undefined } | undefined {
  const text = raw?.trim();
  if (!text) return undefined;
  if (text.startsWith('{')) {
    try {
      const v = JSON.parse(text) as Partial<StoredKey>;
      if (v && v.v === 1 && typeof v.key === 'string' && v.key.trim()) return { key: v.key.trim(), origin: originOf(v.origin) };
    } catch {
      // not ours: a bare key that happens to start with "{"
    }
  }
  // Older Headroom stored bare keys for the provider's own API; a compatible server's origin is unknown.
  return { key: text, origin: providerEntry(provider).endpoint === 'server' ? undefined : defaultOriginFor(provider) };
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
  let stored: { key: string; origin: string | undefined } | undefined;
  try {
    stored = parseStored(provider, await secrets.get(secretKeyFor(provider)));
  } catch {
    stored = undefined;
  }
  if (stored) return { apiKey: stored.key, source: 'secretStorage', boundOrigin: stored.origin };
  const name = envVarFor(provider);
  const fromEnv = name ? env[name]?.trim() : undefined;
  // A key in the environment was meant for the provider's own API.
  return fromEnv ? { apiKey: fromEnv, source: 'env', boundOrigin: defaultOriginFor(provider) } : undefined;
}

/**
 * Stores (or, with an empty value, deletes) a provider's key, bound to `origin`: the base-URL origin
 * the user entered it for (default: the provider's own API). The value is trimmed.
 */
export async function storeApiKey(provider: ProviderId, secrets: SecretStore, value: string, origin?: string): Promise<void> {
  const key = value.trim();
  if (!key) return secrets.delete(secretKeyFor(provider));
  const record: StoredKey = { v: 1, key, origin: originOf(origin) ?? defaultOriginFor(provider) };
  await secrets.store(secretKeyFor(provider), JSON.stringify(record));
}

/** The SecretStorage key of the user's send / don't-send answers for a provider's key. */
export function decisionsKeyFor(provider: ProviderId): string {
  return `headroom.apiKeyOrigins.${provider}`;
}

/** Answers belong to one key: a new key starts with none. A short hash identifies it, never the key. */
function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

interface StoredDecisions {
  v: 1;
  keyHash: string;
  approved: string[];
  denied: string[];
}

/** The remembered answers for `apiKey`. Never throws: anything unreadable counts as no answers. */
export async function loadKeyDecisions(provider: ProviderId, secrets: SecretStore, apiKey: string): Promise<KeyOriginDecisions> {
  try {
    const raw = await secrets.get(decisionsKeyFor(provider));
    const v = raw ? (JSON.parse(raw) as Partial<StoredDecisions>) : undefined;
    if (!v || v.v !== 1 || v.keyHash !== keyHash(apiKey)) return { approved: [], denied: [] };
    const list = (x: unknown) => (Array.isArray(x) ? x.filter((o): o is string => typeof o === 'string') : []);
    return { approved: list(v.approved), denied: list(v.denied) };
  } catch {
    return { approved: [], denied: [] };
  }
}

/** Remembers the user's answer for sending `apiKey` to `origin`. */
export async function rememberKeyDecision(
  provider: ProviderId,
  secrets: SecretStore,
  apiKey: string,
  origin: string,
  allowed: boolean,
): Promise<void> {
  const current = await loadKeyDecisions(provider, secrets, apiKey);
  const approved = current.approved.filter((o) => o !== origin);
  const denied = current.denied.filter((o) => o !== origin);
  (allowed ? approved : denied).push(origin);
  const record: StoredDecisions = { v: 1, keyHash: keyHash(apiKey), approved, denied };
  await secrets.store(decisionsKeyFor(provider), JSON.stringify(record));
}

/** Shows a key as `sk-a…wxyz` for confirmations; short keys are fully masked. */
export function maskApiKey(key: string): string {
  return key.length < 12 ? '••••' : `${key.slice(0, 4)}…${key.slice(-4)}`;
}
