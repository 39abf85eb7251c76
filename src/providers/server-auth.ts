/**
 * A server's refusal of the key, worded for that server. Self-hosted servers and the proxies in front
 * of them answer a 401 in their own words — or in OpenAI's, which some pass on or copy ("You can find
 * your API key at https://platform.openai.com/…") — but the key Headroom sent was for the server at
 * the base URL, which no vendor console issued. So the message names the server, keeps the server's
 * own words without a vendor's key page, and says what to do there. Pure; never throws.
 */
import type { ProviderError } from './types';

/** Links to vendors' key pages, and the sentence around each. */
const VENDOR_KEY_SENTENCE = /[^.!?]*https?:\/\/(?:platform\.openai\.com|console\.anthropic\.com)\S*[.!?]?\s*/gi;
/** The generic hint `classifyProviderError` adds to an auth error (it points at "the account"). */
const ACCOUNT_HINT = /\s*Check the API key \(Headroom: Set API Key\) and the account\.$/;
/** The origin a server's key may have come from a vendor at (its own API): left as it is. */
const VENDOR_ORIGINS = new Set(['https://api.openai.com', 'https://api.anthropic.com']);

function originOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return undefined;
  }
}

/** `error` as the server at `baseUrl` should be quoted: unchanged unless it refused the key. */
export function serverAuthError(error: ProviderError, baseUrl: string): ProviderError {
  const origin = originOf(baseUrl);
  if (error.kind !== 'auth' || !origin || VENDOR_ORIGINS.has(origin)) return error;
  const status = error.status ? `${error.status} ` : '';
  const own = error.message
    .replace(/^\d{3} /, '')
    .replace(ACCOUNT_HINT, '')
    .replace(VENDOR_KEY_SENTENCE, '')
    .trim();
  const said = own ? ` (it said: “${own.replace(/[.!?]$/, '')}”)` : '';
  return {
    ...error,
    message:
      `${status}The server at ${origin} did not accept the API key${said}. ` +
      'Set the key that server expects with Headroom: Set API Key, or remove the stored key if the server takes none.',
  };
}
