import { OVERFLOW_WORDINGS } from './overflow-wordings';
import { redactSecrets } from './redact';

export { redactSecrets };
import type { ProviderError, ProviderErrorKind } from './types';

/**
 * Error classification at the provider boundary: anything an SDK, `fetch` or a stream parser throws
 * becomes a `ProviderError` with a kind the agent loop can branch on. Pure; never throws.
 */

/** True when `text` is a provider's way of saying the prompt exceeds the context window (`OVERFLOW_WORDINGS`). */
export function isContextOverflowMessage(text: string): boolean {
  return OVERFLOW_WORDINGS.some((w) => w.pattern.test(text));
}

/** Kinds worth retrying automatically (with backoff) when nothing has been streamed yet. */
export function isRetryableKind(kind: ProviderErrorKind): boolean {
  return kind === 'rate_limit' || kind === 'overloaded' || kind === 'network';
}

interface HeadersLike {
  get(name: string): string | null;
}

function isHeadersLike(v: unknown): v is HeadersLike {
  return typeof v === 'object' && v !== null && typeof (v as { get?: unknown }).get === 'function';
}

/**
 * Milliseconds the provider asked us to wait, from `retry-after-ms` or `retry-after` (seconds or an
 * HTTP date). Undefined when absent or unparsable. `now` is injectable for tests.
 */
export function parseRetryAfter(headers: unknown, now: number = Date.now()): number | undefined {
  if (!isHeadersLike(headers)) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return Math.round(secs * 1000);
  const date = Date.parse(ra);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The provider's own error message and type/code from an SDK error or a parsed error body. */
function extractApiDetail(err: unknown): { message?: string; type?: string; code?: string } {
  // Anthropic APIError: err.error = {type:'error', error:{type, message}}; OpenAI APIError: err.error = {message, type, code}.
  const body = field(err, 'error');
  const inner = field(body, 'error') ?? body;
  return {
    message: str(field(inner, 'message')) ?? str(field(body, 'message')),
    type: str(field(inner, 'type')) ?? str(field(err, 'type')),
    code: str(field(inner, 'code')) ?? str(field(err, 'code')),
  };
}

function isAbort(err: unknown): boolean {
  const name = field(err, 'name');
  const ctor = typeof err === 'object' && err !== null ? err.constructor?.name : undefined;
  return name === 'AbortError' || name === 'APIUserAbortError' || ctor === 'APIUserAbortError';
}

function rawMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = field(err, 'cause');
    const causeMsg = cause instanceof Error ? cause.message : undefined;
    return causeMsg && !err.message.includes(causeMsg) ? `${err.message} (${causeMsg})` : err.message;
  }
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

function kindFromTypeOrCode(type?: string, code?: string): ProviderErrorKind | undefined {
  switch (code) {
    case 'context_length_exceeded':
      return 'context_overflow';
    case 'rate_limit_exceeded':
      return 'rate_limit';
    case 'invalid_api_key':
    case 'insufficient_quota': // quota exhausted: retrying cannot help, the account needs attention
      return 'auth';
  }
  switch (type) {
    case 'overloaded_error':
      return 'overloaded';
    case 'rate_limit_error':
      return 'rate_limit';
    case 'authentication_error':
    case 'permission_error':
      return 'auth';
    case 'api_error': // Anthropic 500
    case 'server_error': // OpenAI 5xx, also sent as an in-stream error
      return 'overloaded';
    case 'request_too_large':
    case 'exceed_context_size_error': // llama.cpp server
      return 'context_overflow';
  }
  return undefined;
}

function kindFromStatus(status: number): ProviderErrorKind | undefined {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'network';
  if (status === 413) return 'context_overflow';
  if (status >= 500) return 'overloaded'; // 500/502/503/504/529: the server side, transient
  if (status >= 400) return 'invalid_request';
  return undefined;
}

const HINTS: Partial<Record<ProviderErrorKind, string>> = {
  auth: 'Check the API key (Headroom: Set API Key) and the account.',
  context_overflow: 'The request does not fit the model context window.',
};

/**
 * Maps anything thrown by an SDK, `fetch` or a stream parser to a `ProviderError`. Never throws.
 * `secrets` (API keys) are scrubbed from the message; key-shaped strings are always scrubbed.
 */
export function classifyProviderError(err: unknown, secrets: readonly string[] = []): ProviderError {
  if (isAbort(err)) return { kind: 'aborted', message: 'Request aborted.' };
  const status = typeof field(err, 'status') === 'number' ? (field(err, 'status') as number) : undefined;
  const detail = extractApiDetail(err);
  const text = detail.message ?? rawMessage(err);
  let kind: ProviderErrorKind | undefined;
  if (status !== 429 && (isContextOverflowMessage(text) || detail.code === 'context_length_exceeded')) {
    kind = 'context_overflow';
  }
  kind ??= kindFromTypeOrCode(detail.type, detail.code);
  if (kind === undefined && status !== undefined) kind = kindFromStatus(status);
  if (kind === undefined) {
    if (err instanceof SyntaxError)
      kind = 'network'; // a corrupted stream: the transport broke, not the request
    else if (field(err, 'name') === 'APIConnectionError' || field(err, 'name') === 'APIConnectionTimeoutError') kind = 'network';
    else if (/terminated|fetch failed|socket|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|network|connection|other side closed/i.test(text))
      kind = 'network';
    else kind = 'unknown';
  }
  const prefix = status !== undefined ? `${status} ` : '';
  let body = text.replace(/^\d{3} /, '');
  if (err instanceof SyntaxError) body = `Malformed data in the provider stream: ${body}`;
  else if (kind === 'network' && status === undefined) body = `Connection to the provider failed: ${body}`;
  const hint = HINTS[kind];
  const sentence = /[.!?]$/.test(body) ? body : `${body}.`;
  const message = redactSecrets(`${prefix}${hint ? `${sentence} ${hint}` : body}`, secrets);
  const error: ProviderError = { kind, message };
  if (status !== undefined) error.status = status;
  const retryAfterMs = parseRetryAfter(field(err, 'headers'));
  if (retryAfterMs !== undefined) error.retryAfterMs = retryAfterMs;
  return error;
}
