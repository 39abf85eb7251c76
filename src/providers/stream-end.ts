/**
 * How a provider's stream ends, the same for every adapter: a stream that threw was aborted, stalled
 * (the idle watchdog's error) or failed at the provider; a stream that ended quietly may still have
 * been aborted (the SDKs end iteration without an error on abort), stalled, or closed by the server
 * before its last event. Pure; never throws.
 */
import { classifyProviderError } from './errors';
import type { IdleWatchdog } from './idle-watchdog';
import type { ProviderError } from './types';

const ABORTED: ProviderError = { kind: 'aborted', message: 'Request aborted.' };

/** The error of a stream that threw `err`, with the key's encodings `secrets` redacted from it. */
export function streamThrew(err: unknown, signal: AbortSignal, watchdog: IdleWatchdog, secrets: readonly string[]): ProviderError {
  return signal.aborted ? ABORTED : (watchdog.error() ?? classifyProviderError(err, secrets));
}

/** The error of a stream that ended without throwing, or undefined when it ended with the provider's last event (`sawEnd`). */
export function endOfStream(signal: AbortSignal, watchdog: IdleWatchdog, sawEnd: boolean): ProviderError | undefined {
  if (signal.aborted) return ABORTED;
  const idle = watchdog.error();
  if (idle) return idle;
  return sawEnd ? undefined : { kind: 'network', message: 'The connection closed before the reply was complete.' };
}
