/**
 * Which server a key entered with Set API Key is bound to, decided and named before the key is typed.
 * A vendor key (Anthropic, OpenAI) used to be bound to whatever base URL was configured, without
 * saying so, even one a cloned repository's settings had set; now the choices are offered, the
 * provider's own API first. Pure; never throws.
 */
import { providerEntry, type ProviderId } from '../common/provider-catalogue';
import { defaultOriginFor, originOf } from './key-origin';

export interface KeyBinding {
  /** The origin the key will be sent to without asking. */
  origin: string;
  /**
   * Why this origin: the server the user entered ('server'), the vendor's own API ('vendor'), the
   * configured base URL set in the user's settings ('proxy') or in the workspace's ('workspace-proxy').
   */
  kind: 'server' | 'vendor' | 'proxy' | 'workspace-proxy';
}

/**
 * The origins a key for `provider` may be bound to, the recommended one first: for a server at a
 * base URL, that URL's origin; for a vendor, its own API, and the configured base URL's origin as a
 * second choice when it differs. Empty when the provider takes no key or the base URL is not http(s).
 */
export function keyBindings(provider: ProviderId, baseUrl: string | undefined, baseUrlFromWorkspace = false): KeyBinding[] {
  const configured = originOf(baseUrl);
  if (providerEntry(provider).endpoint === 'server') return configured ? [{ origin: configured, kind: 'server' }] : [];
  const own = defaultOriginFor(provider);
  if (!own) return [];
  const out: KeyBinding[] = [{ origin: own, kind: 'vendor' }];
  if (configured && configured !== own) out.push({ origin: configured, kind: baseUrlFromWorkspace ? 'workspace-proxy' : 'proxy' });
  return out;
}
