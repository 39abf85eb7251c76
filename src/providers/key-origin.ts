import { providerEntry, type ProviderId } from '../common/provider-catalogue';

/**
 * Where an API key may be sent. A key is bound to the provider and the base-URL origin it was entered
 * for (keys from the environment: the provider's default origin). A request to any other origin —
 * e.g. a base URL set by a cloned repository — needs the user's yes first, remembered per origin.
 * Pure; never throws.
 */

/** The origin (`scheme://host[:port]`, lower-case) of an http(s) URL; undefined for anything else. */
export function originOf(url: string | undefined): string | undefined {
  if (!url?.trim()) return undefined;
  try {
    const u = new URL(url.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The endpoint the SDK uses when no base URL is set; undefined for providers that use no key ('vscode-lm'). */
export function defaultOriginFor(provider: ProviderId): string | undefined {
  return providerEntry(provider).defaultOrigin;
}

/** The origin a request will go to: the base URL's, or the provider default when none is set. */
export function requestOrigin(provider: ProviderId, baseUrl: string | undefined): { origin: string } | { problem: string } {
  if (!baseUrl?.trim()) {
    const origin = defaultOriginFor(provider);
    return origin ? { origin } : { problem: `The ${provider} provider does not take an API key.` };
  }
  const origin = originOf(baseUrl);
  return origin ? { origin } : { problem: `The base URL "${baseUrl.trim()}" is not an http(s) URL.` };
}

/** The user's remembered answers for one key: origins it may be sent to, and origins it may not. */
export interface KeyOriginDecisions {
  approved: readonly string[];
  denied: readonly string[];
}

export type KeyUse =
  | { action: 'send'; origin: string }
  /** Ask the user once: "Send your <provider> key to <origin>?" */
  | { action: 'ask'; origin: string }
  | { action: 'refuse'; origin?: string; reason: string };

export interface KeyUseInput {
  provider: ProviderId;
  /** The configured base URL (undefined: provider default). */
  baseUrl: string | undefined;
  /** The origin the key was entered for; undefined when unknown (a key stored before keys had origins). */
  boundOrigin: string | undefined;
  decisions: KeyOriginDecisions;
}

/** Whether the key may go to the configured origin: send, ask the user, or refuse. */
export function decideKeyUse(input: KeyUseInput): KeyUse {
  const target = requestOrigin(input.provider, input.baseUrl);
  if ('problem' in target) return { action: 'refuse', reason: target.problem };
  const { origin } = target;
  if (input.boundOrigin !== undefined && originOf(input.boundOrigin) === origin) return { action: 'send', origin };
  if (input.decisions.denied.includes(origin)) {
    return { action: 'refuse', origin, reason: `You chose not to send this key to ${origin}.` };
  }
  if (input.decisions.approved.includes(origin)) return { action: 'send', origin };
  return { action: 'ask', origin };
}

/**
 * `init` with the key as a Bearer header when `url` is on the key's own origin: a keyed server (vLLM's
 * `--api-key`, a proxy) refuses its model list and discovery routes without it. Never another origin.
 */
export function withServerKey(
  url: string,
  init: ServerRequestInit | undefined,
  key: string | undefined,
  baseUrl: string | undefined,
): ServerRequestInit | undefined {
  if (!key || !baseUrl || originOf(url) !== originOf(baseUrl)) return init;
  return { ...init, headers: { ...init?.headers, authorization: `Bearer ${key}` } };
}

/** What Headroom's own requests to a server carry. */
export type ServerRequestInit = { method?: string; body?: string; headers?: Record<string, string>; signal?: AbortSignal };
