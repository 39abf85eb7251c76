import { loadKeyDecisions, rememberKeyDecision, resolveApiKey, type SecretStore } from './credentials';
import { decideKeyUse, requestOrigin } from './key-origin';
import { providerEntry, type ProviderId } from '../common/provider-catalogue';

/**
 * Releasing a provider's API key for one request: resolve it, check the configured origin against the
 * origin the key is bound to (`decideKeyUse`), and ask the user once for any other origin. Pure apart
 * from the ports; never throws (a failing store counts as no key / no remembered answer).
 */

export interface KeyReleaseInput {
  provider: ProviderId;
  baseUrl: string | undefined;
  secrets: SecretStore;
  env?: Record<string, string | undefined>;
  /**
   * Asks "Send your <provider> key to <origin>?". true / false are remembered for that origin and key;
   * undefined (dismissed) is not, so the question comes again next time.
   */
  ask(providerLabel: string, origin: string): Promise<boolean | undefined>;
}

/** The key to send, or why none is sent (`withheld`, a sentence for the user). Neither: no key exists. */
export interface ReleasedKey {
  apiKey?: string;
  withheld?: string;
}

/**
 * `released` if the request still goes where the key was released for (same provider, same origin);
 * otherwise no key, with a message saying to send again (settings changed in between). The check
 * that keeps a key released for one origin from following a base URL changed mid-turn.
 */
export function keyForTarget(
  released: ReleasedKey & { provider: ProviderId; baseUrl: string | undefined },
  provider: ProviderId,
  baseUrl: string | undefined,
): ReleasedKey {
  const then = requestOrigin(released.provider, released.baseUrl);
  const now = requestOrigin(provider, baseUrl);
  const same = released.provider === provider && 'origin' in then && 'origin' in now && then.origin === now.origin;
  if (same) return { apiKey: released.apiKey, withheld: released.withheld };
  return {
    withheld: 'The provider settings changed since this request was prepared, so Headroom did not send the key. Send the message again.',
  };
}

export async function releaseApiKey(input: KeyReleaseInput): Promise<ReleasedKey> {
  const resolved = await resolveApiKey(input.provider, input.secrets, input.env);
  if (!resolved) return {};
  const label = providerEntry(input.provider).label;
  const decisions = await loadKeyDecisions(input.provider, input.secrets, resolved.apiKey);
  const use = decideKeyUse({ provider: input.provider, baseUrl: input.baseUrl, boundOrigin: resolved.boundOrigin, decisions });
  const withheld = (why: string) =>
    `Headroom did not send your ${label} API key: ${why} ` +
    'If that server is yours, allow it when asked, or set a key for it with "Headroom: Set API Key"; otherwise check headroom.baseUrl.';
  if (use.action === 'send') return { apiKey: resolved.apiKey };
  if (use.action === 'refuse') return { withheld: withheld(use.reason) };
  let answer: boolean | undefined;
  try {
    answer = await input.ask(label, use.origin);
  } catch {
    answer = undefined;
  }
  if (answer === undefined) return { withheld: withheld(`you did not confirm sending it to ${use.origin}.`) };
  await rememberKeyDecision(input.provider, input.secrets, resolved.apiKey, use.origin, answer).catch(() => undefined);
  return answer ? { apiKey: resolved.apiKey } : { withheld: withheld(`you chose not to send it to ${use.origin}.`) };
}
