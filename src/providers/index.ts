/** The providers layer's public surface. */
export * from './types';
export type { Provider } from './provider';
export { complete } from './provider';
export { createProvider, type ProviderConfig } from './create-provider';
export { classifyProviderError, isContextOverflowMessage, isRetryableKind, parseRetryAfter, redactSecrets } from './errors';
export { DEFAULT_RETRY_POLICY, retryDelay, type RetryPolicy } from './retry';
export { resolveApiKey, storeApiKey, secretKeyFor, envVarFor, maskApiKey, type SecretStore, type ResolvedKey } from './credentials';
export { estimateTokens } from './usage-estimate';
